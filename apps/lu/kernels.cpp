// gaea-lu's dense tile kernels on Eigen: panel factorisation, triangular solves, Schur update.

#include "kernels.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace lu {

namespace {

constexpr index_t inner_width = 32;

// Unblocked right-looking LU of the m×w column strip starting at column c0 of `a` (rows c0..m-1).
// With pivoting, rows are swapped across the whole width of `a`. Returns the column of the first
// zero pivot, -1 when there is none.
index_t factor_strip(block_map& a, index_t c0, index_t w, index_t* pivots) {
  const index_t m = a.rows();
  for (index_t c = c0; c < c0 + w; ++c) {
    if (pivots) {
      index_t p = c;
      a.col(c).tail(m - c).cwiseAbs().maxCoeff(&p);
      p += c;
      pivots[c] = p;
      if (p != c) a.row(c).swap(a.row(p));
    }
    const double d = a(c, c);
    if (d == 0.0) return c;
    const index_t below = m - c - 1, right = c0 + w - c - 1;
    if (below == 0) continue;
    a.col(c).tail(below) /= d;
    if (right > 0)
      a.block(c + 1, c + 1, below, right).noalias() -=
          a.col(c).tail(below) * a.row(c).segment(c + 1, right);
  }
  return -1;
}

}  // namespace

bool factor_panel(block_map a, index_t* pivots, index_t* zero_column) {
  const index_t m = a.rows(), n = a.cols();
  if (pivots && m > 0 && n > 0) {
    // LAPACK's getrf (recursive, on OpenBLAS): BLAS-3 inside the panel, unlike the strips
    // below. The _work form: no NaN scan of the input (a NaN must reach the checks).
    std::vector<lapack_int> ipiv(static_cast<std::size_t>(std::min(m, n)));
    const lapack_int info = LAPACKE_dgetrf_work(
        LAPACK_ROW_MAJOR, static_cast<lapack_int>(m), static_cast<lapack_int>(n), a.data(),
        static_cast<lapack_int>(a.outerStride()), ipiv.data());
    if (info < 0)
      throw std::invalid_argument("factor_panel: LAPACKE_dgetrf_work argument " +
                                  std::to_string(-info) + " is invalid");
    for (std::size_t c = 0; c < ipiv.size(); ++c)
      pivots[c] = static_cast<index_t>(ipiv[c]) - 1;  // 1-based to 0-based
    if (info > 0) {
      if (zero_column) *zero_column = info - 1;
      return false;
    }
    return true;
  }
  for (index_t c0 = 0; c0 < n; c0 += inner_width) {
    const index_t w = std::min(inner_width, n - c0);
    if (const index_t c = factor_strip(a, c0, w, pivots); c >= 0) {
      if (zero_column) *zero_column = c;
      return false;
    }
    const index_t right = n - c0 - w;
    if (right == 0) continue;
    // U row strip: L11⁻¹ · A12, then the Schur complement A22 -= L21 · U12.
    auto l11 = a.block(c0, c0, w, w);
    auto a12 = a.block(c0, c0 + w, w, right);
    l11.triangularView<Eigen::UnitLower>().solveInPlace(a12);
    const index_t below = m - c0 - w;
    if (below > 0)
      a.block(c0 + w, c0 + w, below, right).noalias() -= a.block(c0 + w, c0, below, w) * a12;
  }
  return true;
}

void solve_upper_right(const_block_map u, block_map b) {
  u.triangularView<Eigen::Upper>().solveInPlace<Eigen::OnTheRight>(b);
}

void solve_unit_lower_left(const_block_map l, block_map b) {
  l.triangularView<Eigen::UnitLower>().solveInPlace(b);
}

void subtract_product(block_map c, const_block_map a, const_block_map b) {
  c.noalias() -= a * b;
}

double gemm_gflops(index_t m, index_t k, index_t n, double seconds) {
  using clock = std::chrono::steady_clock;
  row_matrix a = row_matrix::Random(m, k), b = row_matrix::Random(k, n), c = row_matrix::Zero(m, n);
  const double flops =
      2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n);
  std::vector<double> rates;
  const auto end = clock::now() + std::chrono::duration<double>(seconds);
  do {
    const auto t0 = clock::now();
    subtract_product(map_block(c.data(), m, n, n), const_map_block(a.data(), m, k, k),
                     const_map_block(b.data(), k, n, n));
    rates.push_back(flops / std::chrono::duration<double>(clock::now() - t0).count() * 1e-9);
  } while (clock::now() < end || rates.size() < 3);
  std::nth_element(rates.begin(), rates.begin() + static_cast<std::ptrdiff_t>(rates.size() / 2),
                   rates.end());
  return rates[rates.size() / 2];
}

void apply_row_swaps(block_map a, std::span<const index_t> pivots) {
  for (std::size_t i = 0; i < pivots.size(); ++i) {
    const auto r = static_cast<index_t>(i);
    if (pivots[i] != r) a.row(r).swap(a.row(pivots[i]));
  }
}

}  // namespace lu
