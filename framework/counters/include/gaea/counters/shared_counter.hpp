#pragma once
/// \file
/// gaea::shared_counter — a 64-bit load-balance counter that lives on one rank and is
/// incremented by any rank with a one-sided atomic (UCX AMO64: CPU atomics on a node, NIC atomics
/// on InfiniBand, or served by the owner's progress thread where the transport emulates them).

#include <cstdint>
#include <memory>
#include <string>

namespace gaea {
class runtime;
namespace comm {
class segment;
}

/// Collective object (construct and destroy on every rank, same order).
/// fetch_add/compare_swap/read are one-sided and may be called from any thread.
class shared_counter {
 public:
  /// Collective. The counter starts at `initial` and lives on `owner` (default rank 0).
  /// Throws gaea::Error if `owner` is not a rank or the runtime is not initialized.
  explicit shared_counter(std::string name = "counter", int owner = 0, std::int64_t initial = 0);
  /// Collective (synchronises, then frees the counter's memory).
  ~shared_counter();
  shared_counter(shared_counter&&) noexcept;
  shared_counter& operator=(shared_counter&&) noexcept;

  /// Atomically adds `n` and returns the previous value. `n` must be >= 0 (gaea::Error otherwise):
  /// load-balance counters only move forward. Blocks until the value has come back.
  std::int64_t fetch_add(std::int64_t n = 1);
  /// Atomically sets the counter to `desired` if it equals `expected`; returns the previous value.
  std::int64_t compare_swap(std::int64_t expected, std::int64_t desired);
  /// Current value (an atomic read).
  std::int64_t read();

  int owner() const noexcept { return owner_; }
  const std::string& name() const noexcept { return name_; }

 private:
  std::string name_;
  int owner_;
  runtime* rt_;
  std::unique_ptr<comm::segment> seg_;
};

}  // namespace gaea
