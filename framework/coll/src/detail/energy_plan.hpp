#pragma once
// The per-call energy strategy of [A2A-Energy]: the lowest frequency for the whole call, and a
// throttle level per step chosen for the whole node: T0 when any core of the node copies inside
// the node (intra-node transfers or local work), T5 when every core only talks across nodes, T7
// when every core is idle in that step.

#include <cstddef>
#include <vector>

#include "detail/group_state.hpp"
#include "gaea/coll/options.hpp"

namespace gaea::coll::detail {

inline constexpr int level_intra = 0, level_inter = 5, level_idle = 7;

/// Throttle level of each round of `me`'s schedule, from the patterns of every member on its
/// node (round i of each, shapes from shape_schedule).
std::vector<int> node_levels(const group_state& g, int me, operation op, algorithm a,
                             std::size_t bytes, std::size_t chunk);

/// The automatic mode's test: the strategy's transitions (`transitions_s`) may add at most
/// `max_slowdown` (GAEA_MAX_SLOWDOWN) of the call's predicted time.
bool worth_saving(double predicted_s, double transitions_s, double max_slowdown) noexcept;

}  // namespace gaea::coll::detail
