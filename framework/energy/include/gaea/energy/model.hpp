#pragma once
/// \file
/// The CPU power model used when no energy meter proves itself:
///   P = P_static + sum_i u_i * P_dyn * (f_i / f_max)^3
/// with u_i the utilisation of thread i (CPU time / wall time) and f_i the frequency it ran at.
/// Parameters come from a small JSON calibration file (GAEA_ENERGY_MODEL) or documented defaults.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace gaea::energy {

/// Model parameters. Defaults (documented in framework/energy/README.md) describe a generic
/// server core: 2.4 GHz nominal, 1.2 GHz lowest, 10 W dynamic per busy core at f_max, 4 W static
/// per core-share, 10 us and 20 uJ per DVFS transition.
struct model_params {
  double p_static_w = 4.0;             ///< static power charged per rank (a share of the package)
  double p_dyn_w = 10.0;               ///< dynamic power of one fully busy core at f_max
  std::int64_t f_max_khz = 2400000;    ///< nominal frequency
  std::int64_t f_min_khz = 1200000;    ///< lowest frequency (the "low" DVFS level)
  std::int64_t transition_ns = 10000;  ///< DVFS transition latency
  double transition_j = 20e-6;         ///< energy charged per DVFS transition
  /// "defaults", "defaults, f_max/f_min from <cpufreq dir>/cpuinfo_{max,min}_freq", or the file
  /// the parameters were read from.
  std::string source = "defaults";

  /// Reads a JSON object with any of the keys above; missing keys keep their defaults. Unknown
  /// keys (so typos show), wrong types (the *_khz and *_ns keys are integers), non-positive
  /// values and f_min_khz > f_max_khz throw gaea::Error naming the file and the key, as do an
  /// unreadable file and invalid JSON. source = the file path.
  static model_params load(const std::filesystem::path& file);
  /// GAEA_ENERGY_MODEL if set, else defaults (with f_max/f_min from cpufreq when readable under
  /// `root`).
  static model_params from_env(const std::filesystem::path& root);
  /// Writes the parameters as JSON (temporary name, then rename, so readers never see half a
  /// file). Throws gaea::Error naming the file when it cannot be written.
  void save(const std::filesystem::path& file) const;
};

/// CPU time a thread spent at one frequency.
struct cpu_share {
  double cpu_seconds = 0;  ///< CPU time (not wall time)
  std::int64_t khz = 0;    ///< frequency it ran at (0 = f_max)
};

/// Energy in joules over `wall_seconds` for the given CPU shares plus `transitions` DVFS changes.
double model_energy_j(const model_params& p, double wall_seconds, std::span<const cpu_share> shares,
                      std::uint64_t transitions = 0);
/// Instantaneous power (W) for a utilisation `u` (0..n threads) at `khz`.
double model_power_w(const model_params& p, double u, std::int64_t khz);

}  // namespace gaea::energy
