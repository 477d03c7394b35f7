#pragma once
// The estimator's fit ([Bcast-Energy]): from measured calls to the parameters that predict them.

#include <cstddef>
#include <vector>

#include "detail/group_state.hpp"
#include "gaea/coll/estimator.hpp"

namespace gaea::coll::detail {

/// One measured call: `op` by `algo` on `bytes` (as estimator::predict reads them).
struct calibration_point {
  operation op;
  algorithm algo;
  std::size_t bytes;
  measurement m;
};

/// Fits `e`'s per-operation parameters (call overhead, start-ups, factors on the message curves,
/// copy rate) and its powers to `pts`, measured on a group shaped as `model`; `e.message` must
/// already hold the curves. Per operation, weighted least squares on the relative error of the
/// totals, the factors and the copy rate kept non-negative (active set); the regressors are the
/// critical path's message counts and curve times, re-derived from the replay until they settle.
/// Reduce takes allreduce's parameters. Returns how well the fit reproduces `pts` (mean |relative
/// error| of the slowest member's time).
double fit(estimator& e, const group_state& model, const std::vector<calibration_point>& pts);

}  // namespace gaea::coll::detail
