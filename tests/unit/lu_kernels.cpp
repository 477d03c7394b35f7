// LU mini-app kernels on one process: the panel factorisation with and without pivoting
// reconstructs its input, the triangular solves invert, and the generator is a pure function.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "kernels.hpp"
#include "matrix_gen.hpp"

using namespace lu;

namespace {

row_matrix random_matrix(index_t rows, index_t cols, std::uint64_t seed, bool dominant) {
  row_matrix a(rows, cols);
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j)
      a(i, j) = matrix_element(dominant ? matrix_kind::diag_dominant : matrix_kind::general, seed,
                               cols, i, j);
  return a;
}

// ‖P·a − L·U‖_F / ‖a‖_F for the factors packed in f (m×n, m >= n) and LAPACK-style pivots.
double reconstruction_error(const row_matrix& a, const row_matrix& f,
                            const std::vector<index_t>& piv) {
  const index_t m = f.rows(), n = f.cols();
  row_matrix l = row_matrix::Zero(m, n), u = f.topRows(n).triangularView<Eigen::Upper>();
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < std::min(i, n); ++j)
      l(i, j) = f(i, j);
  for (index_t i = 0; i < n; ++i)
    l(i, i) = 1.0;
  row_matrix pa = a;
  for (std::size_t r = 0; r < piv.size(); ++r)
    pa.row(static_cast<index_t>(r)).swap(pa.row(piv[r]));
  return (pa - l * u).norm() / a.norm();
}

}  // namespace

TEST_CASE("lu kernels: panel factorisation without pivoting reconstructs A", "[lu]") {
  for (index_t n : {1, 5, 32, 33, 100}) {
    const row_matrix a = random_matrix(n, n, 7, true);
    row_matrix f = a;
    REQUIRE(factor_panel(map_block(f.data(), n, n, n), nullptr));
    CHECK(reconstruction_error(a, f, {}) < 1e-14);
  }
}

TEST_CASE("lu kernels: tall panel with partial pivoting reconstructs P A", "[lu]") {
  for (auto [m, n] : {std::pair<index_t, index_t>{70, 40}, {100, 100}, {129, 33}}) {
    const row_matrix a = random_matrix(m, n, 11, false);
    row_matrix f = a;
    std::vector<index_t> piv(static_cast<std::size_t>(n), -1);
    REQUIRE(factor_panel(map_block(f.data(), m, n, n), piv.data()));
    for (index_t c = 0; c < n; ++c) {
      CHECK(piv[static_cast<std::size_t>(c)] >= c);
      CHECK(piv[static_cast<std::size_t>(c)] < m);
    }
    // Partial pivoting bounds every multiplier by 1.
    CHECK(f.bottomRows(m - 1)
              .cwiseAbs()
              .triangularView<Eigen::StrictlyLower>()
              .toDenseMatrix()
              .maxCoeff() <= 1.0);
    CHECK(reconstruction_error(a, f, piv) < 1e-13);
  }
}

TEST_CASE("lu kernels: a zero pivot is reported without pivoting, avoided with it", "[lu]") {
  row_matrix a{{0.0, 1.0}, {1.0, 1.0}};
  row_matrix f = a;
  CHECK_FALSE(factor_panel(map_block(f.data(), 2, 2, 2), nullptr));
  f = a;
  std::vector<index_t> piv(2);
  CHECK(factor_panel(map_block(f.data(), 2, 2, 2), piv.data()));
  CHECK(piv[0] == 1);
}

TEST_CASE("lu kernels: a singular matrix names the column of its zero pivot", "[lu]") {
  // Column 2 is zero: no row swap can give it a pivot.
  row_matrix f{{2.0, 1.0, 0.0}, {1.0, 3.0, 0.0}, {4.0, 1.0, 0.0}};
  std::vector<index_t> piv(3);
  index_t column = -1;
  CHECK_FALSE(factor_panel(map_block(f.data(), 3, 3, 3), piv.data(), &column));
  CHECK(column == 2);
}

TEST_CASE("lu kernels: triangular solves and the update", "[lu]") {
  const index_t n = 24, k = 10;
  row_matrix f = random_matrix(n, n, 3, true);
  REQUIRE(factor_panel(map_block(f.data(), n, n, n), nullptr));
  const row_matrix b = random_matrix(k, n, 5, false);
  // B · U⁻¹ · U == B and L⁻¹ · B' · ... == B'.
  row_matrix x = b;
  solve_upper_right(const_map_block(f.data(), n, n, n), map_block(x.data(), k, n, n));
  CHECK((x * row_matrix(f.triangularView<Eigen::Upper>()) - b).norm() < 1e-12 * b.norm());
  const row_matrix bt = b.transpose();
  row_matrix y = bt;
  solve_unit_lower_left(const_map_block(f.data(), n, n, n), map_block(y.data(), n, k, k));
  CHECK((row_matrix(f.triangularView<Eigen::UnitLower>()) * y - bt).norm() < 1e-12 * b.norm());
  row_matrix c = row_matrix::Ones(k, k), c0 = c;
  subtract_product(map_block(c.data(), k, k, k), const_map_block(b.data(), k, n, n),
                   const_map_block(bt.data(), n, k, k));
  CHECK((c - (c0 - b * bt)).norm() < 1e-12);
}

TEST_CASE("lu generator: elements depend only on (seed, i, j)", "[lu]") {
  CHECK(matrix_element(matrix_kind::general, 1, 10, 3, 4) ==
        matrix_element(matrix_kind::general, 1, 10, 3, 4));
  CHECK(matrix_element(matrix_kind::general, 1, 10, 3, 4) !=
        matrix_element(matrix_kind::general, 2, 10, 3, 4));
  CHECK(matrix_element(matrix_kind::general, 1, 10, 3, 4) !=
        matrix_element(matrix_kind::general, 1, 10, 4, 3));
  // Diagonally dominant: |a_ii| > sum of |a_ij| over the row.
  const index_t n = 50;
  for (index_t i = 0; i < n; ++i) {
    double off = 0;
    for (index_t j = 0; j < n; ++j)
      if (j != i) off += std::abs(matrix_element(matrix_kind::diag_dominant, 9, n, i, j));
    CHECK(std::abs(matrix_element(matrix_kind::diag_dominant, 9, n, i, i)) > off);
    CHECK(std::abs(rhs_element(9, i)) <= 0.5);
  }
}

TEST_CASE("lu generator: fill_block gives matrix_element's values, diagonal included", "[lu]") {
  const index_t n = 40, ld = 13;
  for (const matrix_kind kind : {matrix_kind::general, matrix_kind::diag_dominant})
    for (const auto& [i0, j0] : {std::pair<index_t, index_t>{0, 0}, {5, 9}, {12, 3}, {30, 30}}) {
      const index_t rows = 10, cols = 11;
      std::vector<double> out(static_cast<std::size_t>(rows * ld), -7.0);
      fill_block(kind, 3, n, i0, j0, rows, cols, out.data(), ld);
      for (index_t i = 0; i < rows; ++i) {
        for (index_t j = 0; j < cols; ++j)
          CHECK(out[static_cast<std::size_t>(i * ld + j)] ==
                matrix_element(kind, 3, n, i0 + i, j0 + j));
        CHECK(out[static_cast<std::size_t>(i * ld + cols)] == -7.0);  // beyond cols: untouched
      }
    }
}
