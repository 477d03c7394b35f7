// cpu_slots: the CPUs an actuator or throttle manages, and each one's slot.

#include "detail/cpu_slots.hpp"

#include <algorithm>

namespace gaea::energy::detail {

cpu_slots::cpu_slots(std::vector<int> cpus) : cpus_(std::move(cpus)) {
  int top = -1;
  for (int c : cpus_)
    top = std::max(top, c);
  slot_of_cpu_.assign(static_cast<std::size_t>(top + 1), -1);
  for (std::size_t i = 0; i < cpus_.size(); ++i)
    if (cpus_[i] >= 0) slot_of_cpu_[static_cast<std::size_t>(cpus_[i])] = static_cast<int>(i);
}

int cpu_slots::slot_of(int cpu) const noexcept {
  if (cpu < 0 || static_cast<std::size_t>(cpu) >= slot_of_cpu_.size()) return -1;
  return slot_of_cpu_[static_cast<std::size_t>(cpu)];
}

}  // namespace gaea::energy::detail
