#pragma once
// Helpers the three app models share: placement of ranks on nodes, a batch of non-blocking
// requests, and the checks of their inputs.

#include <algorithm>
#include <cstdint>
#include <string>

#include "gaea/base/error.hpp"
#include "gaea/coll/options.hpp"
#include "gaea/model/machine.hpp"

namespace gaea::model::detail {

/// Ranks per node actually used by `ranks` ranks (the machine's default, at most `ranks`).
inline std::int64_t ranks_per_node(const machine& m, std::int64_t ranks) {
  return std::max<std::int64_t>(1, std::min(m.ranks_per_node, ranks));
}

/// Latency added each way on an inter-node message among the nodes `ranks` ranks occupy.
inline double hops_s(const machine& m, std::int64_t ranks) {
  return m.mean_hop_s(machine::nodes_for(ranks, ranks_per_node(m, ranks)));
}

/// `count` non-blocking requests of `single_s` each, issued back to back and then waited for:
/// their round trips overlap, so every request after the first adds its time less the round
/// trip's latency (2 L + hops), never less than the origin's cost per further message of a
/// batch (link_params::g).
inline double batch_s(std::int64_t count, double single_s, double round_trip_s, double gap_s) {
  if (count <= 0) return 0;
  const double next = std::max(gap_s, single_s - round_trip_s);
  return single_s + static_cast<double>(count - 1) * next;
}

/// Round-trip latency of one message over link `c` with `hop` seconds added each way.
inline double round_trip_s(const machine& m, link_class c, double hop) {
  return 2 * (m.params(c).L + (c == link_class::inter ? hop : 0));
}

inline void require_positive(std::int64_t v, const char* what, const std::string& model) {
  if (v < 1)
    throw error("model " + model + ": " + what + " = " + std::to_string(v) + " must be >= 1");
}

inline double ceil_div(std::int64_t a, std::int64_t b) {
  return static_cast<double>((a + b - 1) / b);
}

}  // namespace gaea::model::detail
