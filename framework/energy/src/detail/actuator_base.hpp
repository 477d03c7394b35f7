#pragma once
/// \file
/// What every DVFS backend shares: the CPUs it manages, which of them are low, set_low()'s
/// checks (managed CPU, still writable, no-op when already there) and restore()'s locking, the
/// bounded transition log, and the cost estimate (measured mean of the writes so far, else a
/// probe or configured value, never below a floor such as cpuinfo_transition_latency). A backend
/// supplies only the write of one CPU's level and the write-back of its originals.

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "detail/cpu_slots.hpp"
#include "detail/transition_log.hpp"
#include "gaea/energy/actuator.hpp"

namespace gaea::energy::detail {

/// The frequencies of one managed CPU in kHz, as a backend keeps them.
struct cpu_level {
  std::int64_t high = 0, low = 0, cur = 0;
};

class actuator_base : public actuator {
 public:
  bool set_low(int cpu, bool low) final;
  void restore() noexcept final;
  std::vector<transition> transitions() const override;
  std::uint64_t transition_count() const noexcept override { return log_.count(); }
  std::int64_t transition_cost_ns() const noexcept override { return log_.cost_ns(); }

  /// Takes note, without writing or counting anything, that `cpu` is now low (true) or high, as
  /// another process of the job left it (the arbiter). The next set_low() then writes whenever
  /// it moves the CPU from there. No-op for a CPU not managed.
  void assume_low(int cpu, bool low) noexcept;

 protected:
  /// `cpus`: the CPUs this actuator may change; `capacity`: transitions kept.
  actuator_base(std::vector<int> cpus, std::size_t capacity)
      : slots_(std::move(cpus)), low_(slots_.cpus().size(), 0), log_(capacity) {}

  /// Moves `cpu` (at `slot` of cpus()) to its low (true) or high (false) frequency. Caller holds
  /// mutex_; `low` differs from where the CPU is. False, errno kept, when the write was refused.
  virtual bool write_low(std::size_t slot, int cpu, bool low) = 0;
  /// Writes back every original this backend changed and resets its per-CPU state. `locked`:
  /// mutex_ is held; false only when locking failed, then write back but touch no state.
  virtual void write_originals(bool locked) noexcept = 0;
  /// assume_low()'s part for the backend's own per-CPU state (caller holds mutex_).
  virtual void note_low(std::size_t /*slot*/, bool /*low*/) noexcept {}
  /// False once the backend must not write again (a fatal signal restored the originals).
  virtual bool writable() const noexcept { return true; }

  /// Position of `cpu` in cpus(), or -1 when this actuator does not manage it.
  int slot_of(int cpu) const noexcept { return slots_.slot_of(cpu); }
  const std::vector<int>& cpus() const noexcept { return slots_.cpus(); }
  /// Logs one transition that started at `t_ns` and took `cost_ns`, and counts its cost into
  /// the measured mean. Caller holds mutex_.
  void record(int cpu, std::int64_t from_khz, std::int64_t to_khz, std::int64_t t_ns,
              std::int64_t cost_ns) {
    log_.record(transition{t_ns, cpu, from_khz, to_khz, cost_ns}, cost_ns);
  }
  /// Cost reported before the first measured write, and the floor of every estimate.
  void set_cost_estimate(std::int64_t before_writes_ns, std::int64_t floor_ns) noexcept {
    log_.set_cost_estimate(before_writes_ns, floor_ns);
  }

  /// Serialises the backend's state and writes (set_low, restore, the log).
  mutable std::mutex mutex_;

 private:
  cpu_slots slots_;
  std::vector<char> low_;  // by slot: lowered by set_low(); guarded by mutex_
  transition_log<transition> log_;
};

/// A hardware backend that keeps each managed CPU's frequencies in a `State` deriving from
/// cpu_level (state_, indexed by slot): it answers the frequency queries from that state;
/// unmanaged CPUs read 0.
template <class State>
class levelled_actuator : public actuator_base {
 public:
  bool active() const noexcept override { return true; }
  bool hardware() const noexcept override { return true; }
  std::int64_t high_khz(int cpu) const override { return level(cpu, &cpu_level::high); }
  std::int64_t low_khz(int cpu) const override { return level(cpu, &cpu_level::low); }
  std::int64_t current_khz(int cpu) const override {
    std::lock_guard lock(mutex_);
    return level(cpu, &cpu_level::cur);
  }

 protected:
  using actuator_base::actuator_base;
  std::vector<State> state_;  // by slot

 private:
  std::int64_t level(int cpu, std::int64_t cpu_level::*field) const {
    const int s = slot_of(cpu);
    return s < 0 ? 0 : state_[static_cast<std::size_t>(s)].*field;
  }
};

}  // namespace gaea::energy::detail
