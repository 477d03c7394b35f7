#pragma once
/// \file
/// Fitting the power model (model.hpp) against a hardware meter that proved itself (meter.hpp):
/// load phases (idle, 1..n busy threads, and the same at the low DVFS frequency or a throttle
/// level where a hardware actuator is writable), joules per phase from the meter, CPU time per
/// phase from the process CPU clock, then least squares on the node's power
///
///     P_phase = cores * (p_static_w + p_dyn_other_w) + p_dyn_w * u * (f / f_max)^3 * d
///
/// with u = CPU seconds / wall seconds of the phase: the model's per-rank terms summed over a
/// node of `cores` core-shares (one rank per hardware thread). The frequency exponent stays the
/// model's cube; the low-frequency phases show how well it holds. The meter sees the whole node,
/// so the fit assumes this process is its only load: calibrate on a quiet machine (each phase
/// records what the other processes used, where /proc/stat is readable).

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gaea/energy/model.hpp"

namespace gaea::energy {

/// One load phase as it was run and measured.
struct power_phase {
  std::string name;      ///< "idle", "3 busy", "3 busy @ 1200000 kHz", "3 busy @ T4"
  int threads = 0;       ///< busy threads (0: idle, the calling thread sleeps)
  std::int64_t khz = 0;  ///< frequency the CPUs were set to; 0 = not lowered
  /// f / f_max of the phase: the actuator's low_khz / high_khz when lowered, else 1 (the model's
  /// convention, as rank_usage charges lowered CPU time)
  double f_ratio = 1.0;
  double duty = 1.0;                  ///< throttle duty, (8 - j)/8 at Tj
  double wall_s = 0;                  ///< length of the phase
  double cpu_s = 0;                   ///< CPU time of this process over the phase
  double joules = 0;                  ///< energy the meter counted over the phase
  std::optional<double> other_cpu_s;  ///< CPU time of every other process (from /proc/stat)
  /// Mean measured power over the phase (W; 0 for an empty phase).
  double measured_w() const { return wall_s > 0 ? joules / wall_s : 0; }
};

/// Node power (W) the model gives for a phase: cores * (p_static_w + p_dyn_other_w) +
/// p_dyn_w * (cpu_s / wall_s) * f_ratio^3 * duty.
double phase_model_w(const model_params& p, int cores, const power_phase& ph);

/// How well a parameter set describes a set of phases.
struct power_fit_error {
  std::vector<double> modelled_w;  ///< per phase, phase_model_w
  std::vector<double> rel_err;     ///< per phase, modelled / measured - 1
  double rms_rel = 0;              ///< root mean square of rel_err
  double max_rel = 0;              ///< largest |rel_err|
};
/// Evaluates `p` on `phases` (node of `cores` core-shares). Throws gaea::error when a phase has
/// no wall time or no energy, or cores < 1.
power_fit_error evaluate_power_model(const model_params& p, int cores,
                                     std::span<const power_phase> phases);

/// Least squares on the relative error of each phase's power (every phase counts alike, whatever
/// its power) for the wall-time term a = cores * (p_static_w + p_dyn_other_w) and p_dyn_w. a is
/// split between p_static_w and p_dyn_other_w in the ratio `base` has (a package meter cannot
/// tell them apart); every other key is `base`'s. note is left empty. Throws gaea::error naming
/// the values when fewer than two phases differ in load, or when either term comes out not
/// positive (the meter does not follow this process's load: other load, or a meter that counts
/// something else).
model_params fit_power_model(const model_params& base, int cores,
                             std::span<const power_phase> phases);

/// Settings of run_power_phases.
struct calibration_config {
  std::filesystem::path root = "/";  ///< sysfs/dev/proc root (GAEA_SYSFS_ROOT)
  /// Busy-thread counts to run at each frequency/throttle setting, each once; the idle phase
  /// comes first. Empty: 1..n for n = hardware threads up to 8, else 8 counts spread to n.
  std::vector<int> threads;
  bool idle = true;                                  ///< run the idle phase
  std::chrono::milliseconds phase{3000};             ///< length of each phase
  std::chrono::milliseconds sample{50};              ///< meter read interval within a phase
  std::string dvfs_kind = "auto";                    ///< auto|cpufreq|off (hardware only)
  std::string throttle_kind = "auto";                ///< auto|msr|off (hardware only)
  std::vector<int> throttle_levels{4};               ///< levels run with the throttle (1..7)
  std::function<void(const power_phase&)> on_phase;  ///< called after each phase (progress)
};

/// What run_power_phases did besides the phases: which actuators it used and why.
struct calibration_run {
  std::vector<power_phase> phases;  ///< the phases, in the order run
  std::string dvfs;      ///< one line: actuator used for the low-frequency phases, or why none
  std::string throttle;  ///< one line: throttle used, or why none
};

class meter;
/// Runs the phases with `m` (a hardware meter that proved itself; wrap-around is seen because it
/// is read every cfg.sample). Frequency and throttle are restored before it returns (also on an
/// exception). A failed meter read throws gaea::error naming the meter and the phase. Not
/// thread-safe with other users of the actuators of this process's CPUs.
calibration_run run_power_phases(meter& m, const calibration_config& cfg);

/// Default busy-thread counts for `n` hardware threads: 1..n when n <= 8, else 8 counts spread
/// evenly up to n.
std::vector<int> default_thread_counts(int n);

/// Hardware threads of the node: std::thread::hardware_concurrency(), at least 1.
int hardware_threads();

}  // namespace gaea::energy
