// gaea-scf: restricted closed-shell Hartree-Fock with a distributed, counter-balanced Fock
// build. See apps/scf/README.md.
//   mpirun -np 4 gaea-scf molecules/water.xyz --basis 6-31G* --spherical
// Exit codes: 0 success, 1 bad input or failure, 2 bad command line, 3 SCF not converged,
// 4 --expect-energy mismatch.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "basis.hpp"
#include "cli.hpp"
#include "gaea/base/error.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/extension.hpp"
#include "gaea/runtime/runtime.hpp"
#include "input_checks.hpp"
#include "molecule.hpp"
#include "output.hpp"
#include "scf.hpp"

namespace {

using namespace scf;

struct cli_options {
  std::string xyz, basis, basis_dir = "/usr/share/nwchem/libraries", basis_format = "auto";
  int charge = 0;
  bool cartesian = false, spherical = false;
  std::string bohr = "nwchem";
  scf_options scf;
  std::string guess = "sad";
  std::string counter, dispense = "batched", executor = "tbb";
  int threads = 1;
  std::int64_t block_bf = 0;
  double schwarz = 1e-13;
  std::string integrals = "auto";
  double integral_memory_mb = 0;
  std::string output;
  double expect = std::nan("");
  double tolerance = 1e-8;
  bool quiet = false;
  std::string json;  // --json target ("-": standard output)
};

/// Figures for the GAEA_REPORT "scf" section (summed over ranks by the report).
struct report_figures {
  double tasks = 0, integrals = 0, counter = 0, get = 0, acc = 0, diag = 0;
};

void print_summary(std::FILE* out, const scf_result& r, const molecule& mol) {
  std::fprintf(out, "\n%s after %d iterations\n",
               r.converged ? "SCF converged" : "SCF NOT converged", r.iterations);
  std::fprintf(out, "  total energy             %20.12f Eh\n", r.energy);
  std::fprintf(out, "  nuclear repulsion energy %20.12f Eh\n", r.nuclear_repulsion);
  std::fprintf(out, "  electronic energy        %20.12f Eh\n", r.electronic);
  const auto nocc = static_cast<Eigen::Index>(r.occupied);
  const auto norb = r.orbital_energies.size();
  std::fprintf(out, "  orbital energies (Eh), %lld occupied of %lld:\n",
               static_cast<long long>(nocc), static_cast<long long>(norb));
  const Eigen::Index show_hi = std::min<Eigen::Index>(norb, nocc + 5);
  const Eigen::Index show_lo = std::max<Eigen::Index>(0, nocc - 10);
  if (show_lo > 0)
    std::fprintf(out, "    ... %lld lower occupied orbitals\n", static_cast<long long>(show_lo));
  for (Eigen::Index k = show_lo; k < show_hi; ++k)
    std::fprintf(out, "    %5lld %16.8f %s\n", static_cast<long long>(k + 1), r.orbital_energies(k),
                 k < nocc ? "occ" : "vir");
  if (show_hi < norb)
    std::fprintf(out, "    ... %lld higher virtual orbitals\n",
                 static_cast<long long>(norb - show_hi));
  if (nocc < norb) {
    const double gap = r.orbital_energies(nocc) - r.orbital_energies(nocc - 1);
    std::fprintf(out, "  HOMO %.8f  LUMO %.8f  gap %.8f Eh (%.4f eV)\n",
                 r.orbital_energies(nocc - 1), r.orbital_energies(nocc), gap,
                 gap * 27.211386245988);
  }
  (void)mol;
  // Time per iteration, Fock build parts averaged over ranks.
  fock_times sum;
  for (const auto& h : r.history)
    sum += h.mean;
  const double it = std::max(1, r.iterations);
  double wall = 0;
  for (const auto& h : r.history)
    wall += h.wall;
  std::fprintf(out, "  Fock builds: %d full, %d incremental; guess %.3f s\n", r.full_builds,
               r.iterations - r.full_builds, r.guess_s);
  if (r.incore)
    std::fprintf(
        out,
        "  in-core integrals: %.4g MB over all ranks (largest rank %.4g MB; %.4g MB before "
        "%.1f %% of the work moved to balance), %.4g integrals in %lld tasks; %lld tasks "
        "over a rank's budget recomputed\n",
        r.stored.bytes / 1e6, r.stored.max_rank_bytes / 1e6, r.stored.max_rank_bytes_filled / 1e6,
        100 * r.stored.moved_fraction, r.stored.integrals,
        static_cast<long long>(r.stored.stored_tasks),
        static_cast<long long>(r.stored.recomputed_tasks));
  std::fprintf(out,
               "\ntime per iteration (s, mean over %d iterations; Fock parts summed over threads, "
               "mean over ranks):\n  integrals+contraction %.4f  counter wait %.4f  get %.4f  "
               "accumulate %.4f  diagonalise %.4f  Fock wall %.4f  iteration wall %.4f\n",
               r.iterations, sum.integrals / it, sum.counter / it, sum.get / it, sum.acc / it,
               r.diag_total / it, sum.wall / it, wall / it);
  std::fprintf(out, "\nper rank, all iterations (s):\n%5s %8s %11s %10s %9s %9s %9s %8s %9s %9s\n",
               "rank", "tasks", "integrals", "counter", "get", "acc", "Fock wall", "gets", "cached",
               "accs");
  for (std::size_t k = 0; k < r.per_rank.size(); ++k) {
    const auto& t = r.per_rank[k];
    std::fprintf(out, "%5zu %8lld %11.4f %10.4f %9.4f %9.4f %9.4f %8lld %9lld %9lld\n", k,
                 static_cast<long long>(t.tasks), t.integrals, t.counter, t.get, t.acc, t.wall,
                 static_cast<long long>(t.gets), static_cast<long long>(t.cache_hits),
                 static_cast<long long>(t.accs));
  }
}

/// The run's figures per iteration as one JSON document (Fock parts: mean over ranks, summed over
/// each rank's threads); gaea-model's scf profile (framework/model) reads it.
std::string results_json(const scf_result& r, const basis_set& basis, int ranks) {
  fock_times sum;
  for (const auto& h : r.history)
    sum += h.mean;
  const double it = std::max(1, r.iterations);
  double wall = 0;
  std::vector<double> largest;  // per iteration; the median leaves out the first one's warm-up
  for (const auto& h : r.history) {
    wall += h.wall;
    largest.push_back(h.mean.max_task);
  }
  std::nth_element(largest.begin(),
                   largest.begin() + static_cast<std::ptrdiff_t>(largest.size() / 2),
                   largest.end());
  const double max_task = largest.empty() ? 0.0 : largest[largest.size() / 2];
  const nlohmann::json j = {{"nbf", basis.nbf},
                            {"blocks", r.blocks},
                            {"tasks", r.tasks},
                            {"ranks", ranks},
                            {"threads", r.threads},
                            {"iterations", r.iterations},
                            {"full_builds", r.full_builds},
                            {"guess_s", r.guess_s},
                            {"converged", r.converged},
                            {"integrals", r.incore ? "incore" : "direct"},
                            {"stored_mb", r.stored.bytes / 1e6},
                            {"energy", r.energy},
                            {"integrals_s", sum.integrals / it},
                            {"counter_s", sum.counter / it},
                            {"get_s", sum.get / it},
                            {"acc_s", sum.acc / it},
                            {"fock_s", sum.wall / it},
                            {"diag_s", r.diag_total / it},
                            {"iteration_s", wall / it},
                            {"max_task_s", max_task},  // mean over ranks of their largest
                            {"gets", static_cast<double>(sum.gets) / it},
                            {"accs", static_cast<double>(sum.accs) / it}};
  return j.dump();
}

/// What must be the same on every rank: the molecule and basis (fingerprints of their numbers)
/// and the options that shape the computation.
std::string describe_inputs(const cli_options& o, const molecule& mol, const basis_set& basis) {
  using apps::fnv1a;
  std::uint64_t hm = fnv1a(&mol.charge, sizeof mol.charge);
  for (const atom& a : mol.atoms) {
    hm = fnv1a(&a.z, sizeof a.z, hm);
    hm = fnv1a(a.r.data(), sizeof a.r, hm);
  }
  std::uint64_t hb = 0;
  for (const auto& s : basis.shells) {
    hb = fnv1a(s.alpha.data(), s.alpha.size() * sizeof(double), hb);
    for (const auto& c : s.contr) {
      hb = fnv1a(&c.l, sizeof c.l, hb);
      hb = fnv1a(&c.pure, sizeof c.pure, hb);
      hb = fnv1a(c.coeff.data(), c.coeff.size() * sizeof(double), hb);
    }
  }
  char opts[512];
  std::snprintf(
      opts, sizeof opts,
      "--schwarz %g --max-iter %d --energy-tol %g --density-tol %g --gradient-tol %g --ortho %s "
      "--lindep %g --diis %d --block-size %lld --counter '%s' --dispense %s --guess %s "
      "--rebuild-period %d --early-schwarz %g --early-until %g --integrals %s --integral-memory "
      "%g",
      o.schwarz, o.scf.max_iter, o.scf.energy_tol, o.scf.density_tol, o.scf.gradient_tol,
      o.scf.ortho.c_str(), o.scf.lindep, o.scf.diis_size, static_cast<long long>(o.block_bf),
      o.counter.c_str(), o.dispense.c_str(), o.guess.c_str(), o.scf.rebuild_period,
      o.scf.early_schwarz, o.scf.early_until, o.integrals.c_str(), o.integral_memory_mb);
  return "molecule " + mol.source + " (" + std::to_string(mol.atoms.size()) + " atoms, charge " +
         std::to_string(mol.charge) + ", fingerprint " + apps::hex(hm) + "), basis " + basis.file +
         " (" + std::to_string(basis.nbf) + " functions, fingerprint " + apps::hex(hb) + "), " +
         opts;
}

int run(const cli_options& o, gaea::runtime& rt, report_figures& rep) {
  const bool root = rt.rank() == 0;
  std::FILE* out = root && !o.quiet ? stdout : nullptr;
  const auto constant = parse_bohr_constant(o.bohr);
  if (!constant)
    throw gaea::error("--bohr: unknown constant '" + o.bohr + "' (nwchem, codata2018)");
  // Every rank, before the run: an output that cannot be written is known now, not after it.
  if (!o.output.empty()) gaea::check_output_path(o.output, "--output");
  apps::check_json_target(o.json, "gaea-scf");
  // Every rank reads and validates the molecule and the basis itself; a file bad or missing on
  // some ranks only fails every rank with that rank's message, and different files (or options)
  // on different ranks are refused before any work.
  molecule mol;
  basis_set basis;
  apps::on_every_rank([&] {
    mol = read_xyz(o.xyz, *constant, o.charge);
    basis_request br;
    br.name = o.basis;
    br.library_dir = o.basis_dir;
    br.format = o.basis_format;
    br.form = o.cartesian   ? shell_form::cartesian
              : o.spherical ? shell_form::spherical
                            : shell_form::as_declared;
    basis = load_basis(br, mol);
  });
  apps::same_on_every_rank("inputs", describe_inputs(o, mol, basis));

  scf_options so = o.scf;
  const auto g = parse_guess_kind(o.guess);
  if (!g) throw gaea::error("--guess: unknown guess '" + o.guess + "' (sad, core)");
  so.guess = *g;
  fock_options fo;
  if (!o.counter.empty()) {
    const auto m = gaea::counters::parse_counter_mode(o.counter);
    if (!m)
      throw gaea::error("--counter: unknown mode '" + o.counter + "' (atomic, progress, owner)");
    fo.pool.counter.mode = *m;
  }
  const auto v = gaea::counters::parse_dispense(o.dispense);
  if (!v)
    throw gaea::error("--dispense: unknown variant '" + o.dispense +
                      "' (single, batched, hierarchical)");
  fo.pool.counter.variant = *v;
  fo.pool.threads = apps::cap_threads(o.threads, "gaea-scf", root);
  fo.pool.executor = o.executor == "threads" ? gaea::counters::pool_executor::threads
                                             : gaea::counters::pool_executor::tbb;
  fo.block_bf = o.block_bf;
  fo.schwarz_threshold = o.schwarz;
  fo.integrals = *parse_integral_mode(o.integrals);  // checked by the command line
  fo.integral_memory_mb = o.integral_memory_mb;

  if (out) {
    std::fprintf(out, "gaea-scf: restricted closed-shell Hartree-Fock, %d rank(s), progress %s\n",
                 rt.size(),
                 std::string(gaea::progress::to_string(rt.progress().current_mode())).c_str());
    std::fprintf(out, "molecule: %s, %zu atoms, charge %d, %lld electrons\n", mol.source.c_str(),
                 mol.atoms.size(), mol.charge, static_cast<long long>(mol.electrons()));
    std::fprintf(out, "coordinates: Angstrom x %.12g = Bohr (--bohr %s: %s)\n",
                 angstrom_to_bohr(*constant), std::string(to_string(*constant)).c_str(),
                 *constant == bohr_constant::nwchem
                     ? "NWChem's, 1 Bohr = 0.529177249 A (1.889725989)"
                     : "CODATA 2018, 1 Bohr = 0.529177210903 A");
    std::fprintf(out, "basis: %s from %s: %lld shells, %lld functions, %s (%s)\n",
                 basis.name.c_str(), basis.file.c_str(),
                 static_cast<long long>(basis.shells.size()), static_cast<long long>(basis.nbf),
                 basis.form.c_str(), basis.form_reason.c_str());
    std::fprintf(out, "nuclear repulsion energy: %.12f Eh\n", mol.nuclear_repulsion());
    std::fflush(out);
  }

  const scf_result r = run_scf(mol, basis, so, fo, out);
  rep.tasks = static_cast<double>(r.mine.tasks);
  rep.integrals = r.mine.integrals;
  rep.counter = r.mine.counter;
  rep.get = r.mine.get;
  rep.acc = r.mine.acc;
  rep.diag = r.diag_total;
  if (root && !o.quiet) print_summary(stdout, r, mol);
  // On standard output the figures come whatever the outcome (they say "converged"); a file is
  // written, like --output, only on success.
  const std::string json = root && !o.json.empty() ? results_json(r, basis, rt.size()) : "";
  if (root && o.json == "-") apps::write_json(o.json, json, "gaea-scf");
  if (!r.converged) {
    if (root)
      std::fprintf(stderr,
                   "gaea-scf: error: SCF did not converge in %d iterations (--max-iter); last "
                   "energy %.12f Eh, dE %.3e, rms(dP) %.3e; no output file written\n",
                   r.iterations, r.energy, r.history.back().delta_e, r.history.back().delta_p);
    return 3;
  }
  int status = 0;
  if (root && !std::isnan(o.expect)) {
    const double diff = r.energy - o.expect;
    const bool ok = std::abs(diff) <= o.tolerance;
    std::printf("energy check: %.12f vs expected %.12f, difference %.3e, tolerance %.1e: %s\n",
                r.energy, o.expect, diff, o.tolerance, ok ? "PASS" : "FAIL");
    if (!ok) {
      status = 4;
      if (!o.output.empty()) std::printf("no output file written (energy check failed)\n");
    }
  }
  gaea::coll::broadcast(gaea::coll::world(), std::span<int>(&status, 1), 0);
  // The results are written only on success: a failed check leaves a previous file as it was.
  if (status == 0 && (!o.output.empty() || (!o.json.empty() && o.json != "-"))) {
    std::string problem;
    if (root) {
      try {
        if (!o.output.empty()) {
          write_results(o.output, r, mol, basis, *constant);
          if (out) std::fprintf(out, "\nwrote %s\n", o.output.c_str());
        }
        if (o.json != "-") apps::write_json(o.json, json, "gaea-scf");
      } catch (const gaea::error& e) {
        problem = e.what();
      }
    }
    gaea::coll::agree(gaea::coll::world(), problem);  // every rank fails with rank 0's message
  }
  std::fflush(stdout);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  cli_options o;
  CLI::App app{
      "gaea-scf: restricted closed-shell Hartree-Fock on Gaea (in-core or direct SCF; the Fock "
      "build is load-balanced across ranks by a shared counter)"};
  apps::conventions(app, "gaea-scf");
  app.add_option("xyz", o.xyz, "molecule, .xyz file in Angstrom")->required();
  app.add_option("-b,--basis", o.basis,
                 "basis set: a name in the NWChem library (sto-3g, 6-31G*, cc-pVDZ, ...) or a file")
      ->required();
  app.add_option("--basis-dir", o.basis_dir, "NWChem-format basis library directory")
      ->capture_default_str();
  app.add_option("--basis-format", o.basis_format, "auto, nwchem or g94")->capture_default_str();
  app.add_option("-c,--charge", o.charge, "molecular charge")
      ->check(CLI::Range(-1000, 1000))
      ->capture_default_str();
  auto* cart = app.add_flag("--cartesian", o.cartesian, "cartesian d, f, ... shells");
  app.add_flag("--spherical", o.spherical, "spherical-harmonic d, f, ... shells")->excludes(cart);
  app.add_option(
         "--bohr", o.bohr,
         "Angstrom-to-Bohr constant: nwchem (1/0.529177249) or codata2018 (1/0.529177210903)")
      ->capture_default_str();
  app.add_option("--max-iter", o.scf.max_iter, "maximum SCF iterations")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--energy-tol", o.scf.energy_tol, "convergence: |dE| (Eh)")
      ->check(apps::finite_in(0, 1, true))
      ->capture_default_str();
  app.add_option("--density-tol", o.scf.density_tol, "convergence: rms change of the density")
      ->check(apps::finite_in(0, 1, true))
      ->capture_default_str();
  app.add_option(
         "--gradient-tol", o.scf.gradient_tol,
         "convergence: rms orbital gradient below this instead of the density test (0: off)")
      ->check(apps::finite_in(0, 1, false))
      ->capture_default_str();
  app.add_option("--ortho", o.scf.ortho, "orthogonalisation: symmetric or canonical")
      ->capture_default_str();
  app.add_option("--lindep", o.scf.lindep, "drop overlap eigenvalues below this (canonical)")
      ->check(apps::finite_in(0, 0.01))
      ->capture_default_str();
  app.add_option("--diis", o.scf.diis_size, "DIIS subspace size (0: off)")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  app.add_option("--guess", o.guess,
                 "initial density: sad (superposition of atomic densities) or core (core "
                 "Hamiltonian)")
      ->check(CLI::IsMember({"sad", "core"}))
      ->capture_default_str();
  // 1 makes every build a full one; above ~1000 the period means "never", which lets the
  // screening error of the incremental builds accumulate.
  app.add_option("--rebuild-period", o.scf.rebuild_period,
                 "a full Fock build every this many builds, the others incremental on the density "
                 "change (1: always full), in [1, 1000]")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--early-schwarz", o.scf.early_schwarz,
                 "screening threshold of the early builds, until rms(dP) < --early-until "
                 "(0: none), in [0, 1e-6]")
      ->check(apps::finite_in(0, 1e-6))
      ->capture_default_str();
  app.add_option("--early-until", o.scf.early_until,
                 "rms(dP) that ends the early builds, in (0, 1]")
      ->check(apps::finite_in(0, 1, true))
      ->capture_default_str();
  app.add_option(
      "--counter", o.counter,
      "task counter mode: atomic, progress or owner (default: GAEA_COUNTER, else atomic)");
  app.add_option("--dispense", o.dispense, "task counter variant: single, batched or hierarchical")
      ->capture_default_str();
  app.add_option("--threads", o.threads,
                 "worker threads per rank (0: oneTBB default; capped at the machine's)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--executor", o.executor, "tbb or threads")
      ->check(CLI::IsMember({"tbb", "threads"}))
      ->capture_default_str();
  app.add_option("--block-size", o.block_bf, "basis functions per shell block (0: automatic)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 30))
      ->capture_default_str();
  // Above ~1e-6 screening drops integrals that change the energy beyond chemical accuracy;
  // 1e300 screened everything and "converged" to a meaningless energy.
  app.add_option("--schwarz", o.schwarz, "Schwarz screening threshold, in [0, 1e-6]")
      ->check(apps::finite_in(0, 1e-6))
      ->capture_default_str();
  app.add_option("--integrals", o.integrals,
                 "two-electron integrals: auto (in-core when they fit --integral-memory, else "
                 "direct), direct (recomputed every build) or incore (kept, if they fit)")
      ->check(CLI::IsMember({"auto", "direct", "incore"}))
      ->capture_default_str();
  app.add_option("--integral-memory", o.integral_memory_mb,
                 "MB per rank for in-core integrals (0: half the node's available memory over "
                 "its ranks), in [0, 1e9]")
      ->check(apps::finite_in(0, 1e9))
      ->capture_default_str();
  app.add_option("--output", o.output, "HDF5 results file (written only on success)");
  app.add_option("--expect-energy", o.expect,
                 "exit with status 4 unless the total energy is within --tolerance of this")
      ->check(apps::finite_in(-1e9, 1e9));
  app.add_option("--tolerance", o.tolerance, "for --expect-energy (Eh)")
      ->check(apps::finite_in(0, 1, true))
      ->capture_default_str();
  app.add_flag("-q,--quiet", o.quiet, "print only errors and the energy check");
  apps::add_json_option(app, o.json);
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;

  report_figures rep;
  // An error on any rank ends the job with its message on every rank (exit 1).
  return gaea::run_main("gaea-scf", &argc, &argv, [&](gaea::runtime& rt) {
    gaea::add_report_section(rt, "scf",
                             {gaea::report_count("fock tasks"), "integrals s", "counter wait s",
                              "get s", "accumulate s", "diagonalise s"},
                             [&rep] {
                               return std::vector<double>{rep.tasks, rep.integrals, rep.counter,
                                                          rep.get,   rep.acc,       rep.diag};
                             });
    return run(o, rt, rep);
  });
}
