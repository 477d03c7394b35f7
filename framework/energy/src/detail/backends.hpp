#pragma once
/// \file
/// The DVFS actuator and throttle backends, each built by one function that make_actuator or
/// make_throttle calls. A backend that cannot work returns no object and, in `reason`, what is
/// missing.

#include <memory>

#include "gaea/energy/actuator.hpp"
#include "gaea/energy/slurm.hpp"
#include "gaea/energy/throttle.hpp"

namespace gaea::energy::detail {

/// cpufreq sysfs, userspace governor if every CPU allows it, else scaling_min/max_freq. With
/// `slurm` (the parsed cfg.cpu_freq_request), the low and high levels are kept within its limits
/// on every CPU, and a request naming a governor other than userspace keeps the governor
/// (min/max only). On failure: reason = "no writable cpufreq under <dir> (cpuN: <what>)", or
/// the request's refusal (slurm_limits).
actuator_choice try_cpufreq(const actuator_config& cfg, const slurm_cpu_freq* slurm);
/// GEOPM: CPU_FREQUENCY_MAX_CONTROL of each CPU through geopmwrite; low = CPU_FREQUENCY_MIN_AVAIL,
/// high = the control's value found (at most CPU_FREQUENCY_MAX_AVAIL), both within `slurm`'s
/// limits when given; each CPU proved by a write of its high level, accepted and read back. On
/// failure: the reason, with what a site must enable.
actuator_choice try_geopm(const actuator_config& cfg, const slurm_cpu_freq* slurm);
/// The simulated backend (always succeeds).
actuator_choice make_simulated(const actuator_config& cfg);

/// Throttle through IA32_CLOCK_MODULATION (/dev/cpu/N/msr) for every CPU of cfg.cpus. On
/// failure: reason = "no MSR access (<path>: <error>)".
throttle_choice try_msr_throttle(const throttle_config& cfg);
/// The simulated throttle (always succeeds).
throttle_choice make_simulated_throttle(const throttle_config& cfg);

}  // namespace gaea::energy::detail
