// Element lists (scatter, gather, scatter-acc) and read_inc. A list is split by owner; each
// owner gets one active message with its subscripts (and values), served by its progress
// thread; gathers come back in the reply. Elements this rank owns are served in place.
#include <cstring>
#include <vector>

#include "detail/acc_locks.hpp"
#include "detail/op_state.hpp"
#include "detail/registry.hpp"
#include "detail/stats_counters.hpp"
#include "detail/tracker.hpp"
#include "detail/wire.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/segment.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/ga/detail/array_core.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga::detail {

namespace {

struct list_header {
  std::uint64_t array_id;
  std::uint64_t count;
  std::uint8_t kind;  // the ga::op
  std::uint8_t ndim;
  std::uint8_t reserved[6];
  std::byte alpha[16];
};

// Byte offset of each element of `subs` (count × ndim int64, row-major) in this rank's storage.
template <class Fn>
void for_each_local(const distribution& dist, const index_t* subs, std::size_t count, int ndim,
                    std::size_t es, Fn&& fn) {
  const auto n = static_cast<std::size_t>(ndim);
  for (std::size_t i = 0; i < count; ++i) {
    const index e(std::span<const index_t>(subs + i * n, n));
    fn(i, static_cast<std::size_t>(dist.storage_offset(dist.tile_of(e), e)) * es);
  }
}

bool is_list_op(op o) noexcept {
  return o == op::gather || o == op::scatter || o == op::scatter_acc || o == op::read_inc;
}

}  // namespace

void array_core::serve_list(op o, const index_t* subs, std::size_t count, const std::byte* values,
                            std::byte* out, const void* alpha) {
  auto* base = static_cast<std::byte*>(seg_->local_base());
  const std::size_t es = ops_.size;
  // Element updates are atomic like accumulates: each under its stripe's lock (one held at a
  // time, kept while consecutive elements share it).
  stripe_guard locks(base + acc_locks_offset(rank_));
  for_each_local(dist_, subs, count, dist_.ndim(), es, [&](std::size_t i, std::size_t off) {
    locks.hold_byte(off);
    switch (o) {
      case op::gather:
        std::memcpy(out + i * es, base + off, es);
        break;
      case op::scatter:
        std::memcpy(base + off, values + i * es, es);
        break;
      case op::scatter_acc:
        ops_.acc(base + off, values + i * es, 1, alpha);
        break;
      case op::read_inc:  // out = old value; value += values[i]
        std::memcpy(out + i * es, base + off, es);
        ops_.acc(base + off, values + i * es, 1, alpha);  // alpha = 1
        break;
      default:  // not an element-list operation: rejected before (is_list_op)
        break;
    }
  });
}

namespace {
void on_list(const comm::am_message& m) {
  list_header h{};
  if (m.header.size() != sizeof h) throw error("global_array element list: malformed header");
  std::memcpy(&h, m.header.data(), sizeof h);
  array_core& a = find_array(h.array_id, m.source);
  const std::size_t n = h.count, es = a.elem_size();
  const std::size_t sub_bytes = n * h.ndim * sizeof(index_t);
  const auto k = static_cast<op>(h.kind);
  if (!is_list_op(k))
    throw error("global_array '" + a.name() + "': element list from rank " +
                std::to_string(m.source) + " names operation " + std::to_string(h.kind) +
                ", not gather, scatter, scatter_acc or read_inc");
  const bool carries_values = k != op::gather;
  if (h.ndim != a.dist().ndim() || m.data.size() != sub_bytes + (carries_values ? n * es : 0))
    throw error("global_array '" + a.name() + "': element list from rank " +
                std::to_string(m.source) + " carries " + std::to_string(m.data.size()) +
                " bytes for " + std::to_string(n) + " elements");
  // Subscripts may be unaligned in the message: copy them out.
  std::vector<index_t> subs(n * h.ndim);
  std::memcpy(subs.data(), m.data.data(), sub_bytes);
  std::vector<std::byte> out(k == op::gather || k == op::read_inc ? n * es : 0);
  a.serve_list(k, subs.data(), n, m.data.data() + sub_bytes, out.data(), h.alpha);
  if (!out.empty()) m.reply(out);
}
}  // namespace

void install_element_handlers(runtime& rt) {
  rt.comm().register_handler(elements_handler, on_list);
}

request array_core::element_list(op k, std::span<const index> subs, const std::byte* values,
                                 std::byte* out, const void* alpha) {
  if (!is_list_op(k))
    throw error("global_array '" + name_ + "': element_list called with operation " +
                std::string(to_string(k)) + ", not gather, scatter, scatter_acc or read_inc");
  const std::string_view what = to_string(k);  // a message only on failure: no allocation here
  std::unique_ptr<op_state> owned = start(k);
  op_state& st = *owned;
  request r_all(std::move(owned));  // waits for what was sent, also when a later step throws
  const int n = dist_.ndim();
  const std::size_t es = ops_.size;
  // Group by owner (validating every subscript first: nothing is sent for a bad list).
  std::vector<std::vector<std::size_t>> by_owner(static_cast<std::size_t>(rt_.size()));
  for (std::size_t i = 0; i < subs.size(); ++i) {
    const index& e = subs[i];
    if (e.size() != static_cast<std::size_t>(n))
      throw error("global_array '" + name_ + "': " + std::string(what) + ": subscript " +
                  std::to_string(i) + " has " + std::to_string(e.size()) + " indices for a " +
                  std::to_string(n) + "-D array");
    dist_.validate(patch{e, e}, what);
    by_owner[static_cast<std::size_t>(dist_.tile_of(e).rank)].push_back(i);
  }
  st.bytes += subs.size() * es;
  tracker& tr = my_tracker();
  const bool replies = k == op::gather || k == op::read_inc;
  const bool carries_values = k != op::gather;
  for (int r = 0; r < rt_.size(); ++r) {
    const auto& idx = by_owner[static_cast<std::size_t>(r)];
    if (idx.empty()) continue;
    const std::size_t cnt = idx.size();
    const std::size_t sub_bytes = cnt * static_cast<std::size_t>(n) * sizeof(index_t);
    std::byte* msg = st.buffer(sub_bytes + (carries_values ? cnt * es : 0));
    for (std::size_t j = 0; j < cnt; ++j) {
      std::memcpy(msg + j * n * sizeof(index_t), subs[idx[j]].data(), n * sizeof(index_t));
      if (carries_values) std::memcpy(msg + sub_bytes + j * es, values + idx[j] * es, es);
    }
    std::byte* reply = replies ? st.buffer(cnt * es) : nullptr;
    // Results go back to the caller's positions after completion.
    if (replies)
      st.finishers.push_back([out, reply, es, positions = idx] {
        for (std::size_t j = 0; j < positions.size(); ++j)
          std::memcpy(out + positions[j] * es, reply + j * es, es);
      });
    if (r == rt_.rank()) {
      fence_for_get(st.w, tr, r);  // earlier writes of this thread to our own part
      serve_list(k, reinterpret_cast<const index_t*>(msg), cnt, msg + sub_bytes, reply, alpha);
      continue;
    }
    if (replies) fence_for_get(st.w, tr, r);
    list_header h{};
    h.array_id = id();
    h.count = cnt;
    h.kind = static_cast<std::uint8_t>(k);
    h.ndim = static_cast<std::uint8_t>(n);
    if (alpha) std::memcpy(h.alpha, alpha, es);
    const auto hb = std::as_bytes(std::span(&h, 1));
    if (replies) {  // read_inc carries increments: sub_bytes + cnt * es; gather: only subs
      if (!carries_values) {
        st.w.am_send(r, elements_handler, hb, {msg, sub_bytes}, st.done, &st.done,
                     {reply, cnt * es});
        continue;
      }
      st.w.am_send(r, elements_handler, hb, {msg, sub_bytes + cnt * es}, st.done, &st.done,
                   {reply, cnt * es});
    } else {
      target_status& ts = tr.status(id(), r);
      st.w.am_send(r, elements_handler, hb, {msg, sub_bytes + (carries_values ? cnt * es : 0)},
                   st.done, &ts.accs);
      tr.mark(id(), r, false);
    }
  }
  return r_all;
}

}  // namespace gaea::ga::detail
