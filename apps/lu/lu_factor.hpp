#pragma once
/// \file
/// Distributed right-looking blocked LU of a tiled_matrix, in place (L unit lower below the
/// diagonal, U on and above it).

#include <string>
#include <vector>

#include "task_runner.hpp"
#include "tiled_matrix.hpp"
#include "timings.hpp"

namespace lu {

struct factor_options {
  /// Prefetch the next panel with non-blocking gets while the trailing update runs (lookahead
  /// of one panel). Off: the same gets are issued and waited for before the update.
  bool overlap = true;
  /// Partial pivoting with LAPACK dgetrf's pivots: the panel is factored by its process column
  /// (pivot search combined over the column), with the same lookahead and L-panel prefetch.
  bool pivot = false;
};

struct factor_result {
  lu_timings times;
  /// With pivoting: pivots[r] = global row swapped with row r, applied for r = 0..n-1 in order
  /// (replicated on every rank). Empty without pivoting.
  std::vector<index_t> pivots;
  /// Column (= elimination step) of the first zero pivot met on this rank (-1: none). The
  /// factors are then unusable.
  index_t zero_pivot = -1;
};

/// Collective. Factors `m` in place. Tile kernels run in `tasks`.
factor_result factor(tiled_matrix& m, const factor_options& opt, task_runner& tasks);

}  // namespace lu
