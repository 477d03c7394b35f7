#pragma once
/// \file
/// gaea::comm::completion — a counter of outstanding operations, passed as a parameter to every
/// communication call ("completion as parameter"). An operation that finishes inside the call
/// never touches it; one that is still in flight increments it and decrements it from the
/// progress callback of the worker that issued it.

#include <atomic>
#include <cstdint>
#include <string>

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
  /// Throws gaea::Error if any attached operation failed (after done()).
  void check() const;

  // --- used by the transport ---
  void add(std::int64_t n = 1) noexcept { pending_.fetch_add(n, std::memory_order_relaxed); }
  void finish(int status = 0) noexcept {
    if (status != 0) status_.store(status, std::memory_order_relaxed);
    pending_.fetch_sub(1, std::memory_order_acq_rel);
  }
  void set_what(const char* what) noexcept { what_ = what; }

 private:
  std::atomic<std::int64_t> pending_{0};
  std::atomic<int> status_{0};
  const char* what_ = "operation";
};

}  // namespace gaea::comm
