#pragma once
// The collective subcommands of gaea-coll, one file each (run under mpirun, on coll::world()).

#include <cstddef>
#include <string>
#include <vector>

#include "gaea/coll/estimator.hpp"
#include "gaea/coll/group.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea_coll {

/// The cases validate() measures, in its rows' order.
std::vector<gaea::coll::measure_case> validation_cases(
    const gaea::coll::group& w, const std::vector<gaea::coll::operation>& ops,
    const std::vector<std::size_t>& sizes);

/// Predicted vs measured time and energy of every algorithm of `ops` at `sizes` (alltoall: up to
/// 64 KiB blocks), all measured interleaved in one coll::measure; prints the table and
/// per-algorithm errors on rank 0, writes `json_out` if set. `same_run`: the same cases as
/// measured inside the calibration's run (validate --fresh), compared in extra columns.
int validate(gaea::runtime& rt, const gaea::coll::group& w, const gaea::coll::estimator& e,
             const std::vector<gaea::coll::operation>& ops, const std::vector<std::size_t>& sizes,
             int reps, const std::string& json_out,
             const std::vector<gaea::coll::measurement>* same_run);

/// Measured time of every algorithm of `ops` at every power of two from `min_bytes` to
/// `max_bytes` (interleaved), with each point's own noise; rank 0 prints, writes `json_out`.
int sweep(gaea::runtime& rt, const gaea::coll::group& w,
          const std::vector<gaea::coll::operation>& ops, std::size_t min_bytes,
          std::size_t max_bytes, int reps, const std::string& json_out);

/// Sizes between consecutive calibration sizes (their geometric means, in whole doubles).
std::vector<std::size_t> validation_sizes();

}  // namespace gaea_coll
