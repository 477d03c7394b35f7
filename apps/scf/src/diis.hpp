#pragma once
/// \file
/// Pulay DIIS (direct inversion in the iterative subspace) on the commutator error
/// X^T (F D S - S D F) X, shared by the molecular SCF and the atomic SCF of the SAD guess.

#include <deque>

#include "integrals.hpp"

namespace scf {

class diis {
 public:
  /// Keeps up to `size` Fock matrices; 0 turns extrapolation off.
  explicit diis(int size) : size_(size) {}
  /// Returns the extrapolated Fock matrix for `f` with error `e`.
  matrix extrapolate(const matrix& f, const matrix& e) {
    if (size_ <= 0) return f;
    fs_.push_back(f);
    es_.push_back(e);
    if (static_cast<int>(fs_.size()) > size_) {
      fs_.pop_front();
      es_.pop_front();
    }
    const auto n = static_cast<Eigen::Index>(fs_.size());
    if (n < 2) return f;
    Eigen::MatrixXd b = Eigen::MatrixXd::Zero(n + 1, n + 1);
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = 0; j <= i; ++j)
        b(i, j) = b(j, i) =
            es_[static_cast<std::size_t>(i)].cwiseProduct(es_[static_cast<std::size_t>(j)]).sum();
    for (Eigen::Index i = 0; i < n; ++i)
      b(i, n) = b(n, i) = -1.0;
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(n + 1);
    rhs(n) = -1.0;
    // Scale the error block so the solve stays well conditioned as errors shrink.
    const double scale = b.topLeftCorner(n, n).diagonal().maxCoeff();
    if (scale > 0) b.topLeftCorner(n, n) /= scale;
    const Eigen::VectorXd c = b.colPivHouseholderQr().solve(rhs);
    if (!c.allFinite()) {  // start over rather than extrapolate with garbage
      fs_.erase(fs_.begin(), fs_.end() - 1);
      es_.erase(es_.begin(), es_.end() - 1);
      return f;
    }
    matrix out = matrix::Zero(f.rows(), f.cols());
    for (Eigen::Index i = 0; i < n; ++i)
      out += c(i) * fs_[static_cast<std::size_t>(i)];
    return out;
  }

 private:
  int size_;
  std::deque<matrix> fs_, es_;
};

}  // namespace scf
