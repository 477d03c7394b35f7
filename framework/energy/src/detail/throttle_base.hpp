#pragma once
/// \file
/// What every throttle backend shares: the managed CPUs and their levels, level validation, the
/// no-op fast path, the transition log, restore bookkeeping, and the CPU time by level. A backend
/// supplies only the write of one level and the write-back of its originals.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "detail/cpu_slots.hpp"
#include "detail/transition_log.hpp"
#include "gaea/energy/throttle.hpp"

namespace gaea::energy::detail {

/// Throws gaea::error naming throttle `who`, `cpu` (negative: the call was set_all) and `level`
/// unless 0 <= level < 8.
void check_level(std::string_view who, int cpu, int level);

class throttle_base : public throttle {
 public:
  const std::vector<int>& cpus() const noexcept final { return slots_.cpus(); }
  bool set_level(int cpu, int level) final;
  int level(int cpu) const noexcept final;
  void restore() noexcept final;
  std::vector<throttle_transition> transitions() const final;
  std::uint64_t transition_count() const noexcept final { return log_.count(); }
  std::int64_t transition_cost_ns() const noexcept override { return log_.cost_ns(); }
  level_times cpu_ns_by_level() const final;

  /// Takes note, without writing or counting a transition, that `cpu` is now at `level` (0..7),
  /// as another process of the job left it (the arbiter): the CPU time from here on counts at
  /// that level, and the next set_level() writes whenever it moves the CPU from there. No-op for
  /// a CPU not managed or a level outside 0..7.
  void assume_level(int cpu, int level) noexcept;

 protected:
  /// `cpus`: the CPUs this throttle may change; `original_levels`: the level each is at now (and
  /// goes back to on restore), one per CPU; `capacity`: transitions kept.
  throttle_base(std::vector<int> cpus, std::vector<int> original_levels, std::size_t capacity);

  /// Puts the CPU in `slot` at `level` (caller holds mutex_; the level differs from the
  /// current one). False, errno kept, when the write was refused.
  virtual bool write_level(std::size_t slot, int level) = 0;
  /// Writes back every original this backend changed (caller holds mutex_). Returns the time the
  /// writes took in ns (the cost charged to each CPU that changed level, split evenly).
  virtual std::int64_t write_originals() noexcept = 0;
  /// False once the backend must not write again (a fatal signal restored the originals).
  virtual bool writable() const noexcept { return true; }
  /// Cost reported before the first transition, and the floor of every estimate.
  void set_cost_estimate(std::int64_t before_writes_ns, std::int64_t floor_ns) noexcept {
    log_.set_cost_estimate(before_writes_ns, floor_ns);
  }

  /// Serialises writes, the log and the CPU-time bookkeeping.
  mutable std::mutex mutex_;

 private:
  /// Adds the process CPU time since the last call to by_level_, split over the CPUs by their
  /// current level (caller holds mutex_).
  void account_locked(level_times& into, std::int64_t& since, std::int64_t now) const noexcept;

  cpu_slots slots_;
  std::unique_ptr<std::atomic<int>[]> levels_;  // by slot; written under mutex_, read lock-free
  std::vector<int> original_levels_;
  transition_log<throttle_transition> log_;
  level_times by_level_{};         // guarded by mutex_
  std::int64_t since_cpu_ns_ = 0;  // process CPU time at the last level change
};

}  // namespace gaea::energy::detail
