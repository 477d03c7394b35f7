#include "gaea/ga/array_core.hpp"

#include <cstring>
#include <iostream>
#include <vector>

#include "detail/registry.hpp"
#include "detail/wire.hpp"
#include "gaea/comm/segment.hpp"
#include "gaea/runtime/runtime.hpp"
#include "stats_counters.hpp"
#include "tracker.hpp"

namespace gaea::ga::detail {

namespace {

// Row-major strides (in elements) of a block with the extents of `b`.
index block_strides(const patch& b) {
  const int n = b.ndim();
  index s(static_cast<std::size_t>(n), 1);
  for (int d = n - 2; d >= 0; --d)
    s[static_cast<std::size_t>(d)] = s[static_cast<std::size_t>(d) + 1] * b.extent(d + 1);
  return s;
}

// Calls fn(offset_in_a, offset_in_b) for the first element of every row (last dimension) of
// `piece`, where a and b are two row-major layouts with strides sa, sb, and origins oa, ob.
template <class Fn>
void for_each_row(const patch& piece, const index& oa, const index& sa, const index& ob,
                  const index& sb, Fn&& fn) {
  const int n = piece.ndim();
  index c = piece.lo;
  while (true) {
    index_t a = 0, b = 0;
    for (int d = 0; d < n; ++d) {
      const auto i = static_cast<std::size_t>(d);
      a += (c[i] - oa[i]) * sa[i];
      b += (c[i] - ob[i]) * sb[i];
    }
    fn(a, b);
    int d = n - 2;
    for (; d >= 0; --d) {
      const auto i = static_cast<std::size_t>(d);
      if (++c[i] <= piece.hi[i]) break;
      c[i] = piece.lo[i];
    }
    if (d < 0) break;
  }
}

}  // namespace

array_core::array_core(std::string name, const index& dims, const index& chunk, elem_type type,
                       std::size_t elem_size, acc_kernel kernel)
    : name_(std::move(name)),
      dist_(name_, dims, runtime::current().size(), chunk),
      type_(type),
      elem_size_(elem_size),
      kernel_(kernel),
      rt_(runtime::current()),
      local_block_(dist_.block(rt_.rank())) {
  install_handlers(rt_);
  const std::size_t bytes = static_cast<std::size_t>(local_block_.elements()) * elem_size_;
  seg_ = std::make_unique<comm::segment>(rt_.comm(), bytes, "global_array '" + name_ + "'");
  register_array(seg_->id(), this);
  rt_.barrier();  // every rank can now serve accumulates to this array
}

array_core::~array_core() {
  try {
    sync();
  } catch (const std::exception& e) {
    std::cerr << "gaea: destroying global_array '" << name_ << "': " << e.what() << std::endl;
  }
  unregister_array(seg_->id());
  tracker::mine(rt_.instance(), rt_.size()).forget(seg_->id());
}

std::uint64_t array_core::id() const noexcept {
  return seg_->id();
}
void* array_core::local_data() const noexcept {
  return seg_->local_base();
}

index array_core::buffer_strides(const patch& p, std::size_t buf_elems, std::span<const index_t> ld,
                                 const char* op) const {
  const int n = p.ndim();
  auto who = [&] { return "global_array '" + name_ + "': " + op + " " + p.str() + ": "; };
  if (!ld.empty() && ld.size() != static_cast<std::size_t>(n - 1))
    throw Error(who() + "ld has " + std::to_string(ld.size()) + " entries; a " + std::to_string(n) +
                "-D patch needs " + std::to_string(n - 1));
  index s(static_cast<std::size_t>(n), 1);
  for (int d = n - 2; d >= 0; --d) {
    const index_t ext = p.extent(d + 1);
    const index_t l = ld.empty() ? ext : ld[static_cast<std::size_t>(d)];
    if (l < ext)
      throw Error(who() + "ld[" + std::to_string(d) + "]=" + std::to_string(l) +
                  " is smaller than the patch extent " + std::to_string(ext) + " of dimension " +
                  std::to_string(d + 1));
    s[static_cast<std::size_t>(d)] = s[static_cast<std::size_t>(d) + 1] * l;
  }
  index_t need = 1;
  for (int d = 0; d < n; ++d)
    need += (p.extent(d) - 1) * s[static_cast<std::size_t>(d)];
  if (buf_elems < static_cast<std::size_t>(need))
    throw Error(who() + "buffer has " + std::to_string(buf_elems) + " elements; the patch needs " +
                std::to_string(need));
  return s;
}

array_core::op_state array_core::begin_op(const patch& p, std::size_t buf_elems,
                                          std::span<const index_t> ld, const char* op) const {
  dist_.validate(p, op);
  return {buffer_strides(p, buf_elems, ld, op), rt_.worker(),
          tracker::mine(rt_.instance(), rt_.size())};
}

template <class Fn>
void array_core::for_each_transfer(const patch& p, const index& bs, Fn&& fn) const {
  const int n = p.ndim();
  const auto d2 = static_cast<std::size_t>(n >= 2 ? n - 2 : 0);
  dist_.for_each_owner(p, [&](int rank, const patch& piece, const patch& b) {
    const index os = block_strides(b);
    const std::size_t row = static_cast<std::size_t>(piece.extent(n - 1)) * elem_size_;
    // One 2-D strided transfer per position of dimensions 0..n-3; its rows run along n-2.
    patch outer = piece;
    std::size_t rows = 1, rstride = row, lstride = row;
    if (n >= 2) {
      rows = static_cast<std::size_t>(piece.extent(n - 2));
      outer.hi[d2] = outer.lo[d2];
      rstride = static_cast<std::size_t>(os[d2]) * elem_size_;
      lstride = static_cast<std::size_t>(bs[d2]) * elem_size_;
    }
    for_each_row(outer, b.lo, os, p.lo, bs, [&](index_t ro, index_t lo) {
      fn(rank, transfer{static_cast<std::uint64_t>(ro) * elem_size_, rstride,
                        static_cast<std::size_t>(lo) * elem_size_, lstride, row, rows});
    });
  });
}

void array_core::get(const patch& p, void* buf, std::size_t buf_elems,
                     std::span<const index_t> ld) {
  const auto [bs, w, tr] = begin_op(p, buf_elems, ld, "get");
  comm::completion done;
  auto* out = static_cast<std::byte*>(buf);
  int last = -1;
  for_each_transfer(p, bs, [&](int r, const transfer& t) {
    if (r != last) fence_for_get(w, tr, r);
    last = r;
    w.get_strided(r, *seg_, t.remote_offset, t.remote_stride, out + t.local_offset, t.local_stride,
                  t.row_bytes, t.rows, done);
  });
  rt_.wait(done);
  bump(counters().gets);
  bump(counters().bytes_get, static_cast<std::uint64_t>(p.elements()) * elem_size_);
}

void array_core::fence_for_get(comm::worker& w, tracker& tr, int r) {
  target_status& st = tr.status(id(), r);
  if (st.dirty) {  // earlier writes to this array on r: complete them first
    comm::completion fenced;
    if (st.puts) w.flush(r, fenced);
    rt_.wait(fenced);
    rt_.wait(*st.accs);
    tr.clean(id(), r);
    bump(counters().flushes_issued);
  } else if (tr.dirty_arrays(r) > 0) {
    bump(counters().flushes_avoided);  // a per-target tracker would have fenced here
  }
}

void array_core::put(const patch& p, const void* buf, std::size_t buf_elems,
                     std::span<const index_t> ld) {
  const auto [bs, w, tr] = begin_op(p, buf_elems, ld, "put");
  comm::completion local;
  const auto* in = static_cast<const std::byte*>(buf);
  for_each_transfer(p, bs, [&](int r, const transfer& t) {
    w.put_strided(r, *seg_, t.remote_offset, t.remote_stride, in + t.local_offset, t.local_stride,
                  t.row_bytes, t.rows, local);
    // Direct stores (same node, rkey_ptr) are complete already; others need a flush later.
    tr.mark(id(), r, !w.is_direct(r, *seg_));
  });
  rt_.wait(local);
  bump(counters().puts);
  bump(counters().bytes_put, static_cast<std::uint64_t>(p.elements()) * elem_size_);
}

void array_core::acc(const patch& p, const void* buf, std::size_t buf_elems,
                     std::span<const index_t> ld, const void* alpha) {
  const auto [bs, w, tr] = begin_op(p, buf_elems, ld, "acc");
  comm::completion local;
  const auto* in = static_cast<const std::byte*>(buf);
  const int n = p.ndim();
  const std::size_t limit = rt_.comm().cfg().max_transfer;
  std::vector<std::vector<std::byte>> packed_bufs;  // alive until the sends complete
  dist_.for_each_owner(p, [&](int owner, const patch& piece, const patch&) {
    // Split the piece along its leading dimensions until each message fits the transfer limit.
    std::vector<patch> parts{piece};
    for (std::size_t i = 0; i < parts.size();) {
      patch& q = parts[i];
      if (static_cast<std::size_t>(q.elements()) * elem_size_ <= limit || q.elements() == 1) {
        ++i;
        continue;
      }
      int d = 0;
      while (d < n - 1 && q.extent(d) == 1)
        ++d;
      patch second = q;
      const index_t mid = q.lo[static_cast<std::size_t>(d)] + q.extent(d) / 2;
      q.hi[static_cast<std::size_t>(d)] = mid - 1;
      second.lo[static_cast<std::size_t>(d)] = mid;
      parts.push_back(second);
    }
    for (const patch& q : parts) {
      std::vector<std::byte> packed(static_cast<std::size_t>(q.elements()) * elem_size_);
      const std::size_t row = static_cast<std::size_t>(q.extent(n - 1)) * elem_size_;
      std::size_t at = 0;
      const index zeros(static_cast<std::size_t>(n), 0);
      for_each_row(q, p.lo, bs, zeros, zeros, [&](index_t lo, index_t) {
        std::memcpy(packed.data() + at, in + static_cast<std::size_t>(lo) * elem_size_, row);
        at += row;
      });
      if (owner == rt_.rank()) {
        apply_acc(q, packed.data(), alpha);
        continue;
      }
      std::vector<std::byte> header(acc_header_size(n));
      acc_header_fixed h{};
      h.array_id = id();
      h.ndim = static_cast<std::uint8_t>(n);
      std::memcpy(h.alpha, alpha, elem_size_);
      std::memcpy(header.data(), &h, sizeof h);
      std::memcpy(header.data() + sizeof h, q.lo.data(),
                  static_cast<std::size_t>(n) * sizeof(index_t));
      std::memcpy(header.data() + sizeof h + static_cast<std::size_t>(n) * sizeof(index_t),
                  q.hi.data(), static_cast<std::size_t>(n) * sizeof(index_t));
      target_status& st = tr.status(id(), owner);
      w.am_send(owner, acc_handler, header, packed, local, st.accs.get());
      tr.mark(id(), owner, false);
      packed_bufs.push_back(std::move(packed));
    }
  });
  rt_.wait(local);
  bump(counters().accs);
  bump(counters().bytes_acc, static_cast<std::uint64_t>(p.elements()) * elem_size_);
}

void array_core::apply_acc(const patch& piece, const std::byte* packed, const void* alpha) {
  const int n = piece.ndim();
  const std::size_t row_elems = static_cast<std::size_t>(piece.extent(n - 1));
  const index os = block_strides(local_block_);
  const index zeros(static_cast<std::size_t>(n), 0);
  auto* base = static_cast<std::byte*>(seg_->local_base());
  std::lock_guard lock(acc_mutex_);
  std::size_t at = 0;
  for_each_row(piece, local_block_.lo, os, zeros, zeros, [&](index_t off, index_t) {
    kernel_(base + static_cast<std::size_t>(off) * elem_size_, packed + at, row_elems, alpha);
    at += row_elems * elem_size_;
  });
}

void array_core::fence() {
  comm::worker& w = rt_.worker();
  tracker& tr = tracker::mine(rt_.instance(), rt_.size());
  comm::completion flushed;
  bool any_puts = false;
  for (int r = 0; r < rt_.size(); ++r) {
    target_status& st = tr.status(id(), r);
    if (!st.dirty) continue;
    if (st.puts) any_puts = true;
  }
  if (any_puts) w.flush_all(flushed);
  rt_.wait(flushed);
  for (int r = 0; r < rt_.size(); ++r) {
    target_status& st = tr.status(id(), r);
    if (!st.dirty) continue;
    rt_.wait(*st.accs);
    tr.clean(id(), r);
  }
}

void array_core::sync() {
  fence();
  rt_.barrier();
}

}  // namespace gaea::ga::detail
