#pragma once
/// \file
/// Dense kernels of the LU mini-app on row-major blocks (Eigen): panel factorisation with or
/// without partial pivoting, the two triangular solves and the Schur-complement update.

#include <Eigen/Dense>

#include <cstdint>
#include <span>

namespace lu {

using index_t = std::int64_t;
using row_matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
/// A row-major block inside larger storage (leading dimension = outer stride).
using block_map = Eigen::Map<row_matrix, Eigen::Unaligned, Eigen::OuterStride<>>;
using const_block_map = Eigen::Map<const row_matrix, Eigen::Unaligned, Eigen::OuterStride<>>;

inline block_map map_block(double* p, index_t rows, index_t cols, index_t ld) {
  return {p, rows, cols, Eigen::OuterStride<>(ld)};
}
inline const_block_map const_map_block(const double* p, index_t rows, index_t cols, index_t ld) {
  return {p, rows, cols, Eigen::OuterStride<>(ld)};
}

/// Factors the m×n block `a` (m >= n) in place as P·a = L·U: L unit lower (m×n, below the
/// diagonal), U upper (n×n). Blocked right-looking with inner width 32.
/// `pivots`: null for no pivoting; otherwise n entries, pivots[c] = local row swapped with row c
/// (LAPACK getrf convention, 0-based); whole rows of `a` are swapped.
/// Returns false if a zero pivot was met (the factors are then incomplete; `zero_column`, when
/// given, receives its local column). Not thread-safe on the same block.
bool factor_panel(block_map a, index_t* pivots, index_t* zero_column = nullptr);

/// b := b · U⁻¹ with U the upper triangle of `u` (non-unit): the L blocks below the diagonal.
void solve_upper_right(const_block_map u, block_map b);
/// b := L⁻¹ · b with L the unit lower triangle of `l`: the U blocks right of the diagonal.
void solve_unit_lower_left(const_block_map l, block_map b);
/// c := c − a·b (the trailing update, GEMM).
void subtract_product(block_map c, const_block_map a, const_block_map b);

/// Gflop/s of subtract_product on an m×k by k×n product on the calling thread: the median of
/// repeated calls over at least `seconds` (and three calls). The LU's per-core ceiling.
double gemm_gflops(index_t m, index_t k, index_t n, double seconds);

/// Swaps rows i and pivots[i] of `a`, for i = 0..pivots.size()-1 in order (row indices local).
void apply_row_swaps(block_map a, std::span<const index_t> pivots);

}  // namespace lu
