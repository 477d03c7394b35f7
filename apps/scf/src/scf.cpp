// The restricted closed-shell Hartree-Fock loop (run_scf): guess, Fock builds, DIIS,
// orthogonalisation, diagonalisation and the convergence tests.

#include "scf.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <Eigen/Eigenvalues>

#include "diis.hpp"
#include "estimate.hpp"
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
  if (opt.rebuild_period < 1)
    throw gaea::error("scf: --rebuild-period must be >= 1, got " +
                      std::to_string(opt.rebuild_period));
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
  if (print) {
    // Before the set-up: a large molecule says its size and what it will cost first.
    const setup_estimate est = estimate_setup(basis, mol);
    const double nd = static_cast<double>(n);
    std::fprintf(out,
                 "problem: %zu atoms, %zu shells, %lld basis functions, %lld electrons; %.3g MB "
                 "per %lld x %lld matrix\n",
                 mol.atoms.size(), basis.shells.size(), static_cast<long long>(n),
                 static_cast<long long>(ne), nd * nd * 8e-6, static_cast<long long>(n),
                 static_cast<long long>(n));
    std::fprintf(out,
                 "estimate: set-up ~%s on every rank (one-electron integrals ~%s, Schwarz bounds "
                 "~%s, orthogonalisation ~%s; timed on %lld shells)\n",
                 duration_text(est.total()).c_str(), duration_text(est.one_electron_s).c_str(),
                 duration_text(est.schwarz_s).c_str(), duration_text(est.orthogonalise_s).c_str(),
                 static_cast<long long>(est.sample_shells));
    std::fflush(out);
  }
  const auto t_setup = clock_type::now();
  const matrix s = overlap(basis);
  const matrix h = kinetic(basis) + nuclear_attraction(basis, mol);
  const double one_electron_s = since(t_setup);
  auto t0 = clock_type::now();
  const matrix q = schwarz_bounds(basis);
  const double schwarz_s = since(t0);
  t0 = clock_type::now();
  const orthogonaliser xo = make_orthogonaliser(s, opt);
  const double ortho_s = since(t0);
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
    std::fprintf(out,
                 "set-up: %s (one-electron integrals %s, Schwarz bounds %s, orthogonalisation "
                 "%s)\n",
                 duration_text(since(t_setup)).c_str(), duration_text(one_electron_s).c_str(),
                 duration_text(schwarz_s).c_str(), duration_text(ortho_s).c_str());
    // The Schwarz step computed one quartet per shell pair: its time per quartet, times the
    // quartets that pass the screening, shared by every thread of every rank.
    const double nsh = static_cast<double>(basis.shells.size());
    const double per_quartet = schwarz_s / (nsh * (nsh + 1) / 2);
    const double quartets = surviving_quartets(q, fopt.schwarz_threshold);
    std::fprintf(out,
                 "estimate: a full Fock build ~%s (%.3g shell quartets pass the screening, ~%.3g "
                 "us each, over %d rank(s) x %d thread(s))\n",
                 duration_text(quartets * per_quartet / (rt.size() * fock.threads())).c_str(),
                 quartets, per_quartet * 1e6, rt.size(), fock.threads());
    std::fprintf(out, "orthogonalisation: %s; smallest overlap eigenvalue %.3e, %lld dropped\n",
                 xo.used.c_str(), xo.min_eigenvalue, static_cast<long long>(xo.dropped));
    std::fprintf(out,
                 "Fock build: %lld shell blocks, %lld tasks (%lld screened out by the block "
                 "Schwarz bound, threshold %.0e), counter %s, %d thread(s) per rank\n",
                 static_cast<long long>(fock.blocks()), static_cast<long long>(fock.tasks()),
                 static_cast<long long>(fock.screened_tasks()), fopt.schwarz_threshold,
                 fock.counter_description().c_str(), fock.threads());
    std::fprintf(out, "integrals: %s\n", fock.integrals_description().c_str());
    std::fprintf(out,
                 "convergence: |dE| < %.1e Eh and %s < %.1e on a full build; DIIS %d; max %d "
                 "iterations; incremental Fock builds on dD, full every %d build(s)\n",
                 opt.energy_tol, opt.gradient_tol > 0 ? "rms(grad)" : "rms(dP)",
                 opt.gradient_tol > 0 ? opt.gradient_tol : opt.density_tol, opt.diis_size,
                 opt.max_iter, opt.rebuild_period);
    std::fprintf(out,
                 "\n%4s %20s %11s %10s %10s | %9s %9s %9s %9s %9s %9s | %4s %11s   (seconds; Fock "
                 "parts: mean over ranks)\n",
                 "iter", "energy [Eh]", "dE", "rms(dP)", "rms(grad)", "integrals", "counter", "get",
                 "acc", "diag", "wall", "G of", "quartets");
    std::fflush(out);
  }

  // The guess density, on rank 0.
  matrix dmat;
  if (root) {
    const auto t_guess = clock_type::now();
    dmat = opt.guess == guess_kind::sad ? sad_density(mol, basis, s)
                                        : density_of(diagonalise(h, xo.x).c, res.occupied);
    res.guess_s = since(t_guess);
    if (print) {
      std::fprintf(
          out, "guess: %s (%.3f s)\n",
          opt.guess == guess_kind::sad ? "superposition of atomic densities" : "core Hamiltonian",
          res.guess_s);
      std::fflush(out);
    }
  }

  // Rank 0 keeps G for the density `d_built`; an incremental build adds G(D - d_built) to it.
  matrix g_sum, d_built;
  diis acc_diis(opt.diis_size);
  double e_prev = 0;
  fock_times mine_total;
  matrix last_f;
  const auto nsh = static_cast<Eigen::Index>(basis.shells.size());
  matrix dmax(nsh, nsh);
  int status = 0;                           // 0 continue, 1 converged, 2 out of iterations
  int since_full = 0;                       // incremental builds since the last full one
  bool want_full = true;                    // rank 0's decision for the next build
  bool prev_incremental_energy_ok = false;  // the last build was incremental and passed dE
  constexpr double full_ahead = 10;         // (H2O)4, 12 cc-pVDZ: one full build fewer than 3 or 5
  // The early phase: cheap builds at a loose threshold while the density moves a lot (their
  // errors, ~1e-7 Eh, are far below the changes); it ends with a full build at the tight one.
  bool early = opt.early_schwarz > 0;
  for (int it = 1; status == 0; ++it) {
    const auto t_iter = clock_type::now();
    // Rank 0 publishes D (full build) or ΔD (incremental) and its shell-pair maxima.
    std::array<double, 2> plan{1, 0};  // full build?, threshold
    if (root) {
      // No periodic rebuild in the early phase: it ends with a full build anyway.
      int full = want_full || (!early && since_full + 1 >= opt.rebuild_period) ? 1 : 0;
      plan = {static_cast<double>(full), early ? opt.early_schwarz : 0.0};
      const matrix x = full ? dmat : matrix(dmat - d_built);
      d.put({{0, 0}, {n - 1, n - 1}}, std::span<const double>(x.data(), x.size()));
      dmax = shell_max_abs(x, basis);
    }
    d.sync();
    gaea::coll::broadcast(world, std::span<double>(plan), 0);
    const int full = plan[0] != 0 ? 1 : 0;
    gaea::coll::broadcast(world,
                          std::span<double>(dmax.data(), static_cast<std::size_t>(dmax.size())), 0);
    const fock_times ft = fock.build(d, dmax, g, plan[1]);
    mine_total += ft;
    // Mean of the Fock figures over ranks, for the table.
    const auto mine = pack(ft);
    std::array<double, n_fields> sum{};
    gaea::coll::reduce(world, std::span<const double>(mine), std::span<double>(sum),
                       gaea::coll::reduce_op::sum, 0);
    iteration_record rec;
    rec.iter = it;
    rec.full = full != 0;
    rec.early = plan[1] > 0;
    res.full_builds += full;
    const auto t_diag = clock_type::now();
    if (root) {
      rec.quartets = static_cast<std::int64_t>(sum[9]);
      for (double& v : sum)
        v /= rt.size();
      rec.mean = unpack(sum.data());
      matrix graw(n, n);
      g.get({{0, 0}, {n - 1, n - 1}}, std::span<double>(graw.data(), graw.size()));
      if (full) {
        g_sum = graw;
        since_full = 0;
      } else {
        g_sum += graw;
        ++since_full;
      }
      d_built = dmat;
      want_full = false;
      const matrix f = h + 0.5 * (g_sum + g_sum.transpose());
      rec.energy = (dmat.cwiseProduct(h + f)).sum() + res.nuclear_repulsion;
      rec.delta_e = it == 1 ? rec.energy : rec.energy - e_prev;
      e_prev = rec.energy;
      const matrix err = xo.x.transpose() * (f * dmat * s - s * dmat * f) * xo.x;
      rec.gradient = err.norm() / std::sqrt(static_cast<double>(err.size()));
      const matrix fx = acc_diis.extrapolate(f, err);
      const matrix dnew = density_of(diagonalise(fx, xo.x).c, res.occupied);
      rec.delta_p = 2.0 * (dnew - dmat).norm() / static_cast<double>(n);
      last_f = f;
      // The density test: the rms orbital gradient (the peers' kind of criterion), or the rms
      // change of P when --gradient-tol is 0.
      const bool by_gradient = opt.gradient_tol > 0;
      const double dtest = by_gradient ? rec.gradient : rec.delta_p;
      const double dtol = by_gradient ? opt.gradient_tol : opt.density_tol;
      // The energy test compares builds of one kind: a full build after incremental ones moves E
      // by their accumulated screening error (up to 5e-10 Eh at 288 functions), not by
      // convergence, so it takes over the test the incremental build before it passed.
      const bool energy_ok = it > 1 && std::abs(rec.delta_e) < opt.energy_tol;
      const bool conv =
          !rec.early && dtest < dtol && (energy_ok || (full && prev_incremental_energy_ok));
      prev_incremental_energy_ok = !full && !rec.early && energy_ok;
      // Close to the goal on an incremental build: make the next one full, which is then likely
      // the last (DIIS gains about 3x per iteration here), instead of one more incremental
      // build and the full one after it.
      if (!full && !rec.early && energy_ok && dtest < full_ahead * dtol) want_full = true;
      // The accurate phase starts afresh when the density has settled, or at the latest half way
      // to --max-iter (so loose-threshold noise cannot keep it early).
      if (early && (rec.delta_p < opt.early_until || 2 * it >= opt.max_iter)) {
        early = false;
        want_full = true;
      }
      if (conv && full) {
        status = 1;
        res.energy = rec.energy;
        res.electronic = rec.energy - res.nuclear_repulsion;
      } else {
        // Converged on an incremental G: one more iteration on a full build, so the energy
        // comes from a Fock matrix with no accumulated screening error.
        if (conv) want_full = true;
        if (it >= opt.max_iter) status = 2;
        dmat = dnew;
        res.energy = rec.energy;
      }
    }
    gaea::coll::broadcast(world, std::span<int>(&status, 1), 0);
    rec.diag = since(t_diag);
    rec.wall = since(t_iter);
    res.diag_total += rec.diag;
    res.iterations = it;
    if (print) {
      std::fprintf(
          out,
          "%4d %20.12f %11.3e %10.3e %10.3e | %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f | %4s %11lld\n",
          it, rec.energy, rec.delta_e, rec.delta_p, rec.gradient, rec.mean.integrals,
          rec.mean.counter, rec.mean.get, rec.mean.acc, rec.diag, rec.wall,
          rec.full ? (rec.early ? "FULL" : "full") : (rec.early ? "DD" : "dD"),
          static_cast<long long>(rec.quartets));
      std::fflush(out);
    }
    res.history.push_back(rec);
  }
  res.converged = status == 1;
  res.incore = fock.incore();
  res.integrals = fock.integrals_description();
  res.stored = fock.stored();
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
