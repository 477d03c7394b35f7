// gaea::dense: dense linear algebra with Eigen's API on an optimized BLAS and LAPACK. Linking
// gaea::dense makes Eigen's products call dgemm and its decompositions call LAPACK. The example
// builds a symmetric positive definite system, solves it with a Cholesky factorisation and an
// eigendecomposition, and checks both against each other and the residual. Single process.
#include <cstdio>
#include <string>

#include <Eigen/Dense>

#include "gaea/dense/blas.hpp"

int main() {
  // Gaea's ranks are its parallelism: BLAS runs one thread unless told otherwise
  // (GAEA_BLAS_THREADS, or set_blas_threads / scoped_blas_threads in a program).
  const int threads = gaea::dense::apply_blas_threads_setting();
  gaea::dense::scoped_blas_threads one(1);  // this section: one BLAS thread

  const Eigen::Index n = 300;
  const Eigen::MatrixXd m = Eigen::MatrixXd::Random(n, n);
  const Eigen::MatrixXd a =
      m.transpose() * m + static_cast<double>(n) * Eigen::MatrixXd::Identity(n, n);  // dgemm
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, 1.0, 2.0);

  const Eigen::LLT<Eigen::MatrixXd> llt(a);  // LAPACK potrf
  const Eigen::VectorXd x = llt.solve(b);
  const double residual = (a * x - b).norm() / b.norm();

  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(a);  // LAPACK syevd
  const Eigen::VectorXd x_eig =
      eig.eigenvectors() *
      (eig.eigenvalues().cwiseInverse().asDiagonal() * (eig.eigenvectors().transpose() * b));
  const double difference = (x - x_eig).norm() / x.norm();
  const double lowest = eig.eigenvalues()(0);

  // A = M^T M + n I has every eigenvalue >= n.
  const bool ok = llt.info() == Eigen::Success && eig.info() == Eigen::Success &&
                  residual < 1e-12 && difference < 1e-10 && lowest >= static_cast<double>(n) - 1e-8;
  std::printf(
      "dense: n=%ld SPD solve, residual %.1e, Cholesky vs eigen %.1e, lowest eigenvalue "
      "%.1f, BLAS threads %d (setting %d), %s: %s\n",
      static_cast<long>(n), residual, difference, lowest, gaea::dense::blas_threads(), threads,
      gaea::dense::blas_description().c_str(), ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
