#pragma once
/// \file
/// The actuator backends, each built by one function that make_actuator calls. A backend that
/// cannot work returns no actuator and, in `reason`, what is missing.

#include <memory>

#include "gaea/energy/actuator.hpp"

namespace gaea::energy::detail {

/// cpufreq sysfs, userspace governor if every CPU allows it, else scaling_min/max_freq.
/// On failure: reason = "no writable cpufreq under <dir> (cpuN: <what>)".
actuator_choice try_cpufreq(const actuator_config& cfg);
/// IA32_CLOCK_MODULATION through /dev/cpu/N/msr. On failure: reason = "no MSR access (...)".
actuator_choice try_msr(const actuator_config& cfg);
/// The simulated backend (always succeeds).
actuator_choice make_simulated(const actuator_config& cfg);

}  // namespace gaea::energy::detail
