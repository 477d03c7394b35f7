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

#include "gaea/base/detail/request_handle.hpp"
#include "gaea/base/nonblocking.hpp"
#include "gaea/counters/counter_mode.hpp"

namespace gaea::counters {

/// The non-blocking tag (gaea/base/nonblocking.hpp): `counters::nonblocking` is
/// `gaea::nonblocking`.
using gaea::nonblocking;
using gaea::nonblocking_t;

namespace detail {
struct fetch_state;
}

/// Handle of a non-blocking counter operation (shared_counter::fetch_add(n, nonblocking)):
/// wait() returns the counter's previous value. Any number may be outstanding.
/// Move-only, as every Gaea request (gaea/base/detail/request_handle.hpp): a default or moved-from
/// handle is empty (wait() throws, test() is true); the constructor from an operation is
/// shared_counter's, not the users'; move assignment waits for the operation held so far (its
/// value is dropped), then takes over the source's; the destructor waits for an unfinished
/// operation (errors go to stderr: a destructor cannot throw).
/// Thread safety: wait() and test() from the thread that issued the operation (its transport
/// worker carries it); gaea::error otherwise.
class fetch_request : public gaea::detail::request_handle<fetch_request, detail::fetch_state> {
 public:
  using request_handle::request_handle;

  /// Blocks (by the progress mode) until the value is back and returns it; later calls return
  /// it again. Throws gaea::error if the operation failed, on an empty handle, or from another
  /// thread than the issuing one.
  std::int64_t wait();
  /// One progress step; true when the value is back (then wait() returns at once). Throws like
  /// wait() (but an empty handle is complete).
  using request_handle::test;
  /// True while an operation is held and its value has not come back yet (or not been seen).
  using request_handle::pending;

 private:
  friend request_handle;
  static constexpr const char* unwaited =
      "gaea: an unfinished fetch_request was destroyed and failed: ";
};

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
  /// Takes over the source's counter (local, no communication); the source is left invalid.
  shared_counter(shared_counter&&) noexcept;
  /// Collective when `*this` holds a counter (it is destroyed first).
  shared_counter& operator=(shared_counter&&);

  /// Atomically adds `n` and returns the previous value. `n` must be >= 0 (gaea::error otherwise):
  /// load-balance counters only move forward. Blocks until the value has come back.
  std::int64_t fetch_add(std::int64_t n = 1);
  /// Non-blocking fetch_add: issues the addition and returns at once; the handle's wait() gives
  /// the previous value. Same mode, atomicity and errors as the blocking form (a negative `n`
  /// throws before anything is sent). Served at once when this rank owns the counter.
  [[nodiscard]] fetch_request fetch_add(std::int64_t n, nonblocking_t);
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
  /// Rank that holds the counter; gaea::error after destroy() or a move.
  int owner() const;
  /// The name given at construction; gaea::error after destroy() or a move.
  const std::string& name() const;
  /// How its operations are served; gaea::error after destroy() or a move.
  counter_mode mode() const;

 private:
  struct impl;
  impl& live(const char* op) const;
  std::unique_ptr<impl> impl_;
};

}  // namespace gaea::counters
