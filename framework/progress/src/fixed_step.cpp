// Reading and checking the settings of mode `adaptive_fixed` (GAEA_ADAPTIVE_FIXED_*).
#include "gaea/progress/fixed_step.hpp"

#include <string>

#include "gaea/base/env.hpp"
#include "gaea/base/error.hpp"

namespace gaea::progress {

namespace {
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
  p.min_ns = env::get_int(min_var);
  p.max_ns = env::get_int(max_var);
  p.step_ns = env::get_int(step_var);
  p.validate();
  return p;
}

}  // namespace gaea::progress
