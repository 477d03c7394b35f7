#pragma once
/// \file
/// What every backend shares: the CPUs it manages, the bounded transition log, and the cost
/// estimate (measured mean of the writes so far, else a probe or configured value, never below a
/// floor such as cpuinfo_transition_latency).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "gaea/energy/actuator.hpp"

namespace gaea::energy::detail {

class actuator_base : public actuator {
 public:
  std::vector<transition> transitions() const override;
  std::uint64_t transition_count() const noexcept override {
    return count_.load(std::memory_order_relaxed);
  }
  std::int64_t transition_cost_ns() const noexcept override;

 protected:
  /// The frequencies of one managed CPU, as a backend keeps them.
  struct cpu_level {
    std::int64_t high = 0, low = 0, cur = 0;
    bool is_low = false;
  };
  /// `cpus`: the CPUs this actuator may change; `capacity`: transitions kept.
  actuator_base(std::vector<int> cpus, std::size_t capacity);

  /// Position of `cpu` in cpus(), or -1 when this actuator does not manage it.
  int slot_of(int cpu) const noexcept;
  const std::vector<int>& cpus() const noexcept { return cpus_; }
  /// Logs one transition that started at `t_ns` and took `cost_ns`, and counts its cost into
  /// the measured mean. Caller holds mutex_.
  void record(int cpu, std::int64_t from_khz, std::int64_t to_khz, std::int64_t t_ns,
              std::int64_t cost_ns);
  /// Cost reported before the first measured write, and the floor of every estimate.
  void set_cost_estimate(std::int64_t before_writes_ns, std::int64_t floor_ns) noexcept {
    estimate_ns_ = before_writes_ns;
    floor_ns_ = floor_ns;
  }

  /// Serialises the backend's state and writes (set_low, restore, the log).
  mutable std::mutex mutex_;

  /// high_khz/low_khz/current_khz for backends whose per-CPU state derives from cpu_level:
  /// `state` is indexed by slot_of(cpu); unmanaged CPUs read 0.
  template <class State>
  std::int64_t level_of(const std::vector<State>& state, int cpu,
                        std::int64_t cpu_level::*field) const {
    const int s = slot_of(cpu);
    return s < 0 ? 0 : state[static_cast<std::size_t>(s)].*field;
  }

 private:
  std::vector<int> cpus_;
  std::vector<int> slot_of_cpu_;  // index by CPU id; -1 = not managed
  std::size_t capacity_;
  std::vector<transition> ring_;  // grows to capacity_, then overwritten oldest-first
  std::size_t next_ = 0;          // where the next transition goes once the ring is full
  std::atomic<std::uint64_t> count_{0};
  std::atomic<std::int64_t> measured_sum_ns_{0};
  std::int64_t estimate_ns_ = 0, floor_ns_ = 0;
};

}  // namespace gaea::energy::detail
