// gaea::energy::governor: a CPU's frequency down before a thread blocks and up after it wakes,
// skipping idles too short to pay off and transitions too frequent.

#include "gaea/energy/governor.hpp"

#include <algorithm>

namespace gaea::energy {
namespace {

std::int64_t derive_min_idle(std::int64_t configured, std::int64_t cost_ns) {
  if (configured > 0) return configured;
  if (cost_ns <= 0) return 100000;  // cost unknown: 100 us
  return std::max<std::int64_t>(20 * cost_ns, 1000);
}

}  // namespace

governor::governor(actuator& act, std::vector<int> domain_of_cpu, governor_config cfg)
    : act_(act),
      active_(act.active()),
      domain_of_cpu_(std::move(domain_of_cpu)),
      first_own_domain_(0),
      min_idle_ns_(derive_min_idle(cfg.min_idle_ns, act.transition_cost_ns())),
      min_interval_ns_(cfg.min_interval_ns > 0 ? cfg.min_interval_ns : 10 * min_idle_ns_) {
  for (int d : domain_of_cpu_)
    if (d >= 0) first_own_domain_ = std::max(first_own_domain_, static_cast<std::size_t>(d) + 1);
  domains_.resize(first_own_domain_);
}

governor::domain_state& governor::domain(int cpu) {
  const auto c = static_cast<std::size_t>(cpu);
  const std::size_t index = c < domain_of_cpu_.size() && domain_of_cpu_[c] >= 0
                                ? static_cast<std::size_t>(domain_of_cpu_[c])
                                : first_own_domain_ + c;
  if (index >= domains_.size()) domains_.resize(index + 1);
  return domains_[index];
}

bool governor::raise(domain_state& d) {
  if (!d.low) return false;
  // Behind an arbiter the CPU may have stayed high (another rank wanted it so): then this
  // withdraws the request but raises nothing.
  const bool was_low = act_.current_khz(d.low_cpu) == act_.low_khz(d.low_cpu);
  // On failure the domain stays low and the next wake tries again.
  if (!act_.set_low(d.low_cpu, false)) return false;
  d.low = false;
  return was_low;
}

void governor::thread_started(int cpu) {
  if (cpu < 0) return;
  std::lock_guard lock(mutex_);
  domain_state& d = domain(cpu);
  ++d.awake;
  raise(d);
}

void governor::thread_stopped(int cpu) {
  if (cpu < 0) return;
  std::lock_guard lock(mutex_);
  domain_state& d = domain(cpu);
  d.awake = std::max(d.awake - 1, 0);
}

bool governor::before_block(int cpu, std::int64_t now_ns, std::int64_t expected_idle_ns) {
  if (cpu < 0) return false;
  std::lock_guard lock(mutex_);
  domain_state& d = domain(cpu);
  d.awake = std::max(d.awake - 1, 0);
  if (d.awake != 0 || d.low || !active_) return false;
  if (expected_idle_ns < min_idle_ns_) {
    skipped_short_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  if (now_ns - d.last_lowered_ns < min_interval_ns_) {
    skipped_rate_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  if (!act_.set_low(cpu, true)) return false;
  d.low = true;
  d.low_cpu = cpu;
  d.last_lowered_ns = now_ns;
  // Behind an arbiter the request may be recorded while the CPU stays high.
  return act_.current_khz(cpu) == act_.low_khz(cpu);
}

bool governor::after_wake(int cpu, std::int64_t /*now_ns*/) {
  if (cpu < 0) return false;
  std::lock_guard lock(mutex_);
  domain_state& d = domain(cpu);
  ++d.awake;
  return raise(d);
}

std::uint64_t governor::skipped_short() const noexcept {
  return skipped_short_.load(std::memory_order_relaxed);
}
std::uint64_t governor::skipped_rate() const noexcept {
  return skipped_rate_.load(std::memory_order_relaxed);
}

}  // namespace gaea::energy
