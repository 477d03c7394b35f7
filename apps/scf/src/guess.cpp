// gaea-scf's initial densities: the core-Hamiltonian guess and the superposition of atomic ones.

#include "guess.hpp"

#include <array>
#include <cmath>
#include <map>

#include <Eigen/Eigenvalues>
#include <libint2.hpp>

#include "diis.hpp"
#include "gaea/base/error.hpp"

namespace scf {

std::vector<double> atomic_occupations(int z) {
  if (z < 1 || z > 118)
    throw gaea::error("scf: no atomic configuration for atomic number " + std::to_string(z));
  // Subshells in Madelung order: 1s 2s 2p 3s 3p 4s 3d 4p 5s 4d 5p 6s 4f 5d 6p 7s 5f 6d 7p.
  static constexpr std::array<int, 19> l_of = {0, 0, 1, 0, 1, 0, 2, 1, 0, 2,
                                               1, 0, 3, 2, 1, 0, 3, 2, 1};
  std::vector<double> occ;
  int left = z;
  for (const int l : l_of) {
    if (left == 0) break;
    const int m = 2 * l + 1;
    const int e = std::min(left, 2 * m);
    left -= e;
    for (int k = 0; k < m; ++k)
      occ.push_back(static_cast<double>(e) / (2.0 * m));
  }
  return occ;
}

namespace {

/// The lone atom `a` of `mol` in its own functions of `basis`.
struct atom_system {
  basis_set basis;
  molecule mol;
};
atom_system atom_of(const molecule& mol, const basis_set& basis, std::size_t a) {
  atom_system s;
  s.mol.atoms = {mol.atoms[a]};
  s.mol.source = mol.source;
  for (std::size_t k = 0; k < basis.shells.size(); ++k)
    if (basis.shell_atom[k] == static_cast<std::int64_t>(a)) {
      s.basis.shells.push_back(basis.shells[k]);
      s.basis.shell_atom.push_back(0);
      s.basis.first_bf.push_back(s.basis.nbf);
      s.basis.nbf += static_cast<std::int64_t>(basis.shells[k].size());
    }
  return s;
}

/// All two-electron integrals (ij|kl) of a small basis, n^4 values, index ((i n + j) n + k) n + l.
std::vector<double> all_eris(const basis_set& b) {
  const auto n = static_cast<std::size_t>(b.nbf);
  std::vector<double> eri(n * n * n * n, 0.0);
  libint2::Engine engine(libint2::Operator::coulomb, b.max_nprim(), b.max_l(), 0);
  const auto& buf = engine.results();
  const std::size_t ns = b.shells.size();
  for (std::size_t s1 = 0; s1 < ns; ++s1)
    for (std::size_t s2 = 0; s2 < ns; ++s2)
      for (std::size_t s3 = 0; s3 < ns; ++s3)
        for (std::size_t s4 = 0; s4 < ns; ++s4) {
          engine.compute(b.shells[s1], b.shells[s2], b.shells[s3], b.shells[s4]);
          if (buf[0] == nullptr) continue;
          const auto o1 = static_cast<std::size_t>(b.first_bf[s1]);
          const auto o2 = static_cast<std::size_t>(b.first_bf[s2]);
          const auto o3 = static_cast<std::size_t>(b.first_bf[s3]);
          const auto o4 = static_cast<std::size_t>(b.first_bf[s4]);
          std::size_t idx = 0;
          for (std::size_t i = o1; i < o1 + b.shells[s1].size(); ++i)
            for (std::size_t j = o2; j < o2 + b.shells[s2].size(); ++j)
              for (std::size_t k = o3; k < o3 + b.shells[s3].size(); ++k)
                for (std::size_t l = o4; l < o4 + b.shells[s4].size(); ++l)
                  eri[((i * n + j) * n + k) * n + l] = buf[0][idx++];
        }
  return eri;
}

/// Spherically averaged, fractionally occupied restricted SCF of one neutral atom; returns D.
matrix atomic_density(const atom_system& at) {
  const int z = at.mol.atoms[0].z;
  const auto n = static_cast<Eigen::Index>(at.basis.nbf);
  const std::vector<double> occ = atomic_occupations(z);
  if (static_cast<Eigen::Index>(occ.size()) > n)
    throw gaea::error("scf: --guess sad: element " + std::string(element_symbol(z)) + " has " +
                      std::to_string(n) + " basis functions but " + std::to_string(occ.size()) +
                      " occupied atomic orbitals; use --guess core");
  const matrix s = overlap(at.basis);
  const matrix h = kinetic(at.basis) + nuclear_attraction(at.basis, at.mol);
  const std::vector<double> eri = all_eris(at.basis);
  // Canonical orthogonaliser (atoms in a diffuse basis can be nearly linearly dependent).
  Eigen::SelfAdjointEigenSolver<matrix> ses(s);
  Eigen::Index first = 0;
  while (first < n && ses.eigenvalues()(first) < 1e-8)
    ++first;
  const matrix x = ses.eigenvectors().rightCols(n - first) *
                   ses.eigenvalues().tail(n - first).array().rsqrt().matrix().asDiagonal();
  const auto nocc = static_cast<Eigen::Index>(occ.size());
  if (nocc > x.cols())
    throw gaea::error("scf: --guess sad: element " + std::string(element_symbol(z)) +
                      ": too few linearly independent basis functions; use --guess core");
  const Eigen::Map<const Eigen::VectorXd> w(occ.data(), nocc);
  auto density = [&](const matrix& f) {
    Eigen::SelfAdjointEigenSolver<matrix> es(x.transpose() * f * x);
    const matrix c = x * es.eigenvectors().leftCols(nocc);
    return matrix(c * w.asDiagonal() * c.transpose());
  };
  const auto nn = static_cast<std::size_t>(n);
  auto fock = [&](const matrix& d) {
    matrix f = h;
    for (std::size_t i = 0; i < nn; ++i)
      for (std::size_t j = 0; j < nn; ++j) {
        double g = 0;
        for (std::size_t k = 0; k < nn; ++k)
          for (std::size_t l = 0; l < nn; ++l) {
            const double dkl = d(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(l));
            g += dkl * (2.0 * eri[((i * nn + j) * nn + k) * nn + l] -
                        eri[((i * nn + k) * nn + j) * nn + l]);
          }
        f(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) += g;
      }
    return f;
  };
  matrix d = density(h);
  diis extrapolator(8);
  double e_prev = 0;
  for (int it = 0; it < 100; ++it) {
    const matrix f = fock(d);
    const double e = d.cwiseProduct(h + f).sum();
    const matrix err = x.transpose() * (f * d * s - s * d * f) * x;
    const matrix dn = density(extrapolator.extrapolate(f, err));
    const double change = (dn - d).norm();
    d = dn;
    if (it > 0 && std::abs(e - e_prev) < 1e-10 && change < 1e-7) break;
    e_prev = e;
  }
  return d;
}

}  // namespace

matrix sad_density(const molecule& mol, const basis_set& basis, const matrix& s) {
  ensure_libint();
  const auto n = static_cast<Eigen::Index>(basis.nbf);
  matrix d = matrix::Zero(n, n);
  std::map<int, matrix> by_element;
  for (std::size_t a = 0; a < mol.atoms.size(); ++a) {
    const int z = mol.atoms[a].z;
    auto it = by_element.find(z);
    if (it == by_element.end())
      it = by_element.emplace(z, atomic_density(atom_of(mol, basis, a))).first;
    // The atom's functions are contiguous (shells are in atom order).
    Eigen::Index first = -1;
    for (std::size_t k = 0; k < basis.shells.size(); ++k)
      if (basis.shell_atom[k] == static_cast<std::int64_t>(a)) {
        first = static_cast<Eigen::Index>(basis.first_bf[k]);
        break;
      }
    if (first < 0) continue;
    const auto m = it->second.rows();
    d.block(first, first, m, m) = it->second;
  }
  const double electrons = 2.0 * d.cwiseProduct(s).sum();  // tr(2 D S), S symmetric
  if (electrons > 0) d *= static_cast<double>(mol.electrons()) / electrons;
  return d;
}

}  // namespace scf
