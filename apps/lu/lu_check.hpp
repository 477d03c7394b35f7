#pragma once
/// \file
/// Solving A x = b with the distributed factors, and the correctness checks of the LU mini-app.

#include <functional>
#include <span>
#include <vector>

#include "tiled_matrix.hpp"

namespace lu {

/// Fills `out` (rows×cols, row-major) with tile (ti, tj) of the *original* matrix A.
/// Called for this rank's tiles only; must be thread-safe for distinct tiles.
using tile_source =
    std::function<void(index_t ti, index_t tj, index_t rows, index_t cols, double* out)>;

/// HPL's acceptance bound on the scaled residual.
inline constexpr double residual_threshold = 16.0;
/// Bound on ‖PA − LU‖_F / (‖A‖_F N ε) (LAPACK's test suite uses 30 for its getrf ratio).
inline constexpr double factor_threshold = 30.0;

struct check_report {
  double residual_inf = 0;     ///< ‖Ax − b‖∞
  double a_inf = 0;            ///< ‖A‖∞
  double x_inf = 0;            ///< ‖x‖∞
  double scaled_residual = 0;  ///< ‖Ax − b‖∞ / (‖A‖∞ ‖x‖∞ N ε)
  bool factor_checked = false;
  double factor_error = 0;   ///< ‖PA − LU‖_F / ‖A‖_F
  double factor_scaled = 0;  ///< factor_error / (N ε)
  /// Both checks within their bounds (NaN fails).
  bool passed() const noexcept {
    return scaled_residual < residual_threshold &&
           (!factor_checked || factor_scaled < factor_threshold);
  }
};

/// Collective. Solves A x = b with the factors held in `m` (and the row swaps `pivots`, empty
/// without pivoting) by block forward and back substitution: the owner of each diagonal tile
/// solves its block, the owners of the tiles below (above) it get the solved piece and
/// accumulate their products into a distributed partial-sum vector. Returns x on every rank.
/// `b` is replicated (n entries).
std::vector<double> solve(tiled_matrix& m, std::span<const index_t> pivots,
                          std::span<const double> b);

/// Collective. Residual of x against the original matrix (from `a`), and, when `with_factor`,
/// ‖PA − LU‖_F / ‖A‖_F (gathers the n×n factors on every rank: small n only).
check_report check(tiled_matrix& m, std::span<const index_t> pivots, const tile_source& a,
                   std::span<const double> b, std::span<const double> x, bool with_factor);

/// Not collective. The first row (counting from 0) where `pivots` differ from serial LAPACK
/// dgetrf's on the n×n matrix given by `a` (tile by tile, tiles of `m`), or -1 when they all
/// agree. Holds the whole matrix: small n only.
index_t first_pivot_difference(const tiled_matrix& m, std::span<const index_t> pivots,
                               const tile_source& a);

}  // namespace lu
