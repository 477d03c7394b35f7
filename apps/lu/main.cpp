// gaea-lu: blocked right-looking LU factorisation of an N×N matrix held in a 2-D block-cyclic
// global array, with the next panel prefetched by non-blocking gets while the trailing update
// runs (lookahead of one panel), and built-in validation (HPL's scaled residual, and
// ‖A − LU‖_F / ‖A‖_F for small N). See README.md.
//   mpirun -np 4 gaea-lu --n 4096 [--block 256] [--grid 2x2] [--overlap off] [--pivot]
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/dense/blas.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"
#include "h5_io.hpp"
#include "input_check.hpp"
#include "input_checks.hpp"
#include "kernels.hpp"
#include "lu_check.hpp"
#include "lu_factor.hpp"
#include "matrix_gen.hpp"
#include "options.hpp"
#include "task_runner.hpp"
#include "tiled_matrix.hpp"

namespace {

using namespace lu;

/// Reduced over ranks: max and mean of each timing.
struct reduced_times {
  lu_timings max, mean;
};

reduced_times reduce_times(const lu_timings& t, int ranks) {
  std::vector<double> v = {
      t.total, t.compute, t.comm, t.sync, t.transfer, t.hidden, static_cast<double>(t.bytes)};
  std::vector<double> mx = v;
  const gaea::coll::group& world = gaea::coll::world();
  gaea::coll::allreduce(world, std::span<double>(mx), gaea::coll::reduce_op::max);
  gaea::coll::allreduce(world, std::span<double>(v), gaea::coll::reduce_op::sum);
  auto unpack = [](const std::vector<double>& x, double scale) {
    lu_timings r;
    r.total = x[0] * scale;
    r.compute = x[1] * scale;
    r.comm = x[2] * scale;
    r.sync = x[3] * scale;
    r.transfer = x[4] * scale;
    r.hidden = x[5] * scale;
    r.bytes = static_cast<std::uint64_t>(x[6] * scale);
    return r;
  };
  return {unpack(mx, 1.0), unpack(v, 1.0 / ranks)};
}

/// Energy of the factorisation over all ranks (one reading per node for a hardware meter,
/// which covers the whole node).
struct energy_delta {
  double joules = 0;
  bool measured = false;
  std::string source;
};

void generate(tiled_matrix& m, const options& o, task_runner& tasks) {
  const auto& tiles = m.local_tiles();
  tasks.run(tiles.size(), [&](std::size_t t) {
    const local_tile& lt = tiles[t];
    fill_block(o.kind, o.seed, m.n(), m.start(lt.ti), m.start(lt.tj), lt.rows, lt.cols, lt.data,
               lt.ld);
  });
}

/// Perturbs one element of U by a relative 1e-4, so that the checks must fail.
void corrupt(tiled_matrix& m) {
  const index_t e = m.n() / 2, t = e / m.nb();
  if (m.mine(t, t)) {
    const local_tile& lt = m.tile(t, t);
    const index_t r = e - m.start(t);
    lt.at(r, r) *= 1.0 + 1e-4;
  }
  m.array().sync();
}

/// The options that must be the same on every rank (threads may differ: they are per rank).
std::string describe(const options& o) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "--n %lld --block %lld --grid %dx%d%s --overlap %s --matrix %s --seed %llu "
                "--input '%s' --dataset '%s' --factor-check %d",
                static_cast<long long>(o.n), static_cast<long long>(o.block), o.prow, o.pcol,
                o.pivot ? " --pivot" : "", o.overlap ? "on" : "off",
                o.kind == matrix_kind::general ? "general" : "dd",
                static_cast<unsigned long long>(o.seed), o.input.c_str(), o.dataset.c_str(),
                o.factor_check);
  return buf;
}

int run(gaea::runtime& rt, options o) {
  const bool root = rt.rank() == 0;
  // Bad input: every rank checks the options and the input's shape itself and they agree, so
  // that a file bad or missing on one rank, or options different per rank, fail every rank
  // with the same message (thrown to main, which prints it and exits 2).
  o.threads = apps::cap_threads(o.threads, "gaea-lu", root);
  apps::on_every_rank([&] {
    if (!o.input.empty()) o.n = h5_matrix_extent(o.input, o.dataset);
    resolve_options(o, rt.size(), rt.node_size());
  });
  apps::same_on_every_rank("options", describe(o));
  // Every rank, before the run: an output that cannot be written is known now, not after it.
  if (!o.output.empty()) gaea::check_output_path(o.output, "--output");
  apps::check_json_target(o.json, "gaea-lu");
  task_runner tasks(o.threads);

  const double tg0 = now();
  tiled_matrix m("lu_A", o.n, o.block, o.prow, o.pcol);
  // With a file, keep the original for the checks; generated matrices are regenerated.
  std::unique_ptr<tiled_matrix> original;
  if (o.input.empty()) {
    generate(m, o, tasks);
  } else {
    h5_read_matrix(o.input, o.dataset, m);
    check_input_finite(m, o.input, o.dataset);
    original = std::make_unique<tiled_matrix>("lu_A0", o.n, o.block, o.prow, o.pcol);
    auto src = m.array().access();
    std::copy(src.begin(), src.end(), original->array().access().begin());
  }
  m.array().sync();
  if (original) original->array().sync();

  const double generate_s = now() - tg0, tp0 = now();
  // The dgemm rate of one core, every rank at once (as during the factorisation): the peak the
  // factorisation's rate is a fraction of. A tile-sized product, as the trailing update does.
  const double gemm_peak =
      gaea::coll::allreduce(gaea::coll::world(), gemm_gflops(o.block, o.block, o.block, 0.02),
                            gaea::coll::reduce_op::sum) /
      rt.size();
  const double peak_s = now() - tp0;
  (void)rt.energy();  // choose and prove the meter before the timed part
  rt.barrier();
  const gaea::energy_reading e0 = rt.energy();
  const factor_result fr = factor(m, {o.overlap, o.pivot}, tasks);
  rt.barrier();
  const gaea::energy_reading e1 = rt.energy();
  // The first zero pivot of any rank (later ones may follow from it).
  const double no_zero = static_cast<double>(o.n);
  double zero_pivot = gaea::coll::allreduce(
      gaea::coll::world(), fr.zero_pivot >= 0 ? static_cast<double>(fr.zero_pivot) : no_zero,
      gaea::coll::reduce_op::min);
  if (zero_pivot >= no_zero) zero_pivot = -1;
  if (o.corrupt_for_test) corrupt(m);

  // Validation: solve with the factors, residual against the original matrix.
  std::vector<double> b(static_cast<std::size_t>(o.n));
  for (index_t i = 0; i < o.n; ++i)
    b[static_cast<std::size_t>(i)] = rhs_element(o.seed, i);
  const double ts0 = now();
  const std::vector<double> x = solve(m, fr.pivots, b);
  const double solve_s = now() - ts0;
  const tile_source source = [&](index_t ti, index_t tj, index_t rows, index_t cols, double* out) {
    if (original) {
      const local_tile& lt = original->tile(ti, tj);
      for (index_t i = 0; i < rows; ++i)
        std::copy_n(&lt.at(i, 0), cols, out + i * cols);
      return;
    }
    fill_block(o.kind, o.seed, o.n, m.start(ti), m.start(tj), rows, cols, out, cols);
  };
  const double tc0 = now();
  const bool with_factor = o.factor_check == 1 || (o.factor_check == -1 && o.n <= 1024);
  const check_report cr = check(m, fr.pivots, source, b, x, with_factor);
  // Tests: the pivots must be serial LAPACK's (rank 0 factors the whole matrix again).
  double pivot_diff = -1;
  if (o.pivot_check && o.pivot && o.input.empty())
    pivot_diff = gaea::coll::allreduce(
        gaea::coll::world(),
        root ? static_cast<double>(first_pivot_difference(m, fr.pivots, source)) : -1.0,
        gaea::coll::reduce_op::max);
  // One verdict for all ranks (NaN fails), so that all write or none does.
  const bool passed =
      gaea::coll::allreduce(gaea::coll::world(),
                            cr.passed() && zero_pivot < 0 && pivot_diff < 0 ? 1.0 : 0.0,
                            gaea::coll::reduce_op::min) > 0.5;
  const double check_s = now() - tc0;
  // Factors are written only when the run succeeded: failed ones never replace a good file.
  if (!o.output.empty() && passed) h5_write_factors(o.output, m, fr.pivots);

  const reduced_times rtm = reduce_times(fr.times, rt.size());
  const bool count_energy = e1.measured ? rt.node_rank() == 0 : true;
  const double joules = gaea::coll::allreduce(
      gaea::coll::world(), count_energy ? e1.joules - e0.joules : 0.0, gaea::coll::reduce_op::sum);
  if (!root) return passed ? 0 : 1;

  const double nd = static_cast<double>(o.n), flops = 2.0 * nd * nd * nd / 3.0;
  const double t = rtm.max.total, gflops = flops / t * 1e-9;
  const lu_timings& a = rtm.mean;
  std::printf(
      "gaea-lu: N=%lld block=%lld grid=%dx%d ranks=%d threads/rank=%d pivot=%s "
      "overlap=%s progress=%s matrix=%s%s\n",
      static_cast<long long>(o.n), static_cast<long long>(o.block), o.prow, o.pcol, rt.size(),
      o.threads, o.pivot ? "yes" : "no", o.overlap ? "on" : "off",
      std::string(gaea::progress::to_string(rt.progress().current_mode())).c_str(),
      o.input.empty() ? (o.kind == matrix_kind::general ? "general" : "dd") : "file",
      o.input.empty() ? "" : (" (" + o.input + ")").c_str());
  const double peak = gemm_peak * rt.size() * o.threads;
  std::printf(
      "factorisation: %.4f s, %.3f Gflop/s (2N^3/3) = %.1f%% of the dgemm peak (%d ranks x %d "
      "threads x %.2f Gflop/s, %s)\n",
      t, gflops, 100.0 * gflops / peak, rt.size(), o.threads, gemm_peak,
      gaea::dense::blas_description().c_str());
  std::printf(
      "time per rank (mean | max): compute %.4f | %.4f s, comm wait %.4f | %.4f s, "
      "sync %.4f | %.4f s, other %.4f s\n",
      a.compute, rtm.max.compute, a.comm, rtm.max.comm, a.sync, rtm.max.sync,
      a.total - a.compute - a.comm - a.sync);
  std::printf(
      "overlap: %.1f%% of %.4f s panel transfer time hidden behind computation "
      "(%.1f MB fetched per rank)\n",
      100.0 * a.overlap(), a.transfer, static_cast<double>(a.bytes) / 1e6);
  std::printf("energy: %.2f J for the factorisation (%s, %s)\n", joules,
              e1.measured ? "measured" : "estimated", e1.source.c_str());
  std::printf(
      "solve: %.4f s; rank 0 also spent: generation %.4f s, dgemm peak %.4f s, checks %.4f s\n",
      solve_s, generate_s, peak_s, check_s);
  // With partial pivoting a zero pivot means the whole column below the diagonal was zero.
  if (zero_pivot >= 0 && o.pivot)
    std::printf(
        "the matrix is singular: at elimination step %.0f, column %.0f (counting from 0) has no "
        "nonzero entry on or below the diagonal to pivot on\n",
        zero_pivot, zero_pivot);
  else if (zero_pivot >= 0)
    std::printf(
        "zero pivot at elimination step %.0f (diagonal entry %.0f, counting from 0): run with "
        "--pivot, unless the matrix is singular\n",
        zero_pivot, zero_pivot);
  std::printf("check: scaled residual |Ax-b|/(|A||x| N eps) = %.4g (< %g) %s\n", cr.scaled_residual,
              residual_threshold, cr.scaled_residual < residual_threshold ? "PASSED" : "FAILED");
  if (o.pivot_check && o.pivot && o.input.empty()) {
    if (pivot_diff < 0)
      std::printf("check: pivots equal serial LAPACK dgetrf's PASSED\n");
    else
      std::printf("check: pivots differ from serial LAPACK dgetrf's from row %.0f FAILED\n",
                  pivot_diff);
  }
  if (cr.factor_checked)
    std::printf("check: |PA-LU|_F/|A|_F = %.3e (%.3g N eps, < %g) %s\n", cr.factor_error,
                cr.factor_scaled, factor_threshold,
                cr.factor_scaled < factor_threshold ? "PASSED" : "FAILED");
  // On standard output the figures come whatever the outcome (they say "passed"); a file only
  // when the checks passed, as --output.
  if (o.json == "-" || (!o.json.empty() && passed)) {
    nlohmann::json j = {{"n", o.n},
                        {"block", o.block},
                        {"grid", std::to_string(o.prow) + "x" + std::to_string(o.pcol)},
                        {"ranks", rt.size()},
                        {"threads", o.threads},
                        {"pivot", o.pivot},
                        {"overlap", o.overlap},
                        {"time_s", t},
                        {"gflops", gflops},
                        {"dgemm_gflops_per_core", gemm_peak},
                        {"peak_fraction", gflops / peak},
                        {"compute_s", a.compute},
                        {"comm_s", a.comm},
                        {"sync_s", a.sync},
                        {"transfer_s", a.transfer},
                        {"overlap_fraction", a.overlap()},
                        {"bytes_per_rank", a.bytes},
                        {"energy_j", joules},
                        {"energy_measured", e1.measured},
                        {"solve_s", solve_s},
                        {"generate_s", generate_s},
                        {"peak_s", peak_s},
                        {"check_s", check_s},
                        {"scaled_residual", cr.scaled_residual},
                        {"passed", passed}};
    if (cr.factor_checked) j["factor_error"] = cr.factor_error;
    apps::write_json(o.json, j.dump(), "gaea-lu");
  }
  if (!o.output.empty())
    std::printf(passed ? "wrote %s\n" : "no output written to %s: the check failed\n",
                o.output.c_str());
  std::fflush(stdout);
  return passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  if (const auto exit_code = parse_options(argc, argv, o)) return *exit_code;
  // An error on any rank ends the job with its message on every rank (exit 2).
  return gaea::run_main(
      "gaea-lu", &argc, &argv, [&](gaea::runtime& rt) { return run(rt, o); }, 2);
}
