#pragma once
/// \file
/// The DVFS actuator and throttle backends, each built by one function that make_actuator or
/// make_throttle calls. A backend that cannot work returns no object and, in `reason`, what is
/// missing.

#include <memory>

#include "gaea/energy/actuator.hpp"
#include "gaea/energy/throttle.hpp"

namespace gaea::energy::detail {

/// cpufreq sysfs, userspace governor if every CPU allows it, else scaling_min/max_freq.
/// On failure: reason = "no writable cpufreq under <dir> (cpuN: <what>)".
actuator_choice try_cpufreq(const actuator_config& cfg);
/// The simulated backend (always succeeds).
actuator_choice make_simulated(const actuator_config& cfg);

/// Throttle through IA32_CLOCK_MODULATION (/dev/cpu/N/msr) for every CPU of cfg.cpus. On
/// failure: reason = "no MSR access (<path>: <error>)".
throttle_choice try_msr_throttle(const throttle_config& cfg);
/// The simulated throttle (always succeeds).
throttle_choice make_simulated_throttle(const throttle_config& cfg);

}  // namespace gaea::energy::detail
