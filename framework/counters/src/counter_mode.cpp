// The default counter_mode, from GAEA_COUNTER.

#include "gaea/counters/counter_mode.hpp"

#include <string>

#include "gaea/base/env.hpp"

namespace gaea::counters {

counter_mode default_counter_mode() {
  return env::get_enum<counter_mode>("GAEA_COUNTER");
}

}  // namespace gaea::counters
