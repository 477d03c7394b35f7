#pragma once
/// \file
/// What Slurm asked of the job's CPU frequency (`srun --cpu-freq`, passed to the job as
/// SLURM_CPU_FREQ_REQ) and how a DVFS actuator keeps to it, and the one sentence that tells
/// Gaea's energy figure from Slurm's ConsumedEnergy. Pure functions: no file, no environment.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gaea::energy {

/// One frequency of a request: a number of kHz or one of Slurm's symbolic levels, resolved
/// against the CPU's available frequencies (low = lowest, high = highest, highm1 = the one below
/// the highest, medium = the middle one).
struct slurm_freq {
  /// A number of kHz or a symbolic level.
  enum class level { khz, low, medium, high, highm1 };
  level kind = level::khz;  ///< which of the two this frequency is
  std::int64_t khz = 0;     ///< kind == khz only
};

/// A parsed SLURM_CPU_FREQ_REQ. The forms (srun(1), `--cpu-freq=p1[-p2[:p3]]`, any case):
///   `p1`        one frequency (kHz, low, medium, high, highm1): Slurm fixes the frequency;
///   `governor`  conservative, ondemand, performance, powersave, schedutil, userspace alone;
///   `p1-p2`     a range: min p1 (kHz, low, medium, high, highm1), max p2 (kHz, medium,
///               high, highm1), p1 <= p2 where both are numbers;
///   `p1-p2:governor`  a range and a governor.
struct slurm_cpu_freq {
  std::optional<slurm_freq> min;  ///< the frequency, or a range's minimum
  std::optional<slurm_freq> max;  ///< a range's maximum (unset: one fixed frequency)
  std::string governor;           ///< lower case; empty when none was given
  std::string text;               ///< the request as given
  /// A single frequency (`<p1>`).
  bool fixed() const noexcept { return min && !max; }
};

/// Parses `text` (SLURM_CPU_FREQ_REQ). Throws gaea::error naming SLURM_CPU_FREQ_REQ, the text
/// and what is wrong (unknown word, a number that is not a positive kHz count, low as a maximum,
/// a governor outside a range, min above max, trailing text).
slurm_cpu_freq parse_slurm_cpu_freq(std::string_view text);

/// The limits a DVFS actuator keeps to on one CPU, in kHz.
struct khz_limits {
  std::int64_t min_khz = 0;  ///< lowest frequency allowed
  std::int64_t max_khz = 0;  ///< highest frequency allowed
};

/// Resolves `f` against `available` (the CPU's frequencies in kHz, any order, not empty). A number
/// is taken as given (the kernel rounds it). Throws gaea::error when `available` is empty.
std::int64_t resolve_slurm_freq(const slurm_freq& f, std::vector<std::int64_t> available);

/// What an actuator may do under `req` on a CPU with `available` frequencies: the limits of a
/// range, or nullopt with `refusal` saying why DVFS must stay off (a fixed frequency or a
/// governor alone other than userspace: the job's frequency is Slurm's, Gaea does not fight it).
/// A request with neither (`userspace` alone) gives the whole available range.
std::optional<khz_limits> slurm_limits(const slurm_cpu_freq& req,
                                       const std::vector<std::int64_t>& available,
                                       std::string& refusal);

/// Under Slurm (job `job_id`), which energy figure is which: sacct's ConsumedEnergy is the
/// node's (Slurm's acct_gather_energy plugin, every step and process of the job on its nodes),
/// Gaea's is the figure of its own meter over this run. One line, for the report and gaea-info.
std::string slurm_energy_note(std::string_view job_id);

}  // namespace gaea::energy
