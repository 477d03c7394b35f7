#pragma once
/// \file
/// gaea::counters::shared_counter — a 64-bit load-balance counter that lives on one rank and is
/// incremented by any rank, served in one of three modes (gaea::counters::counter_mode): UCX
/// atomics, an active message answered by the owner's progress thread, or an active message
/// answered only when the owner's main thread calls into Gaea.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "gaea/counters/counter_mode.hpp"

namespace gaea::counters {

/// Collective object (construct, reset and destroy on every rank, in the same order).
/// fetch_add/compare_swap/read are one-sided and may be called from any thread, concurrently.
/// Values wrap modulo 2^64 like the hardware atomics (no undefined behaviour near 2^63).
class shared_counter {
 public:
  /// Collective. The counter starts at `initial` and lives on `owner` (default rank 0); `mode`
  /// defaults to GAEA_COUNTER. Throws gaea::error if `owner` is not a rank, GAEA_COUNTER is
  /// unknown, or the runtime is not initialized.
  explicit shared_counter(std::string name = "counter", int owner = 0, std::int64_t initial = 0,
                          std::optional<counter_mode> mode = std::nullopt);
  /// Collective (synchronises, then frees the counter); nothing for a destroyed or moved-from
  /// counter.
  ~shared_counter();
  shared_counter(shared_counter&&) noexcept;
  /// Collective when `*this` holds a counter (it is destroyed first).
  shared_counter& operator=(shared_counter&&);

  /// Atomically adds `n` and returns the previous value. `n` must be >= 0 (gaea::error otherwise):
  /// load-balance counters only move forward. Blocks until the value has come back.
  std::int64_t fetch_add(std::int64_t n = 1);
  /// Atomically sets the counter to `desired` if it equals `expected`; returns the previous value.
  std::int64_t compare_swap(std::int64_t expected, std::int64_t desired);
  /// Current value (an atomic read, served like fetch_add(0)).
  std::int64_t read();
  /// Collective: every rank's operations issued before the call are complete, then the value is
  /// `value` on return on every rank. Owner thread of the runtime only.
  void reset(std::int64_t value = 0);
  /// Collective: frees the counter now; later calls throw gaea::error. Owner thread only.
  void destroy();

  /// False after destroy() or a move.
  bool valid() const noexcept { return impl_ != nullptr; }
  /// Owner rank, name, mode; throw gaea::error after destroy() or a move.
  int owner() const;
  const std::string& name() const;
  counter_mode mode() const;

 private:
  struct impl;
  impl& live(const char* op) const;
  std::unique_ptr<impl> impl_;
};

}  // namespace gaea::counters
