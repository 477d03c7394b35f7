#pragma once
/// \file
/// The CPUs one actuator or throttle manages, and where each one's state sits: slot_of(cpu) is
/// the position of `cpu` in the list, found in O(1).

#include <cstddef>
#include <vector>

namespace gaea::energy::detail {

/// Immutable after construction; thread-safe to read.
class cpu_slots {
 public:
  /// `cpus`: OS indices of the PUs (negative entries are never found).
  explicit cpu_slots(std::vector<int> cpus);
  /// Position of `cpu` in cpus(), or -1 when it is not managed.
  int slot_of(int cpu) const noexcept;
  const std::vector<int>& cpus() const noexcept { return cpus_; }
  std::size_t size() const noexcept { return cpus_.size(); }

 private:
  std::vector<int> cpus_;
  std::vector<int> slot_of_cpu_;  // index by CPU id; -1 = not managed
};

}  // namespace gaea::energy::detail
