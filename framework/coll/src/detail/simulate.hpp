#pragma once
// The estimator's replay of a collective over every member (see estimator.hpp), shared by the
// predictions and the calibration fit.

#include <array>
#include <cstddef>
#include <vector>

#include "detail/group_state.hpp"
#include "detail/schedule.hpp"
#include "gaea/coll/estimator.hpp"

namespace gaea::coll::detail {

/// Regressors of one prediction: [0] the call overhead, then per (step kind, link class) the
/// number of messages and their bytes on the critical path, and last the local bytes.
inline constexpr std::size_t feature_count =
    2 + static_cast<std::size_t>(step_kind::count_) * 2 * 2;
constexpr std::size_t feature_index(std::size_t kind, int link_class, int bytes) noexcept {
  return 1 + (kind * 2 + static_cast<std::size_t>(link_class)) * 2 +
         static_cast<std::size_t>(bytes);
}

struct sim_result {
  double seconds = 0;  // until the last member ends
  double joules = 0;
  std::array<double, 2> class_seconds{};  // member-seconds in intra (and set-up) / inter rounds
  // member-seconds in each step kind's rounds, [kind][link class]
  std::array<std::array<double, 2>, static_cast<std::size_t>(step_kind::count_)> kind_seconds{};
  // of which the members were busy (injecting, copying out, local work), [kind][link class]
  std::array<std::array<double, 2>, static_cast<std::size_t>(step_kind::count_)>
      kind_busy_seconds{};
  std::vector<double> features;         // of the last member's path (when asked for)
  std::vector<double> member_features;  // summed over every member's path: member-seconds
};

/// The energy of a replayed call from its member-seconds: the per-kind powers where calibrated,
/// else power_w per link class; plus the switches' power over the call when it spans nodes.
double call_energy(const estimator& e, const sim_result& r, int members, int nodes);

sim_result simulate(const estimator& e, operation op, algorithm a, const group_state& g,
                    std::size_t bytes, std::size_t chunk, bool features);

}  // namespace gaea::coll::detail
