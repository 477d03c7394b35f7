#include "scf.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>

#include <Eigen/Eigenvalues>

#include "gaea/base/error.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/runtime/runtime.hpp"

namespace scf {

namespace {
using clock_type = std::chrono::steady_clock;
double since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

/// Orthogonaliser X with X^T S X = 1.
struct orthogonaliser {
  matrix x;
  std::int64_t dropped = 0;
  double min_eigenvalue = 0;
  std::string used;
};

orthogonaliser make_orthogonaliser(const matrix& s, const scf_options& opt) {
  Eigen::SelfAdjointEigenSolver<matrix> es(s);
  const Eigen::VectorXd& ev = es.eigenvalues();  // ascending
  const matrix& u = es.eigenvectors();
  orthogonaliser o;
  o.min_eigenvalue = ev(0);
  Eigen::Index first = 0;
  while (first < ev.size() && ev(first) < opt.lindep)
    ++first;
  if (first == ev.size())
    throw gaea::error("scf: the overlap matrix has no eigenvalue above --lindep " +
                      std::to_string(opt.lindep));
  o.dropped = first;
  const Eigen::Index keep = ev.size() - first;
  const Eigen::VectorXd inv_sqrt = ev.tail(keep).array().rsqrt();
  const matrix uk = u.rightCols(keep);
  if (opt.ortho == "symmetric" && first == 0) {
    o.x = uk * inv_sqrt.asDiagonal() * uk.transpose();
    o.used = "symmetric";
  } else {
    o.x = uk * inv_sqrt.asDiagonal();
    o.used = opt.ortho == "symmetric"
                 ? "canonical (symmetric requested, but " + std::to_string(first) +
                       " overlap eigenvalue(s) fall below --lindep)"
                 : "canonical";
  }
  return o;
}

/// Pulay DIIS on the commutator FDS - SDF in the orthogonal basis.
class diis {
 public:
  explicit diis(int size) : size_(size) {}
  /// Returns the extrapolated Fock matrix for `f` with error `e`, and the error's max norm.
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

struct eigen_result {
  Eigen::VectorXd eps;
  matrix c;
};
eigen_result diagonalise(const matrix& f, const matrix& x) {
  const matrix fp = x.transpose() * f * x;
  Eigen::SelfAdjointEigenSolver<matrix> es(fp);
  return {es.eigenvalues(), x * es.eigenvectors()};
}

matrix density_of(const matrix& c, std::int64_t nocc) {
  const auto occ = c.leftCols(static_cast<Eigen::Index>(nocc));
  return occ * occ.transpose();
}

constexpr int n_fields = 11;
std::array<double, n_fields> pack(const fock_times& t) {
  return {t.integrals,
          t.counter,
          t.get,
          t.acc,
          t.wall,
          static_cast<double>(t.tasks),
          static_cast<double>(t.gets),
          static_cast<double>(t.cache_hits),
          static_cast<double>(t.accs),
          static_cast<double>(t.quartets),
          t.max_task};
}
fock_times unpack(const double* v) {
  fock_times t;
  t.integrals = v[0];
  t.counter = v[1];
  t.get = v[2];
  t.acc = v[3];
  t.wall = v[4];
  t.tasks = static_cast<std::int64_t>(v[5]);
  t.gets = static_cast<std::int64_t>(v[6]);
  t.cache_hits = static_cast<std::int64_t>(v[7]);
  t.accs = static_cast<std::int64_t>(v[8]);
  t.quartets = static_cast<std::int64_t>(v[9]);
  t.max_task = v[10];
  return t;
}
}  // namespace

scf_result run_scf(const molecule& mol, const basis_set& basis, const scf_options& opt,
                   const fock_options& fopt, std::FILE* out) {
  auto& rt = gaea::runtime::current();
  const gaea::coll::group& world = gaea::coll::world();
  const bool root = rt.rank() == 0;
  const bool print = root && opt.print && out != nullptr;
  if (opt.max_iter < 1) throw gaea::error("scf: --max-iter must be >= 1");
  if (opt.ortho != "symmetric" && opt.ortho != "canonical")
    throw gaea::error("scf: unknown orthogonalisation '" + opt.ortho + "' (symmetric, canonical)");
  const std::int64_t ne = mol.electrons();
  if (ne <= 0)
    throw gaea::error("scf: molecule '" + mol.source + "' with charge " +
                      std::to_string(mol.charge) + " has " + std::to_string(ne) + " electrons");
  if (ne % 2 != 0)
    throw gaea::error("scf: molecule '" + mol.source + "' with charge " +
                      std::to_string(mol.charge) + " has an odd number of electrons (" +
                      std::to_string(ne) +
                      "); restricted closed-shell Hartree-Fock needs an even number");

  scf_result res;
  res.occupied = ne / 2;
  res.nuclear_repulsion = mol.nuclear_repulsion();
  const auto n = basis.nbf;
  const matrix s = overlap(basis);
  const matrix h = kinetic(basis) + nuclear_attraction(basis, mol);
  const matrix q = schwarz_bounds(basis);
  const orthogonaliser xo = make_orthogonaliser(s, opt);
  res.orbitals = xo.x.cols();
  res.dropped = xo.dropped;
  res.min_overlap_eigenvalue = xo.min_eigenvalue;
  res.ortho_used = xo.used;
  if (res.occupied > res.orbitals)
    throw gaea::error("scf: " + std::to_string(res.occupied) + " occupied orbitals but only " +
                      std::to_string(res.orbitals) + " linearly independent basis functions");

  gaea::global_array<double> d("scf-density", {n, n}), g("scf-twoel", {n, n});
  fock_builder fock(basis, q, fopt);
  res.blocks = fock.blocks();
  res.tasks = fock.tasks();
  res.threads = fock.threads();
  if (print) {
    std::fprintf(out, "orthogonalisation: %s; smallest overlap eigenvalue %.3e, %lld dropped\n",
                 xo.used.c_str(), xo.min_eigenvalue, static_cast<long long>(xo.dropped));
    std::fprintf(out,
                 "Fock build: %lld shell blocks, %lld tasks (%lld screened out by the block "
                 "Schwarz bound, threshold %.0e), counter %s, %d thread(s) per rank\n",
                 static_cast<long long>(fock.blocks()), static_cast<long long>(fock.tasks()),
                 static_cast<long long>(fock.screened_tasks()), fopt.schwarz_threshold,
                 fock.counter_description().c_str(), fock.threads());
    std::fprintf(out,
                 "convergence: |dE| < %.1e Eh and rms(dP) < %.1e; DIIS %d; max %d iterations\n",
                 opt.energy_tol, opt.density_tol, opt.diis_size, opt.max_iter);
    std::fprintf(out,
                 "\n%4s %20s %11s %10s | %9s %9s %9s %9s %9s %9s   (seconds; Fock parts: mean "
                 "over ranks)\n",
                 "iter", "energy [Eh]", "dE", "rms(dP)", "integrals", "counter", "get", "acc",
                 "diag", "wall");
    std::fflush(out);
  }

  // Core-Hamiltonian guess, published by rank 0.
  matrix dmat;
  if (root) {
    dmat = density_of(diagonalise(h, xo.x).c, res.occupied);
    d.put({{0, 0}, {n - 1, n - 1}}, std::span<const double>(dmat.data(), dmat.size()));
  }
  d.sync();

  diis acc_diis(opt.diis_size);
  double e_prev = 0;
  fock_times mine_total;
  matrix last_f;
  int status = 0;  // 0 continue, 1 converged, 2 out of iterations
  for (int it = 1; status == 0; ++it) {
    const auto t_iter = clock_type::now();
    const fock_times ft = fock.build(d, g);
    mine_total += ft;
    // Mean of the Fock figures over ranks, for the table.
    const auto mine = pack(ft);
    std::array<double, n_fields> sum{};
    gaea::coll::reduce(world, std::span<const double>(mine), std::span<double>(sum),
                       gaea::coll::reduce_op::sum, 0);
    iteration_record rec;
    rec.iter = it;
    const auto t_diag = clock_type::now();
    if (root) {
      for (double& v : sum)
        v /= rt.size();
      rec.mean = unpack(sum.data());
      matrix graw(n, n);
      g.get({{0, 0}, {n - 1, n - 1}}, std::span<double>(graw.data(), graw.size()));
      const matrix f = h + 0.5 * (graw + graw.transpose());
      rec.energy = (dmat.cwiseProduct(h + f)).sum() + res.nuclear_repulsion;
      rec.delta_e = it == 1 ? rec.energy : rec.energy - e_prev;
      e_prev = rec.energy;
      const matrix err = xo.x.transpose() * (f * dmat * s - s * dmat * f) * xo.x;
      const matrix fx = acc_diis.extrapolate(f, err);
      const matrix dnew = density_of(diagonalise(fx, xo.x).c, res.occupied);
      rec.delta_p = 2.0 * (dnew - dmat).norm() / static_cast<double>(n);
      last_f = f;
      const bool conv =
          it > 1 && std::abs(rec.delta_e) < opt.energy_tol && rec.delta_p < opt.density_tol;
      if (conv) {
        status = 1;
        res.energy = rec.energy;
        res.electronic = rec.energy - res.nuclear_repulsion;
      } else {
        if (it >= opt.max_iter) status = 2;
        dmat = dnew;
        d.put({{0, 0}, {n - 1, n - 1}}, std::span<const double>(dmat.data(), dmat.size()));
        res.energy = rec.energy;
      }
    }
    d.sync();
    gaea::coll::broadcast(world, std::span<int>(&status, 1), 0);
    rec.diag = since(t_diag);
    rec.wall = since(t_iter);
    res.diag_total += rec.diag;
    res.iterations = it;
    if (print) {
      std::fprintf(out, "%4d %20.12f %11.3e %10.3e | %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f\n", it,
                   rec.energy, rec.delta_e, rec.delta_p, rec.mean.integrals, rec.mean.counter,
                   rec.mean.get, rec.mean.acc, rec.diag, rec.wall);
      std::fflush(out);
    }
    res.history.push_back(rec);
  }
  res.converged = status == 1;
  gaea::coll::broadcast(world, std::span<double>(&res.energy, 1), 0);

  // Every rank's totals, for the per-rank table.
  res.mine = mine_total;
  const auto mine = pack(mine_total);
  // Rank 0 needs them.
  std::vector<double> all(root ? static_cast<std::size_t>(n_fields * rt.size()) : 0);
  gaea::coll::gather(world, std::span<const double>(mine), std::span<double>(all), 0);
  if (root) {
    for (int r = 0; r < rt.size(); ++r)
      res.per_rank.push_back(unpack(&all[static_cast<std::size_t>(r * n_fields)]));
    // Final orbitals from the last (not extrapolated) Fock matrix.
    const eigen_result er = diagonalise(last_f, xo.x);
    res.orbital_energies = er.eps;
    res.coefficients = er.c;
    res.density = 2.0 * density_of(er.c, res.occupied);
    res.electronic = res.energy - res.nuclear_repulsion;
  }
  return res;
}

}  // namespace scf
