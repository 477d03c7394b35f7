// The message layer of gaea::coll: tagged messages over one active-message handler, matched in
// a mailbox by (group, call, tag, source), with signature checks and failure reports.

#include "detail/service.hpp"

#include <algorithm>
#include <cstring>
#include <span>

#include "detail/group_state.hpp"
#include "gaea/base/error.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::coll::detail {

namespace {

enum class kind : std::uint8_t { data = 0, failure = 1 };

// On the wire before the payload.
struct wire_header {
  std::uint64_t group;
  std::uint64_t call;
  std::uint64_t total;   // bytes of the whole message
  std::uint64_t offset;  // of this chunk
  std::uint32_t tag;
  std::int32_t source;  // member index of the sender
  call_signature sig;
  kind k;
  std::uint8_t reserved[7];
};

}  // namespace

std::size_t message_key_hash::operator()(const message_key& k) const noexcept {
  std::uint64_t h = k.group * 0x9E3779B97F4A7C15ull;
  h ^= k.call + 0x7F4A7C159E3779B9ull + (h << 6) + (h >> 2);
  h ^= (static_cast<std::uint64_t>(k.tag) << 32 | static_cast<std::uint32_t>(k.source)) +
       0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return static_cast<std::size_t>(h);
}

std::string describe(const call_signature& s) {
  std::string out(to_string(static_cast<operation>(s.op)));
  out += " (" + std::string(to_string(static_cast<algorithm>(s.algo)));
  if (s.root >= 0) out += ", root " + std::to_string(s.root);  // -1: an operation without one
  if (s.digest)
    out += ", counts digest " + std::to_string(s.count);
  else if (s.count)
    out += ", count " + std::to_string(s.count);
  if (s.op == static_cast<std::uint8_t>(operation::reduce) ||
      s.op == static_cast<std::uint8_t>(operation::allreduce))
    out += ", " + std::string(to_string(static_cast<reduce_op>(s.rop))) + " on element type " +
           std::to_string(s.elem);
  return out + ")";
}

std::uint64_t counts_digest(std::span<const std::int64_t> counts) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::int64_t c : counts)
    for (int b = 0; b < 64; b += 8) {
      h ^= static_cast<std::uint64_t>(c) >> b & 0xFF;
      h *= 0x100000001b3ull;
    }
  return h;
}

service::service(runtime& rt)
    : rt_(rt), instance_(rt.instance()), max_chunk_(rt.comm().cfg().max_transfer) {
  // Errors are kept, not thrown: the handler must be installed on every rank, and world()
  // then fails on every rank with this one's message.
  try {
    settings_ = settings::from_env();
    if (!settings_.calibration.empty())
      model_ = std::make_unique<estimator>(estimator::load(settings_.calibration));
  } catch (const std::exception& e) {
    setup_problem_ = "rank " + std::to_string(rt.rank()) + ": " + e.what();
  }
  rt.comm().register_handler(message_handler, [this](const comm::am_message& m) {
    on_message(m.source, m.header, m.data);
  });
}

service::~service() = default;

void service::send(const group_state& g, std::uint64_t call, std::uint32_t tag, int peer,
                   const call_signature& sig, const std::byte* data, std::size_t bytes,
                   comm::completion& local) {
  if (peer == g.me) {
    deliver(message_key{g.id, call, tag, g.me}, sig, bytes, 0, {data, bytes});
    return;
  }
  comm::worker& w = rt_.worker();
  const int target = g.ranks[static_cast<std::size_t>(peer)];
  std::size_t offset = 0;
  do {
    const std::size_t n = std::min(bytes - offset, max_chunk_);
    wire_header h{};
    h.group = g.id;
    h.call = call;
    h.total = bytes;
    h.offset = offset;
    h.tag = tag;
    h.source = g.me;
    h.sig = sig;
    h.k = kind::data;
    w.am_send(target, message_handler, std::as_bytes(std::span<const wire_header>(&h, 1)),
              {data + offset, n}, local, nullptr);
    offset += n;
  } while (offset < bytes);
}

void service::on_message(int source_rank, std::span<const std::byte> header,
                         std::span<const std::byte> data) {
  wire_header h;
  if (header.size() != sizeof h)
    throw error("gaea::coll: malformed message from rank " + std::to_string(source_rank));
  std::memcpy(&h, header.data(), sizeof h);
  if (h.k == kind::failure) {
    std::lock_guard lock(mutex_);
    record_failure_locked(h.group, h.call,
                          std::string(reinterpret_cast<const char*>(data.data()), data.size()));
    rt_.progress().notify_waiters();
    return;
  }
  deliver(message_key{h.group, h.call, h.tag, h.source}, h.sig, h.total, h.offset, data);
}

void service::deliver(const message_key& k, const call_signature& sig, std::size_t total,
                      std::size_t offset, std::span<const std::byte> data) {
  std::lock_guard lock(mutex_);
  auto& sp = slots_[k];
  if (!sp) sp = std::make_shared<slot>();
  slot& s = *sp;
  if (!s.announced) {
    s.announced = true;
    s.total = total;
    if (s.posted) {
      std::string problem = mismatch_locked(k, s.sig, s.expected, sig, total);
      if (!problem.empty()) {
        record_failure_locked(k.group, k.call, std::move(problem));
        s.failed = true;
        s.done.store(true, std::memory_order_release);
      }
    } else {
      s.early = take_scratch(total);
    }
    s.sig = sig;
  }
  if (s.failed) {
    rt_.progress().notify_waiters();
    return;
  }
  if (offset + data.size() > s.total) {
    record_failure_locked(k.group, k.call,
                          "gaea::coll: message chunk beyond its announced size from member " +
                              std::to_string(k.source));
    s.done.store(true, std::memory_order_release);
  } else if (!data.empty()) {
    std::byte* to = s.posted ? s.dst : s.early.get();
    std::memcpy(to + offset, data.data(), data.size());
  }
  s.received += data.size();
  if (s.received >= s.total && s.posted) s.done.store(true, std::memory_order_release);
  rt_.progress().notify_waiters();
}

std::string service::mismatch_locked(const message_key& k, const call_signature& mine,
                                     std::size_t expected, const call_signature& theirs,
                                     std::size_t total) const {
  std::string name = "?";
  int me_rank = -1, src_rank = -1;
  if (auto it = groups_.find(k.group); it != groups_.end())
    if (auto g = it->second.lock()) {
      name = g->name;
      me_rank = g->ranks[static_cast<std::size_t>(g->me)];
      src_rank = g->ranks[static_cast<std::size_t>(k.source)];
    }
  if (!(mine == theirs))
    return "gaea::coll: mismatched collective #" + std::to_string(k.call) + " on group '" + name +
           "': rank " + std::to_string(me_rank) + " called " + describe(mine) + ", rank " +
           std::to_string(src_rank) + " called " + describe(theirs);
  if (expected != total)
    return "gaea::coll: mismatched sizes in " + describe(mine) + " #" + std::to_string(k.call) +
           " on group '" + name + "': rank " + std::to_string(me_rank) + " expects " +
           std::to_string(expected) + " bytes from rank " + std::to_string(src_rank) +
           ", which sends " + std::to_string(total);
  return {};
}

void service::add_group(const std::shared_ptr<const group_state>& g) {
  std::lock_guard lock(mutex_);
  groups_[g->id] = g;
}

std::shared_ptr<slot> service::post(const group_state& g, std::uint64_t call, std::uint32_t tag,
                                    int source, const call_signature& sig, std::byte* dst,
                                    std::size_t bytes) {
  const message_key k{g.id, call, tag, source};
  std::lock_guard lock(mutex_);
  auto& sp = slots_[k];
  if (!sp) sp = std::make_shared<slot>();
  slot& s = *sp;
  s.dst = dst;
  s.expected = bytes;
  s.posted = true;
  if (s.announced) {
    std::string problem = mismatch_locked(k, sig, bytes, s.sig, s.total);
    if (!problem.empty()) {
      record_failure_locked(g.id, call, std::move(problem));
      s.failed = true;
      s.done.store(true, std::memory_order_release);
      return sp;
    }
    if (s.received > 0 && bytes > 0) std::memcpy(dst, s.early.get(), std::min(s.received, bytes));
    s.early.reset();
    if (s.received >= s.total) s.done.store(true, std::memory_order_release);
  } else {
    s.sig = sig;  // compared when the message announces itself
  }
  return sp;
}

void service::release(const message_key& k) {
  std::lock_guard lock(mutex_);
  slots_.erase(k);
}

std::optional<std::string> service::failure(std::uint64_t group, std::uint64_t call) const {
  if (!any_failure_.load(std::memory_order_acquire)) return std::nullopt;
  std::lock_guard lock(mutex_);
  auto it = failures_.find(call_key{group, call});
  if (it == failures_.end()) return std::nullopt;
  return it->second;
}

void service::record_failure_locked(std::uint64_t group, std::uint64_t call, std::string what) {
  failures_.try_emplace(call_key{group, call}, std::move(what));
  any_failure_.store(true, std::memory_order_release);
}

std::string service::fail(const group_state& g, std::uint64_t call, const std::string& what) {
  std::string first;
  {
    std::lock_guard lock(mutex_);
    record_failure_locked(g.id, call, what);
    first = failures_.at(call_key{g.id, call});
  }
  // Tell every other member, so that none waits for this rank's part.
  comm::worker& w = rt_.worker();
  comm::completion sent;
  wire_header h{};
  h.group = g.id;
  h.call = call;
  h.source = g.me;
  h.k = kind::failure;
  h.total = first.size();
  for (int m = 0; m < g.size(); ++m) {
    if (m == g.me) continue;
    try {
      w.am_send(g.ranks[static_cast<std::size_t>(m)], message_handler,
                std::as_bytes(std::span<const wire_header>(&h, 1)),
                std::as_bytes(std::span<const char>(first.data(), first.size())), sent, nullptr);
    } catch (const std::exception&) {
      // The error is thrown here anyway; a peer that cannot be told ends by its own checks.
    }
  }
  rt_.progress().wait(w, sent);
  return first;
}

}  // namespace gaea::coll::detail
