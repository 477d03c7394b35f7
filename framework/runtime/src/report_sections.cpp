// The runtime's own GAEA_REPORT sections: the throttle's transitions and throttled time, and the
// transport's remote-key caches.

#include <vector>

#include "detail/runtime_state.hpp"
#include "gaea/comm/op_stats.hpp"
#include "gaea/runtime/extension.hpp"

namespace gaea::detail {

void add_runtime_report_sections(runtime& rt, runtime_state& st) {
  add_report_section(
      rt, "throttle", {report_count("transitions"), "throttled_cpu_s", "idle_cycle_cpu_s"}, [&st] {
        energy::throttle& thr = *st.energy->throttle;
        const energy::level_times t = thr.cpu_ns_by_level();
        double throttled = 0, idle = 0;
        for (int j = 1; j < energy::throttle_levels; ++j) {
          const double s = static_cast<double>(t[static_cast<std::size_t>(j)]) * 1e-9;
          throttled += s;
          idle += s * j / energy::throttle_levels;
        }
        return std::vector<double>{static_cast<double>(thr.transition_count()), throttled, idle};
      });
  // The workers' remote-key caches (GAEA_RKEY_CACHE): misses past the first use of each key
  // and evictions say the working set of (segment, peer) keys exceeds the cache.
  add_report_section(rt, "remote keys",
                     {report_count("hits"), report_count("misses"), report_count("evictions")},
                     [&st] {
                       const comm::op_totals t = st.comm->operation_totals();
                       return std::vector<double>{static_cast<double>(t.key_hits),
                                                  static_cast<double>(t.key_misses),
                                                  static_cast<double>(t.key_evictions)};
                     });
}

}  // namespace gaea::detail
