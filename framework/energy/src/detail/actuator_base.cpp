#include "detail/actuator_base.hpp"

#include <algorithm>

namespace gaea::energy::detail {

actuator_base::actuator_base(std::vector<int> cpus, std::size_t capacity)
    : cpus_(std::move(cpus)), capacity_(capacity) {
  int top = -1;
  for (int c : cpus_)
    top = std::max(top, c);
  slot_of_cpu_.assign(static_cast<std::size_t>(top + 1), -1);
  for (std::size_t i = 0; i < cpus_.size(); ++i)
    if (cpus_[i] >= 0) slot_of_cpu_[static_cast<std::size_t>(cpus_[i])] = static_cast<int>(i);
}

int actuator_base::slot_of(int cpu) const noexcept {
  if (cpu < 0 || static_cast<std::size_t>(cpu) >= slot_of_cpu_.size()) return -1;
  return slot_of_cpu_[static_cast<std::size_t>(cpu)];
}

void actuator_base::record(int cpu, std::int64_t from_khz, std::int64_t to_khz, std::int64_t t_ns,
                           std::int64_t cost_ns) {
  const transition t{t_ns, cpu, from_khz, to_khz, cost_ns};
  if (capacity_ > 0) {
    if (ring_.size() < capacity_) {
      ring_.push_back(t);
    } else {
      ring_[next_] = t;
      next_ = (next_ + 1) % capacity_;
    }
  }
  measured_sum_ns_.fetch_add(cost_ns, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_release);
}

std::vector<transition> actuator_base::transitions() const {
  std::lock_guard lock(mutex_);
  // Oldest first: once full, the oldest sits where the next one will be written.
  std::vector<transition> out;
  out.reserve(ring_.size());
  out.insert(out.end(), ring_.begin() + static_cast<std::ptrdiff_t>(next_), ring_.end());
  out.insert(out.end(), ring_.begin(), ring_.begin() + static_cast<std::ptrdiff_t>(next_));
  return out;
}

std::int64_t actuator_base::transition_cost_ns() const noexcept {
  const std::uint64_t n = count_.load(std::memory_order_acquire);
  const std::int64_t sum = measured_sum_ns_.load(std::memory_order_relaxed);
  const std::int64_t mean = n ? sum / static_cast<std::int64_t>(n) : estimate_ns_;
  return std::max(mean, floor_ns_);
}

}  // namespace gaea::energy::detail
