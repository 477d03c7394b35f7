#include "detail/estimator_state.hpp"

namespace gaea::coll::detail {

std::optional<algorithm> estimator_choice(const group_state&, const call_shape&) {
  return std::nullopt;
}

}  // namespace gaea::coll::detail
