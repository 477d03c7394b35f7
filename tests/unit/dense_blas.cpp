// Unit tests of gaea::dense: the BLAS thread policy, Eigen products and solves on strided blocks.

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <cstdlib>
#include <random>

#include "gaea/base/error.hpp"
#include "gaea/dense/blas.hpp"

// Every target with Eigen links gaea::dense, which routes Eigen to OpenBLAS/LAPACKE.
#if !defined(EIGEN_USE_BLAS) || !defined(EIGEN_USE_LAPACKE)
#error "gaea::dense must define EIGEN_USE_BLAS and EIGEN_USE_LAPACKE for its users"
#endif

using gaea::dense::blas_threads;
using gaea::dense::set_blas_threads;

TEST_CASE("dense: the BLAS thread count is set, scoped and restored", "[dense]") {
  set_blas_threads(1);
  CHECK(blas_threads() == 1);
  {
    gaea::dense::scoped_blas_threads two(2);
    CHECK(blas_threads() == 2);
  }
  CHECK(blas_threads() == 1);
  CHECK_THROWS_WITH(set_blas_threads(0), Catch::Matchers::Contains("thread count 0"));
  CHECK(blas_threads() == 1);
  CHECK_FALSE(gaea::dense::blas_description().empty());
}

TEST_CASE("dense: GAEA_BLAS_THREADS applies, and bad values name themselves", "[dense]") {
  unsetenv("GAEA_BLAS_THREADS");
  set_blas_threads(2);
  CHECK(gaea::dense::apply_blas_threads_setting() == 1);  // the default: one thread per rank
  CHECK(blas_threads() == 1);
  setenv("GAEA_BLAS_THREADS", "2", 1);
  CHECK(gaea::dense::apply_blas_threads_setting() == 2);
  CHECK(blas_threads() == 2);
  for (const char* bad : {"0", "-3", "two", "1.5", "8K"}) {
    setenv("GAEA_BLAS_THREADS", bad, 1);
    CHECK_THROWS_WITH(
        gaea::dense::apply_blas_threads_setting(),
        Catch::Matchers::Contains("GAEA_BLAS_THREADS") && Catch::Matchers::Contains(bad));
  }
  CHECK(blas_threads() == 2);  // a refused value changes nothing
  unsetenv("GAEA_BLAS_THREADS");
  set_blas_threads(1);
}

TEST_CASE("dense: products and solves on strided row-major blocks match a plain loop", "[dense]") {
  // The LU tiles and ga::gemm multiply row-major blocks inside larger storage; through BLAS these
  // become transposed column-major calls with a leading dimension, which this checks.
  using row_matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using block = Eigen::Map<row_matrix, Eigen::Unaligned, Eigen::OuterStride<>>;
  const Eigen::Index m = 37, k = 29, n = 41, ld = 64;
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> u(-1, 1);
  row_matrix sa(m, ld), sb(k, ld), sc(m, ld);
  for (auto* s : {&sa, &sb, &sc})
    for (Eigen::Index i = 0; i < s->size(); ++i)
      s->data()[i] = u(gen);
  const row_matrix c0 = sc;
  block a(sa.data(), m, k, Eigen::OuterStride<>(ld)), b(sb.data(), k, n, Eigen::OuterStride<>(ld)),
      c(sc.data(), m, n, Eigen::OuterStride<>(ld));
  c.noalias() -= a * b;
  double worst = 0;
  for (Eigen::Index i = 0; i < m; ++i)
    for (Eigen::Index j = 0; j < n; ++j) {
      double ref = c0(i, j);
      for (Eigen::Index l = 0; l < k; ++l)
        ref -= sa(i, l) * sb(l, j);
      worst = std::max(worst, std::abs(ref - sc(i, j)));
    }
  CHECK(worst < 1e-12);
  for (Eigen::Index i = 0; i < m; ++i)  // columns beyond n are outside the block: untouched
    for (Eigen::Index j = n; j < ld; ++j)
      REQUIRE(sc(i, j) == c0(i, j));

  // A symmetric eigenproblem through LAPACKE: A·v = λ·v for every pair.
  Eigen::MatrixXd s = Eigen::MatrixXd::Random(30, 30);
  s = (s + s.transpose()).eval();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(s);
  REQUIRE(es.info() == Eigen::Success);
  const Eigen::MatrixXd r =
      s * es.eigenvectors() - es.eigenvectors() * es.eigenvalues().asDiagonal();
  CHECK(r.cwiseAbs().maxCoeff() < 1e-11);
}
