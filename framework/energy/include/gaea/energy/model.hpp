#pragma once
/// \file
/// The power model used when no energy meter proves itself ([A2A-Energy] eq. 1, per rank):
///   P = P_static + P_dyn_other + sum_i u_i * P_dyn * (f_i / f_max)^3 * d_i
/// with u_i the utilisation of thread i (CPU time / wall time), f_i the frequency it ran at (DVFS)
/// and d_i its duty (throttle level Tj: d = (8 - j)/8). Frequency scales the CPU's dynamic power
/// by the cube (voltage follows frequency), throttling removes it in proportion to the idle
/// cycles; the static power and the non-CPU dynamic power (memory, NIC, disk) are charged by wall
/// time, untouched by either. Parameters come from a small JSON calibration file
/// (GAEA_ENERGY_MODEL) or documented defaults.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace gaea::energy {

/// Model parameters, each a per-rank share of the node. Defaults (documented in
/// framework/energy/README.md) describe a generic server core: 2.4 GHz nominal, 1.2 GHz lowest,
/// 10 W dynamic per busy core at f_max, 4 W static and 1 W of memory/NIC dynamic power per
/// core-share, 10 us and 20 uJ per DVFS transition, 2 us and 2 uJ per throttle transition.
struct model_params {
  double p_static_w = 4.0;  ///< static power charged per rank (a share of the package)
  double p_dyn_w = 10.0;    ///< dynamic power of one fully busy core at f_max, unthrottled
  /// Dynamic power of the components other than the processor (memory, NIC, disk) charged per
  /// rank: [A2A-Energy]'s P_d divided by the cores. Not scaled by frequency or duty. The one key
  /// that may be 0 (no such term).
  double p_dyn_other_w = 1.0;
  std::int64_t f_max_khz = 2400000;            ///< nominal frequency
  std::int64_t f_min_khz = 1200000;            ///< lowest frequency (the "low" DVFS level)
  std::int64_t transition_ns = 10000;          ///< DVFS transition latency
  double transition_j = 20e-6;                 ///< energy charged per DVFS transition
  std::int64_t throttle_transition_ns = 2000;  ///< throttle (clock-modulation) transition latency
  double throttle_transition_j = 2e-6;         ///< energy charged per throttle transition
  /// "defaults", "defaults, f_max/f_min from <cpufreq dir>/cpuinfo_{max,min}_freq", or the file
  /// the parameters were read from, followed by its `note` ("<file> (<note>)") when it has one.
  std::string source = "defaults";
  /// What a calibration file says about where its values come from (its "source" key), e.g.
  /// "fitted by gaea-power calibrate at <time> on rapl-powercap ..., RMS error 2.1 %"; empty
  /// when it says nothing. Free text, never interpreted.
  std::string note;

  /// Reads a JSON object with any of the keys above; missing keys keep their defaults. Unknown
  /// keys (so typos show), wrong types (the *_khz and *_ns keys are integers), non-positive
  /// values (negative for p_dyn_other_w) and f_min_khz > f_max_khz throw gaea::error naming the
  /// file and the key, as do an unreadable file and invalid JSON. The text key "source" (where
  /// the values come from) goes to `note`; source = the file path, then " (<note>)" if any.
  static model_params load(const std::filesystem::path& file);
  /// GAEA_ENERGY_MODEL if set, else defaults (with f_max/f_min from cpufreq when readable under
  /// `root`).
  static model_params from_env(const std::filesystem::path& root);
  /// Writes the parameters as JSON, with `note` as "source" when it is not empty (temporary
  /// name, then rename, so readers never see half a file). Throws gaea::error naming the file
  /// when it cannot be written.
  void save(const std::filesystem::path& file) const;
};

/// CPU time a thread spent at one frequency and duty.
struct cpu_share {
  double cpu_seconds = 0;  ///< CPU time (not wall time)
  std::int64_t khz = 0;    ///< frequency it ran at (0 = f_max)
  double duty = 1.0;       ///< fraction of clock periods it ran, 0 < duty <= 1 (Tj: (8 - j)/8)
};

/// Energy in joules over `wall_seconds`: (P_static + P_dyn_other) * wall, plus
/// P_dyn * cpu_seconds * (khz / f_max)^3 * duty for every share, plus `transitions` DVFS changes
/// at transition_j and `throttle_transitions` throttle changes at throttle_transition_j.
double model_energy_j(const model_params& p, double wall_seconds, std::span<const cpu_share> shares,
                      std::uint64_t transitions = 0, std::uint64_t throttle_transitions = 0);
/// Instantaneous power (W) of a rank with utilisation `u` (0..n threads) at `khz` and `duty`:
/// P_static + P_dyn_other + cpu_dynamic_power_w(p, u, khz, duty).
double model_power_w(const model_params& p, double u, std::int64_t khz, double duty = 1.0);
/// The CPU's dynamic power alone: u * P_dyn * (khz / f_max)^3 * duty (khz 0 = f_max).
double cpu_dynamic_power_w(const model_params& p, double u, std::int64_t khz, double duty = 1.0);

/// Power (W) of a node of `cores` fully busy cores at frequency `khz` and throttle level `level`,
/// [A2A-Energy] eq. 1: P_ij = (j (P_s + P_d) + (n - j) P_i0) / n, with n = 8 clock periods per
/// modulation cycle, P_i0 = c P_i + P_s + P_d, P_s = c p_static_w, P_d = c p_dyn_other_w and
/// P_i = p_dyn_w (khz / f_max)^3. Equivalently c * model_power_w(p, 1, khz, (8 - j)/8). Throws
/// gaea::error naming the value when cores < 1 or level is outside 0..7.
double node_power_w(const model_params& p, int cores, std::int64_t khz, int level);

}  // namespace gaea::energy
