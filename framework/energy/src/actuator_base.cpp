// actuator_base: the state, checks, restore and transition log every DVFS backend shares.

#include "detail/actuator_base.hpp"

#include <algorithm>

namespace gaea::energy::detail {

bool actuator_base::set_low(int cpu, bool low) {
  std::lock_guard lock(mutex_);
  const int s = slot_of(cpu);
  if (s < 0 || !writable()) return false;
  const auto slot = static_cast<std::size_t>(s);
  if ((low_[slot] != 0) == low) return true;
  if (!write_low(slot, cpu, low)) return false;
  low_[slot] = low ? 1 : 0;
  return true;
}

void actuator_base::assume_low(int cpu, bool low) noexcept {
  const int s = slot_of(cpu);
  if (s < 0) return;
  const auto slot = static_cast<std::size_t>(s);
  try {
    std::lock_guard lock(mutex_);
    low_[slot] = low ? 1 : 0;
    note_low(slot, low);
  } catch (...) {  // locking a valid mutex does not fail
  }
}

void actuator_base::restore() noexcept {
  std::unique_lock lock(mutex_, std::defer_lock);
  try {
    lock.lock();
  } catch (...) {  // cannot happen with a valid mutex; the backend writes back regardless
  }
  write_originals(lock.owns_lock());
  if (lock.owns_lock()) std::fill(low_.begin(), low_.end(), char{0});
}

std::vector<transition> actuator_base::transitions() const {
  std::lock_guard lock(mutex_);
  return log_.entries();
}

}  // namespace gaea::energy::detail
