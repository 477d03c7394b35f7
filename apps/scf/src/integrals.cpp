// gaea-scf's one-electron integrals and Schwarz bounds with libint2, whole on every rank.

#include "integrals.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>

#include <libint2.hpp>

namespace scf {

void ensure_libint() {
  static std::once_flag once;
  std::call_once(once, [] {
    libint2::initialize();
    std::atexit([] { libint2::finalize(); });
  });
}

namespace {
matrix one_body(const basis_set& b, libint2::Operator op, const molecule* mol) {
  ensure_libint();
  libint2::Engine engine(op, b.max_nprim(), b.max_l(), 0);
  if (mol) {
    std::vector<std::pair<double, std::array<double, 3>>> q;
    for (const atom& a : mol->atoms)
      q.push_back({static_cast<double>(a.z), a.r});
    engine.set_params(q);
  }
  const auto n = static_cast<Eigen::Index>(b.nbf);
  matrix m = matrix::Zero(n, n);
  const auto& buf = engine.results();
  for (std::size_t s1 = 0; s1 < b.shells.size(); ++s1)
    for (std::size_t s2 = 0; s2 <= s1; ++s2) {
      engine.compute(b.shells[s1], b.shells[s2]);
      if (buf[0] == nullptr) continue;
      const auto n1 = static_cast<Eigen::Index>(b.shells[s1].size());
      const auto n2 = static_cast<Eigen::Index>(b.shells[s2].size());
      const Eigen::Map<const matrix> blk(buf[0], n1, n2);
      m.block(b.first_bf[s1], b.first_bf[s2], n1, n2) = blk;
      if (s1 != s2) m.block(b.first_bf[s2], b.first_bf[s1], n2, n1) = blk.transpose();
    }
  return m;
}
}  // namespace

matrix overlap(const basis_set& b) {
  return one_body(b, libint2::Operator::overlap, nullptr);
}
matrix kinetic(const basis_set& b) {
  return one_body(b, libint2::Operator::kinetic, nullptr);
}
matrix nuclear_attraction(const basis_set& b, const molecule& mol) {
  return one_body(b, libint2::Operator::nuclear, &mol);
}

matrix schwarz_bounds(const basis_set& b) {
  ensure_libint();
  libint2::Engine engine(libint2::Operator::coulomb, b.max_nprim(), b.max_l(), 0, 0.0);
  const auto ns = static_cast<Eigen::Index>(b.shells.size());
  matrix q = matrix::Zero(ns, ns);
  const auto& buf = engine.results();
  for (Eigen::Index s1 = 0; s1 < ns; ++s1)
    for (Eigen::Index s2 = 0; s2 <= s1; ++s2) {
      const auto& a = b.shells[static_cast<std::size_t>(s1)];
      const auto& c = b.shells[static_cast<std::size_t>(s2)];
      engine.compute(a, c, a, c);
      double mx = 0;
      if (buf[0]) {
        const std::size_t n = a.size() * c.size();
        for (std::size_t k = 0; k < n * n; ++k)
          mx = std::max(mx, std::abs(buf[0][k]));
      }
      q(s1, s2) = q(s2, s1) = std::sqrt(mx);
    }
  return q;
}

}  // namespace scf
