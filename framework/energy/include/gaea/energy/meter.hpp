#pragma once
/// \file
/// Energy meters: RAPL through powercap, perf `power/` events, and the model. A meter is trusted
/// only after it proves itself (readable, and its count grows under load): some machines expose a
/// RAPL perf event that always reads 0 J, which must lose to the model.

#include <array>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gaea/energy/model.hpp"

namespace gaea::energy {

/// The kinds select_meter() accepts: GAEA_ENERGY_METER's choices.
inline constexpr std::array<std::string_view, 6> meter_kinds{"auto",     "rapl",  "perf",
                                                             "msr-safe", "geopm", "model"};

/// Thread safety: joules() may be called from any thread, one at a time.
class meter {
 public:
  virtual ~meter() = default;
  /// "rapl-powercap", "perf-power", "msr-safe-rapl", "geopm" or "model".
  virtual std::string_view name() const noexcept = 0;
  /// True for hardware counters, false for the model (every figure says which).
  virtual bool measured() const noexcept = 0;
  /// Energy in joules since the meter was created (wrap-around handled); nullopt if a read fails.
  virtual std::optional<double> joules() = 0;
  /// What the figure covers, e.g. "package 0-1 (whole node)" or "model of this rank".
  virtual std::string scope() const = 0;
};

/// RAPL via /sys/class/powercap/intel-rapl:N (packages only, not subzones), handling wrap-around
/// with max_energy_range_uj. nullptr (and `why`) when absent or unreadable (root-only since 5.10).
/// A wrap is seen only if joules() runs at least once per wrap period (max_energy_range_uj /
/// package power: typically tens of minutes); call it periodically on long runs.
std::unique_ptr<meter> make_rapl_meter(const std::filesystem::path& root, std::string& why);
/// perf `power/energy-pkg/` (type from .../event_source/devices/power/type, config and scale from
/// its events/ files), opened per package. nullptr (and `why`) when absent or not permitted.
std::unique_ptr<meter> make_perf_meter(const std::filesystem::path& root, std::string& why);

/// RAPL through msr-safe: MSR_PKG_ENERGY_STATUS (0x611, 32-bit counter) of each package's first
/// CPU, read through /dev/cpu/N/msr_safe, in the unit of MSR_RAPL_POWER_UNIT (0x606, bits 12:8:
/// 1/2^ESU J). Where /dev/cpu/msr_allowlist is readable it must list both registers. nullptr
/// (and `why`, with what a site must allow) otherwise. joules() must run at least once per wrap
/// of the 32-bit counter (minutes at full load).
std::unique_ptr<meter> make_msr_safe_meter(const std::filesystem::path& root, std::string& why);

/// GEOPM: the board's CPU_ENERGY signal (joules) through `geopmread CPU_ENERGY board 0`, the
/// tool from GAEA_GEOPM_BIN_DIR or PATH. nullptr (and `why`, with what a site must enable) when
/// the tool is missing or the read fails. Each joules() runs geopmread (about a millisecond).
std::unique_ptr<meter> make_geopm_meter(std::string& why);

/// Inputs of the model meter, supplied by whoever tracks threads (the progress engine): CPU time
/// of every thread of the rank split by frequency and duty, and the transitions so far.
struct usage_snapshot {
  double wall_seconds = 0;                 ///< wall time covered
  std::vector<cpu_share> shares;           ///< CPU time by frequency and duty
  std::uint64_t transitions = 0;           ///< DVFS transitions
  std::uint64_t throttle_transitions = 0;  ///< throttle (clock-modulation) transitions
};

class actuator;
class throttle;
/// The model's inputs for one rank: `wall_s` seconds, `cpu_s` seconds of CPU time of which
/// `low_cpu_s` ran while the DVFS actuator had the rank's CPU lowered. The low share is charged
/// at f_max * low_khz(cpu) / high_khz(cpu) (a frequency ratio: DVFS changes frequency only), or
/// at f_min when `dvfs` is inactive; the rest at f_max. Both shares get the mean duty of what
/// `thr` recorded (mean_duty of its cpu_ns_by_level() over `cpu_s`: throttled CPU time is taken
/// to be spread over the two frequencies in proportion). Transitions: those of both.
usage_snapshot rank_usage(const model_params& p, double wall_s, double cpu_s, double low_cpu_s,
                          const actuator& dvfs, const throttle& thr, int cpu);
/// Supplies the model meter's current usage.
using usage_source = std::function<usage_snapshot()>;
/// The model as a meter: joules() = model_energy_j(usage()) minus the value at creation.
std::unique_ptr<meter> make_model_meter(model_params p, usage_source usage);

/// Keeps the calling thread busy for `d` (a loop the compiler cannot remove): the default load
/// with which meters prove themselves. Thread-safe.
void burn_cpu(std::chrono::milliseconds d);

/// Result of prove().
struct proof {
  bool ok = false;  ///< the meter counted the load
  std::string why;  ///< e.g. "read 0.000 J over 30 ms of load" or "increased by 1.2 J"
};
/// Reads `m`, runs `load` (a short CPU burn), reads again: ok only if both reads succeed and the
/// count grew by more than zero.
proof prove(meter& m, const std::function<void()>& load);

/// GAEA_ENERGY_METER, "auto" when unset or empty: the kind to give select_meter(). Throws
/// gaea::error naming the variable and the value unless it is one of meter_kinds. Local,
/// thread-safe.
std::string meter_kind_from_env();

/// What select_meter chose, why, and what it rejected.
struct meter_choice {
  std::unique_ptr<meter> m;           ///< the chosen meter
  std::string reason;                 ///< one line
  std::vector<std::string> rejected;  ///< "perf-power: read 0 J under load" ...
};
/// `kind`: auto|rapl|perf|msr-safe|geopm|model (GAEA_ENERGY_METER). auto tries RAPL, then perf,
/// then msr-safe, then GEOPM, each proved with
/// `load`, and falls back to the model; an explicit hardware kind that fails to prove itself also
/// falls back to the model, saying so. Unknown kind: gaea::error.
meter_choice select_meter(std::string_view kind, const std::filesystem::path& root,
                          model_params params, usage_source usage,
                          const std::function<void()>& load);

}  // namespace gaea::energy
