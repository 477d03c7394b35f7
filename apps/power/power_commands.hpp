#pragma once
// gaea-power's two commands, callable from a test: calibrate (fit the power model against a
// hardware meter that proved itself, write a GAEA_ENERGY_MODEL file) and check (the current
// parameters against the meter). One process, no MPI, not thread-safe.

#include <filesystem>
#include <string>
#include <vector>

namespace gaea_power {

/// Exit status when no hardware meter proved itself (nothing measured, nothing written).
inline constexpr int no_meter = 3;

struct options {
  std::filesystem::path root;     ///< sysfs root; empty = GAEA_SYSFS_ROOT
  std::string meter;              ///< auto|rapl|perf; empty = GAEA_ENERGY_METER
  std::filesystem::path out;      ///< calibrate: the model file to write
  std::filesystem::path json;     ///< the per-phase table as JSON; empty = none
  std::int64_t phase_ms = 3000;   ///< length of each phase
  std::int64_t sample_ms = 50;    ///< meter read interval within a phase
  std::vector<int> threads;       ///< busy-thread counts; empty = 1..n (see calibration.hpp)
  int cores = 0;                  ///< core-shares of the node; 0 = hardware threads
  std::string dvfs = "auto";      ///< auto|cpufreq|off
  std::string throttle = "auto";  ///< auto|msr|off
  std::vector<int> throttle_levels{4};
};

/// Selects the meter as the runtime does; without one, says so and returns no_meter before any
/// phase. Otherwise runs the phases, fits, prints the table (measured, fitted and previous
/// model power per phase, RMS and max relative error) and writes `out` (and `json`). The output
/// paths are checked before anything runs. gaea::error for bad settings, an unwritable path or a
/// fit that is not physical (nothing written then). Returns the exit status.
int calibrate(const options& o);

/// Selects the meter (no_meter without one), runs an idle phase and a phase with every hardware
/// thread busy, and prints measured vs modelled energy with the current parameters
/// (GAEA_ENERGY_MODEL, else the defaults). Returns the exit status.
int check(const options& o);

}  // namespace gaea_power
