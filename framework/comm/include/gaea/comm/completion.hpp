#pragma once
/// \file
/// gaea::comm::completion — a counter of outstanding operations, passed as a parameter to every
/// communication call ("completion as parameter"). An operation that finishes inside the call
/// never touches it; one that is still in flight increments it and decrements it from the
/// progress callback of the worker that issued it.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "gaea/comm/op_stats.hpp"

namespace gaea::comm {

/// Tracks a group of in-flight operations. Neither copyable nor movable: in-flight operations
/// hold its address. Reuse after done() is allowed.
/// Thread safety: the callbacks run on the thread that progresses the issuing worker; done() may be
/// read from any thread.
class completion {
 public:
  completion() = default;
  completion(const completion&) = delete;
  completion& operator=(const completion&) = delete;

  /// True when every operation attached so far has finished (successfully or not).
  bool done() const noexcept { return pending_.load(std::memory_order_acquire) == 0; }
  /// Number of operations still in flight.
  std::int64_t pending() const noexcept { return pending_.load(std::memory_order_acquire); }
  /// Throws gaea::error if an attached operation failed (call after done()); the failure is
  /// cleared by the throw, so the completion can be reused.
  void check();

  // --- used by the transport ---
  /// Status codes besides UCX's (negative) ones.
  static constexpr int handler_failed = 1, receive_failed = 2, send_failed = 3;
  /// Bytes of the operations attached since the last check() (a hint for how long a wait may
  /// take; operations that completed inside the call are not counted).
  std::size_t bytes() const noexcept { return bytes_.load(std::memory_order_relaxed); }
  /// True when every operation that carried bytes since the last check() was of kind `k` (and
  /// there was at least one): waits size their patience per kind ([PASCoL Table 1]: a get's
  /// threshold differs from the others').
  bool only(op_kind k) const noexcept {
    return kinds_.load(std::memory_order_relaxed) == (1u << static_cast<unsigned>(k));
  }

  /// An operation of `kind` and `bytes` bytes is attached and in flight.
  void add(const char* what, int target, std::size_t bytes, op_kind kind) noexcept {
    what_ = what;
    target_ = target;
    if (bytes) {
      bytes_.fetch_add(bytes, std::memory_order_relaxed);
      kinds_.fetch_or(static_cast<std::uint8_t>(1u << static_cast<unsigned>(kind)),
                      std::memory_order_relaxed);
    }
    pending_.fetch_add(1, std::memory_order_relaxed);
  }
  /// An operation without a payload worth counting is attached and in flight.
  void add() noexcept { pending_.fetch_add(1, std::memory_order_relaxed); }
  /// An in-flight operation ended (status 0 = success).
  void finish(int status = 0) noexcept {
    if (status != 0) status_.store(status, std::memory_order_relaxed);
    pending_.fetch_sub(1, std::memory_order_acq_rel);
  }
  /// An operation failed before it was in flight; nothing more is posted to this completion.
  void fail(int status, const char* what, int target) noexcept {
    what_ = what;
    target_ = target;
    status_.store(status, std::memory_order_relaxed);
  }
  /// True when an attached operation failed and check() has not yet reported it.
  bool failed() const noexcept { return status_.load(std::memory_order_relaxed) != 0; }

 private:
  std::atomic<std::int64_t> pending_{0};
  std::atomic<int> status_{0};
  std::atomic<std::size_t> bytes_{0};
  std::atomic<std::uint8_t> kinds_{0};  // bit per op_kind of the operations counted in bytes_
  const char* what_ = "operation";
  int target_ = -1;
  /// \var receive_failed
  /// Status: the target could not receive the data.
  //
  /// \var send_failed
  /// Status: the message could not be sent.
};

}  // namespace gaea::comm
