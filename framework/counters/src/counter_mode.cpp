// The default counter_mode, from GAEA_COUNTER.

#include "gaea/counters/counter_mode.hpp"

#include <string>

#include "gaea/base/env.hpp"

namespace gaea::counters {

namespace {
const env::setting<counter_mode> counter_setting{
    {"GAEA_COUNTER", "atomic",
     "default mode of shared counters and task pools: atomic (UCX 64-bit atomics: CPU atomics "
     "on a node, NIC atomics on InfiniBand, emulated by the owner's progress thread on tcp) | "
     "progress (an active message served by the owner's progress thread) | owner (served only "
     "when the owner's main thread calls into Gaea: the baseline without asynchronous "
     "progress)",
     env::value_kind::choice, "atomic|progress|owner", 0, "counters"}};
}  // namespace

counter_mode default_counter_mode() {
  return counter_setting.read();
}

namespace detail {
// Called by gaea::gaea's gaea_settings_anchor.cpp so that every program loads this module and
// so registers its settings (cmake/gaea_settings_anchor.cpp says why).
void link_settings() noexcept {}
}  // namespace detail

}  // namespace gaea::counters
