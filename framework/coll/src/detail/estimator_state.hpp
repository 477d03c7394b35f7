#pragma once
// The estimator as the selection sees it: the cheapest algorithm by the loaded calibration.

#include <optional>

#include "detail/group_state.hpp"
#include "detail/registry.hpp"

namespace gaea::coll::detail {

/// nullopt without a calibration (GAEA_COLL_CALIBRATION unset).
std::optional<algorithm> estimator_choice(const group_state& g, const call_shape& c);

}  // namespace gaea::coll::detail
