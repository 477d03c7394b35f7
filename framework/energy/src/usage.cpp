// rank_usage(): what the model meter charges a rank, from its CPU time, the DVFS actuator and the
// throttle.

#include <algorithm>
#include <cmath>

#include "gaea/energy/actuator.hpp"
#include "gaea/energy/meter.hpp"
#include "gaea/energy/throttle.hpp"

namespace gaea::energy {

usage_snapshot rank_usage(const model_params& p, double wall_s, double cpu_s, double low_cpu_s,
                          const actuator& dvfs, const throttle& thr, int cpu) {
  usage_snapshot u;
  u.wall_seconds = wall_s;
  cpu_s = std::max(cpu_s, 0.0);
  const double low = std::clamp(low_cpu_s, 0.0, cpu_s);
  std::int64_t low_khz = p.f_min_khz;
  if (dvfs.active()) {
    const std::int64_t hi = dvfs.high_khz(cpu), lo = dvfs.low_khz(cpu);
    if (hi > 0 && lo > 0) low_khz = p.f_max_khz * lo / hi;
  }
  // Linear in the duty: one mean duty per share charges exactly what the levels would.
  const double duty =
      mean_duty(thr.cpu_ns_by_level(), static_cast<std::int64_t>(std::llround(cpu_s * 1e9)));
  u.shares = {{cpu_s - low, p.f_max_khz, duty}, {low, low_khz, duty}};
  u.transitions = dvfs.transition_count();
  u.throttle_transitions = thr.transition_count();
  return u;
}

}  // namespace gaea::energy
