// Simulated throttle: no register is touched; each transition busy-waits the configured cost so
// that its latency is real, and is logged and counted so that the energy model can charge it.

#include <string>
#include <vector>

#include "detail/backends.hpp"
#include "detail/cpu_info.hpp"
#include "detail/fd_io.hpp"
#include "detail/throttle_base.hpp"

namespace gaea::energy::detail {
namespace {

void busy_wait(std::int64_t ns) noexcept {
  const std::int64_t t0 = now_ns();
  while (now_ns() - t0 < ns) {
  }
}

class simulated_throttle final : public throttle_base {
 public:
  simulated_throttle(std::vector<int> cpus, std::size_t capacity, std::int64_t cost_ns)
      : throttle_base(std::move(cpus), {}, capacity), cost_ns_(cost_ns) {
    set_cost_estimate(cost_ns, 0);
  }

  std::string_view name() const noexcept override { return "simulated"; }
  bool active() const noexcept override { return true; }
  bool hardware() const noexcept override { return false; }
  std::int64_t transition_cost_ns() const noexcept override { return cost_ns_; }

 protected:
  bool write_level(std::size_t, int) override {
    busy_wait(cost_ns_);
    return true;
  }
  std::int64_t write_originals() noexcept override {
    const std::int64_t t0 = now_ns();
    for (int cpu : cpus())
      if (level(cpu) != 0) busy_wait(cost_ns_);
    return now_ns() - t0;
  }

 private:
  std::int64_t cost_ns_;
};

}  // namespace

throttle_choice make_simulated_throttle(const throttle_config& cfg) {
  const std::int64_t cost = cfg.simulated_cost_ns > 0 ? cfg.simulated_cost_ns : 0;
  std::string reason = "simulated throttle on CPUs " + format_id_list(cfg.cpus) + " (T0..T7, " +
                       std::to_string(cost) + " ns busy-waited per transition; nothing is written)";
  return {std::make_unique<simulated_throttle>(cfg.cpus, cfg.transition_capacity, cost),
          std::move(reason)};
}

}  // namespace gaea::energy::detail
