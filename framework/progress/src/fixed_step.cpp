// The progress module's settings: GAEA_PROGRESS and those of mode `adaptive_fixed`
// (GAEA_ADAPTIVE_FIXED_*).
#include "gaea/progress/fixed_step.hpp"

#include <string>

#include "gaea/base/env.hpp"
#include "gaea/base/error.hpp"
#include "gaea/progress/settings.hpp"

namespace gaea::progress {

namespace {
// The wait mode and the parameters of mode adaptive_fixed: the progress module's settings.
const env::setting<mode> mode_setting{
    {"GAEA_PROGRESS", "auto",
     "wait mode of the progress thread and of application-thread waits: "
     "auto|spin|adaptive|adaptive_fixed|interrupt|off. spin polls with `pause`; adaptive "
     "spins while traffic is recent, then micro-sleeps with a doubling step; adaptive_fixed "
     "probes and sleeps with a step growing by a fixed amount ([AdaptivePolling Fig. 3], "
     "GAEA_ADAPTIVE_FIXED_*); interrupt blocks in epoll on the UCX "
     "event fd; auto spins while traffic is recent or a latency-critical wait is pending, "
     "micro-sleeps, then blocks once the idle time exceeds the calibrated wake-up cost; off = "
     "no progress thread (a rank serves its peers only inside Gaea calls)",
     env::value_kind::choice, "auto|spin|adaptive|adaptive_fixed|interrupt|off", 0, "progress"}};
const env::setting<std::int64_t> min_setting{
    {"GAEA_ADAPTIVE_FIXED_MIN_NS",
     "0",
     "mode adaptive_fixed: d_min, the first sleep after an arrival, in nanoseconds (a plain "
     "integer; 0 = probe again at once)",
     env::value_kind::size,
     {},
     0,
     "progress"}};
const env::setting<std::int64_t> max_setting{
    {"GAEA_ADAPTIVE_FIXED_MAX_NS",
     "1000",
     "mode adaptive_fixed: d_max, the longest sleep, in nanoseconds (a plain integer, at least "
     "d_min, at most 1000000000)",
     env::value_kind::size,
     {},
     0,
     "progress"}};
const env::setting<std::int64_t> step_setting{
    {"GAEA_ADAPTIVE_FIXED_STEP_NS",
     "1",
     "mode adaptive_fixed: d_step, added to the sleep after every idle probe, in nanoseconds "
     "(a plain integer)",
     env::value_kind::size,
     {},
     1,
     "progress"}};

constexpr const char* min_var = "GAEA_ADAPTIVE_FIXED_MIN_NS";
constexpr const char* max_var = "GAEA_ADAPTIVE_FIXED_MAX_NS";
constexpr const char* step_var = "GAEA_ADAPTIVE_FIXED_STEP_NS";

std::string setting(const char* name, std::int64_t v) {
  return std::string(name) + "=" + std::to_string(v);
}
}  // namespace

void fixed_step_params::validate() const {
  if (min_ns < 0)
    throw error("mode adaptive_fixed: " + setting(min_var, min_ns) +
                " must be at least 0 (nanoseconds)");
  if (step_ns < 1)
    throw error("mode adaptive_fixed: " + setting(step_var, step_ns) +
                " must be at least 1 (nanoseconds)");
  if (max_ns > max_max_ns)
    throw error("mode adaptive_fixed: " + setting(max_var, max_ns) + " must be at most " +
                std::to_string(max_max_ns) + " (one second)");
  if (max_ns < min_ns)
    throw error("mode adaptive_fixed: " + setting(max_var, max_ns) + " is below " +
                setting(min_var, min_ns) + " (d_max must be at least d_min)");
}

fixed_step_params fixed_step_params::from_env() {
  fixed_step_params p;
  p.min_ns = min_setting.read();
  p.max_ns = max_setting.read();
  p.step_ns = step_setting.read();
  p.validate();  // the bounds between them (each alone is checked by its setting)
  return p;
}

mode mode_from_env() {
  return mode_setting.read();
}

}  // namespace gaea::progress
