// Simulated backend: no file is touched; each transition busy-waits the configured cost so that
// its latency is real, and is logged so that the energy model can charge it.

#include <string>
#include <vector>

#include "detail/actuator_base.hpp"
#include "detail/backends.hpp"
#include "detail/cpu_info.hpp"
#include "detail/fd_io.hpp"

namespace gaea::energy::detail {
namespace {

// The model's defaults, used when neither the config nor cpufreq gives a range.
constexpr khz_range fallback_range{2400000, 1200000};

class simulated_actuator final : public actuator_base {
 public:
  simulated_actuator(std::vector<int> cpus, std::size_t capacity, khz_range range,
                     std::int64_t cost_ns)
      : actuator_base(cpus, capacity),
        range_(range),
        cost_ns_(cost_ns),
        state_(cpus.size(), {range.max_khz}) {}

  std::string_view name() const noexcept override { return "simulated"; }
  bool active() const noexcept override { return true; }
  bool hardware() const noexcept override { return false; }
  std::int64_t high_khz(int cpu) const override { return slot_of(cpu) < 0 ? 0 : range_.max_khz; }
  std::int64_t low_khz(int cpu) const override { return slot_of(cpu) < 0 ? 0 : range_.min_khz; }
  std::int64_t current_khz(int cpu) const override {
    std::lock_guard lock(mutex_);
    const int s = slot_of(cpu);
    return s < 0 ? 0 : state_[static_cast<std::size_t>(s)].cur;
  }
  std::int64_t transition_cost_ns() const noexcept override { return cost_ns_; }

  // The transition: the configured cost, busy-waited, and logged.
  bool write_low(std::size_t slot, int cpu, bool low) override {
    cpu_state& c = state_[slot];
    const std::int64_t to = low ? range_.min_khz : range_.max_khz;
    const std::int64_t t0 = now_ns();
    std::int64_t t1 = t0;
    while (t1 - t0 < cost_ns_)
      t1 = now_ns();
    record(cpu, c.cur, to, t0, t1 - t0);
    c.cur = to;
    return true;
  }

  void note_low(std::size_t slot, bool low) noexcept override {
    state_[slot].cur = low ? range_.min_khz : range_.max_khz;
  }

  void write_originals(bool locked) noexcept override {
    if (!locked) return;  // nothing was written
    for (cpu_state& c : state_)
      c = {range_.max_khz};
  }

 private:
  struct cpu_state {
    std::int64_t cur = 0;
  };
  khz_range range_;
  std::int64_t cost_ns_;
  std::vector<cpu_state> state_;
};

}  // namespace

actuator_choice make_simulated(const actuator_config& cfg) {
  khz_range range = fallback_range;
  std::string from = "defaults";
  if (cfg.simulated_high_khz > 0 && cfg.simulated_low_khz > 0) {
    range = {cfg.simulated_high_khz, cfg.simulated_low_khz};
    from = "configured";
  } else if (auto hw = cpuinfo_range(cfg.root, cfg.cpus.empty() ? 0 : cfg.cpus.front())) {
    range = *hw;
    from = "cpufreq cpuinfo";
  }
  const std::int64_t cost = cfg.simulated_cost_ns > 0 ? cfg.simulated_cost_ns : 0;
  std::string reason = "simulated DVFS on CPUs " + format_id_list(cfg.cpus) + " (" +
                       std::to_string(range.max_khz) + " -> " + std::to_string(range.min_khz) +
                       " kHz from " + from + ", " + std::to_string(cost) +
                       " ns busy-waited per transition; nothing is written)";
  return {std::make_unique<simulated_actuator>(cfg.cpus, cfg.transition_capacity, range, cost),
          std::move(reason)};
}

}  // namespace gaea::energy::detail
