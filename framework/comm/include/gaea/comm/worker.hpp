#pragma once
/// \file
/// gaea::comm::worker — the origin side: one UCX worker per application thread, with an endpoint
/// to a rank's service worker made the first time this worker addresses that rank. All
/// operations are non-blocking: they attach to a gaea::comm::completion and return; wait on it
/// through the progress engine.

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "gaea/comm/completion.hpp"
#include "gaea/comm/op_stats.hpp"
#include "gaea/comm/service.hpp"
#include "gaea/comm/types.hpp"

namespace gaea::comm {

namespace detail {
struct access;  // internal members, for comm itself (src/detail/access.hpp)
}

class context;
class segment;

/// Owned by the context; obtained with context::this_thread_worker().
/// Thread safety: only the thread that created it may use it.
/// Offsets are in bytes from the start of the target's part of the segment; every operation
/// checks `offset + bytes <= segment.size(target)` and throws gaea::error naming the segment.
class worker final : public waitable {
 public:
  /// Creates the UCX worker numbered `index` of `ctx` (the context does this in
  /// this_thread_worker(); applications do not). Throws gaea::error when UCX fails.
  worker(context& ctx, int index);
  ~worker() override;
  worker(const worker&) = delete;
  worker& operator=(const worker&) = delete;

  /// Progresses this worker (callbacks of its operations, replies). Returns events handled.
  unsigned progress() override;
  /// Arms the worker's event fd (false: events pending, progress again). Owner thread only.
  bool arm() override;
  /// Readable when an armed worker has events (replies, completions); -1 if the transports
  /// cannot signal.
  int event_fd() override;
  /// Wakes the owner blocked on event_fd(). Thread-safe.
  void signal() override;
  /// Operations issued by this worker, by kind and size.
  const op_stats& stats() const noexcept { return stats_; }

  /// Contiguous put. `local` completes when `src` may be reused; remote completion needs flush().
  void put(int target, const segment& seg, std::uint64_t offset, const void* src, std::size_t bytes,
           completion& local);
  /// Contiguous get. `done` completes when the data is in `dst`.
  void get(int target, const segment& seg, std::uint64_t offset, void* dst, std::size_t bytes,
           completion& done);
  /// 2-D strided put: `rows` rows of `row_bytes`, remote rows `remote_stride` bytes apart,
  /// local rows `local_stride` bytes apart. One RMA per row (zero copy).
  void put_strided(int target, const segment& seg, std::uint64_t offset, std::size_t remote_stride,
                   const void* src, std::size_t local_stride, std::size_t row_bytes,
                   std::size_t rows, completion& local);
  /// 2-D strided get, the mirror of put_strided.
  void get_strided(int target, const segment& seg, std::uint64_t offset, std::size_t remote_stride,
                   void* dst, std::size_t local_stride, std::size_t row_bytes, std::size_t rows,
                   completion& done);
  /// 64-bit atomic fetch-and-add; `*result` receives the previous value. 8-byte aligned offset.
  void fetch_add(int target, const segment& seg, std::uint64_t offset, std::int64_t value,
                 std::int64_t* result, completion& done);
  /// 64-bit compare-and-swap: if remote == expected, store desired. `*result` = previous value.
  void compare_swap(int target, const segment& seg, std::uint64_t offset, std::int64_t expected,
                    std::int64_t desired, std::int64_t* result, completion& done);
  /// Active message to `target`'s handler `id`. `local` completes when header and data may be
  /// reused; `remote` (optional) completes after the handler has run on the target (or, if it
  /// deferred, after context::send_deferred_reply). `reply` (optional, needs `remote`): buffer
  /// that receives the handler's am_message::reply() bytes before `remote` completes; it must
  /// stay alive until then. Throws gaea::error for a bad target or an oversized message.
  void am_send(int target, handler_id id, std::span<const std::byte> header,
               std::span<const std::byte> data, completion& local, completion* remote,
               std::span<std::byte> reply = {});
  /// Remote completion of every put/atomic issued so far to `target` by this worker. Throws
  /// gaea::error for a bad target. A target never addressed has nothing to complete: `done` is
  /// left untouched and no endpoint is made. `done` carries the bytes of the puts issued to
  /// `target` since its last flush (completion::bytes, kind put): a fence after a large put waits
  /// as long as the put's data takes to arrive, and its wait is sized by them.
  void flush(int target, completion& done);
  /// Remote completion of every put/atomic issued so far by this worker; `done` carries the bytes
  /// of every put since the last flush, as flush() does.
  void flush_all(completion& done);

  /// True when put/get to `target` in `seg` are direct loads/stores (ucp_rkey_ptr).
  bool is_direct(int target, const segment& seg);
  /// The address at which this process sees `target`'s part of `seg` when is_direct() (its own
  /// part, or a part mapped with ucp_rkey_ptr: same node, GAEA_RKEY_PTR=1), else null. Valid
  /// while `seg` lives. Loads and stores through it bypass UCX: the caller orders them (CPU
  /// atomics, locks in the segment) against the owner's and other ranks' accesses.
  std::byte* direct_base(int target, const segment& seg);
  /// Human-readable transports used by the endpoint to `target` (e.g. "posix/memory cma/memory").
  /// Makes the endpoint if this worker has none to `target` yet. Throws gaea::error for a bad
  /// target.
  std::string transports(int target);
  /// Diagnostics: how many endpoints this worker has made so far (self included). Endpoints are
  /// made on first use, by the first put, get, atomic, active message or transports() call to a
  /// rank (is_direct() too, as it unpacks the rank's key), and kept until the worker is
  /// destroyed; flush() and flush_all() make none. So this is the number of distinct ranks this
  /// worker has addressed. Owner thread only, like every member.
  std::int64_t endpoint_count() const noexcept { return endpoints_; }

  /// The worker's number within its context, in order of creation.
  int index() const noexcept { return index_; }

  /// Bytes put to `target` (not direct) since its last flush: what the next flush() to it, or
  /// flush_all(), carries. Owner thread only.
  std::size_t unflushed_bytes(int target) const {
    return unflushed_.at(static_cast<std::size_t>(target));
  }

  /// Active messages sent with a remote completion whose acknowledgement has not arrived.
  std::int64_t pending_acks() const noexcept { return pending_acks_; }

 private:
  friend struct detail::access;
  /// Reports that the peer behind `ep` is lost (process gone or unreachable) on stderr and ends
  /// this process with EXIT_FAILURE: Gaea has no recovery from a lost rank.
  [[noreturn]] void peer_lost(const ucp_ep* ep, const char* why) const;
  struct remote_key {
    ucp_rkey* rkey = nullptr;
    std::uint64_t base = 0;
    std::byte* direct = nullptr;  // ucp_rkey_ptr result, or null
    std::uint64_t segment = 0;    // the segment's id
    std::uint64_t uses = 0;       // LFU count (starts at key_age_ + 1: dynamic aging)
    /// Outside the cache's bound: a direct pointer handed out, or no key (the fall-back).
    bool pinned() const noexcept { return direct != nullptr || rkey == nullptr; }
  };
  /// The endpoint to `target`'s service worker, made on the first call (`target` in range).
  ucp_ep* endpoint(int target);
  /// The unpacked key of `target`'s part of `seg`, from the LFU cache or unpacked now (which
  /// may evict another key: see worker_keys.cpp). The reference is valid until the next key().
  const remote_key& key(int target, const segment& seg);
  const remote_key& unpack_key(int target, const segment& seg, std::uint64_t slot);
  void evict_one();
  /// Destroys the evicted keys once every operation this worker issued has completed.
  void destroy_retired_keys();
  /// key() after the checks every 64-bit atomic needs (range, 8-byte alignment).
  const remote_key& atomic_key(int target, const segment& seg, std::uint64_t offset,
                               const char* op);
  enum class direction { put, get };
  /// The local buffer is read by a put and written by a get.
  template <direction Dir>
  using local_ptr = std::conditional_t<Dir == direction::put, const std::byte*, std::byte*>;
  template <direction Dir>
  void strided(int target, const segment& seg, std::uint64_t offset, std::size_t remote_stride,
               local_ptr<Dir> local, std::size_t local_stride, std::size_t row_bytes,
               std::size_t rows, completion& c);
  /// The active-message fall-back for a target without a key: one request per row and chunk,
  /// answered by the target's service worker; `c` completes when it has run.
  template <direction Dir>
  void strided_fallback(int target, const segment& seg, std::uint64_t offset,
                        std::size_t remote_stride, local_ptr<Dir> local, std::size_t local_stride,
                        std::size_t row_bytes, std::size_t rows, completion& c);
  void atomic_fallback(int target, const segment& seg, std::uint64_t offset, bool swap,
                       std::int64_t operand, std::int64_t desired, std::int64_t* result,
                       completion& c);
  void check_range(int target, const segment& seg, std::uint64_t offset, std::size_t bytes,
                   const char* op) const;
  std::size_t strided_extent(const segment& seg, std::size_t rows, std::size_t stride,
                             std::size_t row_bytes, const char* op) const;
  void forget_segment(std::uint64_t id);

  context& ctx_;
  int index_;
  ucp_worker* worker_ = nullptr;
  std::vector<ucp_ep*> eps_;            // by rank; null until endpoint() makes it
  std::vector<std::size_t> unflushed_;  // by rank: bytes put (not direct) since its last flush
  std::int64_t endpoints_ = 0;
  // Unpacked keys by slot (segment id x ranks + rank): at most cfg().rkey_cache of them without
  // a direct pointer (evictable), plus the direct ones (pinned: their pointers are handed out).
  std::unordered_map<std::uint64_t, remote_key> keys_;
  std::size_t evictable_ = 0;
  std::uint64_t key_age_ = 0;            // the LFU count of the last key evicted
  std::vector<ucp_rkey*> retired_keys_;  // evicted, destroyed after a flush of this worker
  std::uint64_t seen_epoch_ = 0;
  std::int64_t pending_acks_ = 0;
  op_stats stats_;
};

}  // namespace gaea::comm
