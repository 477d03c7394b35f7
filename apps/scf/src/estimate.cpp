// gaea-scf's up-front cost estimates of the set-up and of one Fock build, and their text.

#include "estimate.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <utility>
#include <vector>

#include <Eigen/Eigenvalues>

namespace scf {

namespace {
using clock_type = std::chrono::steady_clock;
double since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}
double pairs(double shells) {
  return shells * (shells + 1) / 2;
}
}  // namespace

setup_estimate estimate_setup(const basis_set& b, const molecule& mol) {
  setup_estimate e;
  // Times {one-electron integrals, Schwarz bounds} over the first n shells.
  const auto time_sample = [&](std::size_t n) {
    basis_set sample;
    for (std::size_t s = 0; s < n; ++s) {
      sample.shells.push_back(b.shells[s]);
      sample.shell_atom.push_back(b.shell_atom[s]);
      sample.first_bf.push_back(sample.nbf);
      sample.nbf += static_cast<std::int64_t>(b.shells[s].size());
    }
    auto t0 = clock_type::now();
    (void)overlap(sample);
    (void)kinetic(sample);
    (void)nuclear_attraction(sample, mol);
    const double one = since(t0);
    t0 = clock_type::now();
    (void)schwarz_bounds(sample);
    return std::pair{one, since(t0)};
  };
  const std::size_t k = std::min<std::size_t>(b.shells.size(), 48);
  e.sample_shells = static_cast<std::int64_t>(k);
  (void)time_sample(k);  // warm-up: libint2's set-up, caches
  const auto [one_k, schwarz_k] = time_sample(k);
  e.one_electron_s = one_k;
  e.schwarz_s = schwarz_k;
  if (k < b.shells.size()) {
    // A fixed cost (the engines) plus a cost per shell pair: measured on 1 and on k shells.
    const auto [one_1, schwarz_1] = time_sample(1);
    const double extra = pairs(static_cast<double>(b.shells.size())) - 1;
    const double per = 1 / (pairs(static_cast<double>(k)) - 1);
    e.one_electron_s = one_1 + std::max(0.0, one_k - one_1) * per * extra;
    e.schwarz_s = schwarz_1 + std::max(0.0, schwarz_k - schwarz_1) * per * extra;
  }
  // A symmetric eigenproblem costs ~n^3: time one of at most 256 and scale.
  const auto m = static_cast<Eigen::Index>(std::min<std::int64_t>(b.nbf, 256));
  matrix a = matrix::Random(m, m);
  a = (a + a.transpose()).eval();
  const auto t0 = clock_type::now();
  Eigen::SelfAdjointEigenSolver<matrix> es(a);
  const double r = static_cast<double>(b.nbf) / static_cast<double>(m);
  e.orthogonalise_s = since(t0) * r * r * r;
  return e;
}

double surviving_quartets(const matrix& q, double threshold) {
  std::vector<double> v;
  v.reserve(static_cast<std::size_t>(q.rows() * (q.rows() + 1) / 2));
  for (Eigen::Index i = 0; i < q.rows(); ++i)
    for (Eigen::Index j = 0; j <= i; ++j)
      v.push_back(q(i, j));
  std::sort(v.begin(), v.end());
  // Ordered pairs (x, y) of pairs with x * y >= threshold, counted with two pointers; the
  // quartets with ab >= cd are about half of them (plus the diagonal).
  double ordered = 0, diagonal = 0;
  std::size_t lo = v.size();
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double x = v[i];
    if (x * x >= threshold) ++diagonal;
    while (lo > 0 && v[lo - 1] * x >= threshold)
      --lo;
    // v[lo..] pair with x; lo only moves down as x grows.
    ordered += static_cast<double>(v.size() - lo);
  }
  return (ordered + diagonal) / 2;
}

std::string duration_text(double seconds) {
  char buf[32];
  if (seconds < 120)
    std::snprintf(buf, sizeof buf, "%.3g s", seconds);
  else if (seconds < 7200)
    std::snprintf(buf, sizeof buf, "%.1f min", seconds / 60);
  else
    std::snprintf(buf, sizeof buf, "%.1f h", seconds / 3600);
  return buf;
}

}  // namespace scf
