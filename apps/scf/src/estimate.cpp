#include "estimate.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
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
  const std::size_t k = std::min<std::size_t>(b.shells.size(), 48);
  e.sample_shells = static_cast<std::int64_t>(k);
  basis_set sample;
  for (std::size_t s = 0; s < k; ++s) {
    sample.shells.push_back(b.shells[s]);
    sample.shell_atom.push_back(b.shell_atom[s]);
    sample.first_bf.push_back(sample.nbf);
    sample.nbf += static_cast<std::int64_t>(b.shells[s].size());
  }
  const double scale = pairs(static_cast<double>(b.shells.size())) / pairs(static_cast<double>(k));
  auto t0 = clock_type::now();
  (void)overlap(sample);
  (void)kinetic(sample);
  (void)nuclear_attraction(sample, mol);
  e.one_electron_s = since(t0) * scale;
  t0 = clock_type::now();
  (void)schwarz_bounds(sample);
  e.schwarz_s = since(t0) * scale;
  // A symmetric eigenproblem costs ~n^3: time one of at most 256 and scale.
  const auto m = static_cast<Eigen::Index>(std::min<std::int64_t>(b.nbf, 256));
  matrix a = matrix::Random(m, m);
  a = (a + a.transpose()).eval();
  t0 = clock_type::now();
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
