// gaea-lbm: D2Q9 lattice Boltzmann flow solver on 2-D decomposed global arrays.
//   mpirun -np 4 gaea-lbm --case cavity --nx 128 --re 100 --output out --every 5000
// Runs until --steps or until the flow is steady, checks the built-in cases against known
// solutions (exit 1 if a check fails), and prints MLUPS, the compute / ghost-exchange split and
// the energy used. See apps/lbm/README.md.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <thread>

#include <nlohmann/json.hpp>

#include "cases.hpp"
#include "cli.hpp"
#include "gaea/base/error.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/runtime/runtime.hpp"
#include "input_checks.hpp"
#include "snapshot.hpp"
#include "solver.hpp"

namespace {

using namespace lbm;

struct options {
  case_params p;
  std::int64_t steps = -1;  // -1: the case's default
  std::int64_t every = 0;
  std::int64_t check = 0;  // 0: the case's default
  double tol = 1e-7;
  std::string output, restart, grid;
  int threads = 0;
  bool no_check = false;
  std::string json;               // --json target ("-": standard output)
  std::string stores = "cached";  // --stores
  std::string overlap = "off";    // --overlap
};

std::vector<int> parse_grid(const std::string& s) {
  if (s.empty()) return {};
  int py = 0, px = 0;
  char x = 0, extra = 0;
  std::istringstream in(s);
  if (!(in >> py >> x >> px) || x != 'x' || in >> extra || py < 1 || px < 1)
    throw gaea::error("lbm: --grid '" + s + "' must look like 2x2 (rows x columns of ranks)");
  return {py, px};
}

std::string fmt_g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

double secs(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// Max and sum over ranks.
std::pair<double, double> max_sum(double v) {
  const gaea::coll::group& world = gaea::coll::world();
  return {gaea::coll::allreduce(world, v, gaea::coll::reduce_op::max),
          gaea::coll::allreduce(world, v, gaea::coll::reduce_op::sum)};
}

/// What must be the same on every rank: the options that shape the run and a fingerprint of the
/// geometry (the mask).
std::string describe_run(const options& o, const config& cfg) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "--case %s --nx %lld --ny %lld tau %.17g force (%.17g, %.17g) --steps %lld "
                "--every %lld --check %lld --tol %.17g --grid '%s' --restart '%s' --output '%s'",
                cfg.name.c_str(), static_cast<long long>(cfg.nx), static_cast<long long>(cfg.ny),
                cfg.tau, cfg.fx, cfg.fy, static_cast<long long>(o.steps),
                static_cast<long long>(o.every), static_cast<long long>(o.check), o.tol,
                o.grid.c_str(), o.restart.c_str(), o.output.c_str());
  return std::string(buf) + " mask fingerprint " +
         apps::hex(apps::fnv1a(cfg.solid.data(), cfg.solid.size()));
}

int run(gaea::runtime& rt, const options& o) {
  const bool root = rt.rank() == 0;
  // Every rank builds the case itself (a --mask file is read by each); a file bad or missing on
  // some ranks only fails every rank with that rank's message, and different options or masks
  // on different ranks are refused before any array exists.
  flow_case fc;
  apps::on_every_rank([&] { fc = make_case(o.p); });
  const config& cfg = fc.cfg;
  apps::same_on_every_rank("options", describe_run(o, cfg));
  // Before the run: an --output that cannot take snapshots is known now, not at the first one.
  if (!o.output.empty()) apps::on_every_rank([&] { check_snapshot_dir(o.output, "--output"); });
  apps::on_every_rank([&] { apps::check_json_target(o.json, "gaea-lbm"); });
  const bool validating = !o.no_check && (cfg.name == "poiseuille" || cfg.name == "cavity");
  std::int64_t steps = o.steps;
  if (steps < 0) steps = cfg.name == "cavity" ? 60000 : cfg.name == "poiseuille" ? 20000 : 1000;
  const std::int64_t check = o.check > 0 ? o.check : 200;
  int threads = apps::cap_threads(o.threads, "gaea-lbm", root);
  if (threads == 0)
    threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / rt.node_size());
  solver s(cfg, parse_grid(o.grid), threads);
  s.set_streaming_stores(o.stores == "streaming");
  s.set_overlap(o.overlap == "on");
  if (root)
    std::printf("gaea-lbm: case %s, %" PRId64 " x %" PRId64
                ", tau %.6f (nu %.6f), U %.4f, Re %.2f, "
                "%d ranks as %d x %d tiles, %d threads per rank, overlap %s\n",
                cfg.name.c_str(), cfg.nx, cfg.ny, cfg.tau, cfg.nu(), fc.u, fc.re, rt.size(),
                s.grid()[0], s.grid()[1], threads, o.overlap.c_str());
  snapshot_extra mon;
  if (!o.restart.empty()) {
    mon = read_snapshot(s, o.restart);
    if (root)
      std::printf("gaea-lbm: restarted from %s at step %" PRId64 "\n", o.restart.c_str(),
                  s.steps_done());
  }
  const std::int64_t first = s.steps_done();
  std::vector<std::pair<std::int64_t, std::string>> snaps;
  // A diverged flow (NaN or infinite populations) is an error, whatever --tol says: checked
  // every `check` steps and before anything is written or reported, so nothing of it is.
  auto require_finite = [&] {
    if (!s.finite())
      throw gaea::error("lbm: the flow diverged (non-finite populations) by step " +
                        std::to_string(s.steps_done()) +
                        "; nothing was written; lower --u or raise --tau");
  };
  auto snapshot = [&] {
    require_finite();
    const std::string path = write_snapshot(s, o.output, mon);
    snaps.emplace_back(s.steps_done(), path);
    std::string problem;  // rank 0 writes the series; every rank fails with its error
    if (root) {
      try {
        write_xdmf(o.output, cfg, snaps);
      } catch (const gaea::error& e) {
        problem = e.what();
      }
    }
    gaea::coll::agree(gaea::coll::world(), problem);
  };
  const gaea::energy_reading e0 = rt.energy();
  double t_loop = 0, t_io = 0, residual = -1;
  bool steady = false;
  while (s.steps_done() < steps && !steady) {
    std::int64_t n = steps - s.steps_done();
    const std::int64_t done = s.steps_done();
    if (o.every > 0) n = std::min(n, o.every - done % o.every);
    n = std::min(n, check - done % check);
    auto t0 = std::chrono::steady_clock::now();
    s.step(n);
    t_loop += secs(std::chrono::steady_clock::now() - t0);
    t0 = std::chrono::steady_clock::now();
    if (s.steps_done() % check == 0) require_finite();
    if (o.tol > 0 && s.steps_done() % check == 0) {
      // Steady when u_x along the middle column changed by less than tol * U per step.
      std::vector<double> m = monitor(s);
      for (double v : m)
        if (!std::isfinite(v))
          throw gaea::error("lbm: the flow diverged (non-finite velocity) by step " +
                            std::to_string(s.steps_done()) + "; lower --u or raise --tau");
      if (mon.monitor_step >= 0 && mon.monitor.size() == m.size()) {
        double d = 0;
        for (std::size_t k = 0; k < m.size(); ++k)
          d = std::max(d, std::abs(m[k] - mon.monitor[k]));
        residual = d / fc.u / static_cast<double>(s.steps_done() - mon.monitor_step);
        steady = residual < o.tol;
      }
      mon.monitor = std::move(m);
      mon.monitor_step = s.steps_done();
    }
    if (!o.output.empty() && o.every > 0 && s.steps_done() % o.every == 0) snapshot();
    t_io += secs(std::chrono::steady_clock::now() - t0);
  }
  if (!o.output.empty() && (snaps.empty() || snaps.back().first != s.steps_done())) {
    const auto t0 = std::chrono::steady_clock::now();
    snapshot();
    t_io += secs(std::chrono::steady_clock::now() - t0);
  }
  require_finite();  // the last steps since a check, and a run of no steps from a restart
  const gaea::energy_reading e1 = rt.energy();
  int rc = 0;
  if (validating) {
    const check_result r = cfg.name == "poiseuille" ? check_poiseuille(s) : check_cavity(s, fc.u);
    if (root)
      std::printf("%s%s check %s\n", r.text.c_str(), cfg.name.c_str(),
                  r.pass ? "PASSED" : "FAILED");
    rc = r.pass ? 0 : 1;
  }
  const std::uint64_t sum = s.checksum();
  const auto [tc_max, tc_sum] = max_sum(s.time().compute);
  const auto [tg_max, tg_sum] = max_sum(s.time().ghosts);
  const auto [tw_max, tw_sum] = max_sum(s.time().ghost_wait);
  // A whole-node hardware meter is counted once per node; the model once per rank.
  const double joules = (e1.measured && rt.node_rank() != 0) ? 0.0 : e1.joules - e0.joules;
  const auto [j_max, j_sum] = max_sum(joules);
  (void)j_max;
  if (root) {
    const std::int64_t ran = s.steps_done() - first;
    const double updates = static_cast<double>(cfg.nx * cfg.ny) * static_cast<double>(ran);
    const double p = rt.size();
    std::printf(
        "gaea-lbm: %" PRId64 " steps (%" PRId64 " to %" PRId64
        ")%s, loop %.3f s, I/O %.3f s, "
        "%.2f MLUPS\n",
        ran, first, s.steps_done(),
        steady ? (" steady (residual " + fmt_g(residual) + " per step)").c_str()
               : (residual >= 0 ? (", residual " + fmt_g(residual) + " per step").c_str() : ""),
        t_loop, t_io, t_loop > 0 ? updates / t_loop / 1e6 : 0.0);
    // t_ghosts is the exchange time not hidden behind the kernel (with overlap: starting the
    // update plus the final wait, of which the wait is printed too).
    std::printf(
        "gaea-lbm: per rank t_compute %.3f s (max %.3f), t_ghosts %.3f s (max %.3f), "
        "ghost share %.1f%%, overlap %s (t_ghost_wait %.3f s, max %.3f)\n",
        tc_sum / p, tc_max, tg_sum / p, tg_max, 100.0 * tg_sum / std::max(1e-30, tc_sum + tg_sum),
        o.overlap.c_str(), tw_sum / p, tw_max);
    std::printf("gaea-lbm: energy %.2f J (%s, %s), %.3f uJ per cell update\n", j_sum,
                e1.measured ? "measured" : "estimated", e1.source.c_str(),
                updates > 0 ? j_sum / updates * 1e6 : 0.0);
    std::printf("gaea-lbm: checksum %016" PRIx64 "\n", sum);
    if (!o.output.empty())
      std::printf("gaea-lbm: %zu snapshot(s), series %s/lbm.xmf\n", snaps.size(), o.output.c_str());
    // On standard output whatever the outcome (it says "passed"); a file only on success.
    if (o.json == "-" || (!o.json.empty() && rc == 0)) {
      // The figures of the run in one line: gaea-model's lbm profile (framework/model) reads it.
      const nlohmann::json j = {
          {"case", cfg.name},
          {"nx", cfg.nx},
          {"ny", cfg.ny},
          {"ranks", rt.size()},
          {"threads", threads},
          {"grid", std::to_string(s.grid()[0]) + "x" + std::to_string(s.grid()[1])},
          {"periodic", cfg.periodic_x() || cfg.periodic_y()},
          {"steps", ran},
          {"loop_s", t_loop},
          {"mlups", t_loop > 0 ? updates / t_loop / 1e6 : 0.0},
          {"compute_s", tc_sum / p},
          {"compute_max_s", tc_max},
          {"ghosts_s", tg_sum / p},
          {"ghosts_max_s", tg_max},
          {"overlap", s.overlap()},
          {"ghost_wait_s", tw_sum / p},
          {"energy_j", j_sum},
          {"passed", rc == 0}};
      apps::write_json(o.json, j.dump(), "gaea-lbm");
    }
  }
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  CLI::App app{"gaea-lbm: D2Q9 lattice Boltzmann on Gaea global arrays"};
  apps::conventions(app, "gaea-lbm");
  app.add_option("--case", o.p.name, "poiseuille | cavity | mask")
      ->check(CLI::IsMember({"poiseuille", "cavity", "mask"}));
  app.add_option("--nx", o.p.nx, "cells along x (default: per case)")
      ->check(CLI::Range(index_t{1}, index_t{1} << 24));
  app.add_option("--ny", o.p.ny, "cells along y (default: per case)")
      ->check(CLI::Range(index_t{1}, index_t{1} << 24));
  app.add_option("--steps", o.steps, "maximum step count (total, counting a restart's steps)")
      ->check(CLI::NonNegativeNumber);
  // NaN means "the case's default" inside case_params, so a NaN given on the command line must
  // be refused here, or it would silently become the default.
  auto* re = app.add_option("--re", o.p.re, "Reynolds number U L / nu (cavity default 100)")
                 ->check(apps::finite_in(0, 1e9, true));
  app.add_option("--tau", o.p.tau, "BGK relaxation time, in (0.5, 100] (stability)")
      ->check(apps::finite_in(0.5, 100, true))
      ->excludes(re);
  app.add_option("--u", o.p.u,
                 "characteristic velocity: lid, centre-line or inlet (lattice units, (0, 0.4])")
      ->check(apps::finite_in(0, 0.4, true));
  app.add_option("--mask", o.p.mask_file,
                 "obstacle mask: PBM/PGM image or HDF5 with dataset 'solid'")
      ->check(CLI::ExistingFile);
  app.add_option("--flow", o.p.flow,
                 "case mask: inlet (velocity in, pressure out) | force (periodic)")
      ->check(CLI::IsMember({"inlet", "force"}));
  app.add_option("--force", o.p.force, "case mask, flow force: body-force density along x")
      ->check(apps::finite_in(-0.1, 0.1));
  app.add_option("--output", o.output, "directory for HDF5 snapshots and the XDMF series");
  app.add_option("--every", o.every, "snapshot every k steps (0: only at the end)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--restart", o.restart, "continue from this snapshot")->check(CLI::ExistingFile);
  app.add_option("--threads", o.threads,
                 "oneTBB threads per rank (0: cores / ranks on the node; capped at the machine's)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--grid", o.grid, "process grid PYxPX (default: squarest)");
  app.add_option("--check", o.check, "steadiness test every k steps (default 200)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--tol", o.tol, "steady when max |du| / U per step < tol (0: run all steps)")
      ->check(apps::finite_in(0, 1));
  app.add_flag("--no-check", o.no_check, "skip the validation of the poiseuille/cavity cases");
  app.add_option("--stores", o.stores,
                 "how the kernel writes: cached (default) or streaming (non-temporal stores, "
                 "measured slower on this VM)")
      ->check(CLI::IsMember({"streaming", "cached"}));
  app.add_option("--overlap", o.overlap,
                 "on: exchange the ghosts while the tile's interior is updated; off (default): "
                 "exchange, then update (same results)")
      ->check(CLI::IsMember({"on", "off"}));
  apps::add_json_option(app, o.json);
  app.callback([&o] {
    if (o.every > 0 && o.output.empty())
      throw gaea::error("--every " + std::to_string(o.every) + " needs --output DIR");
  });
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;
  // An error on any rank ends the job with its message on every rank (exit 2).
  return gaea::run_main(
      "gaea-lbm", &argc, &argv, [&](gaea::runtime& rt) { return run(rt, o); }, 2);
}
