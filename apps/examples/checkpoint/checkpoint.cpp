// gaea-checkpoint: checkpoint/restart of a global-array computation through HDF5.
//
// The computation is explicit heat diffusion on a periodic n x n grid held in a global array
// with one ghost cell per side: every step updates the ghosts and applies the 5-point stencil on
// each rank's own tile. Every `every` steps the field and the step number are written to one
// HDF5 file (ga::h5_writer: written under a temporary name, renamed when complete).
//
// Phases (--phase):
//   all      (default) run uninterrupted to --steps; run again but stop ("crash") after
//            --crash-at steps; restart from the last checkpoint with a *different*
//            distribution and finish; the result must equal the uninterrupted one bit for bit.
//   crash    only the interrupted run (leaves the checkpoint file).
//   restart  the uninterrupted reference and the restart from --checkpoint: use it to restart with
//            another number of ranks than the crashed run, e.g.
//              mpirun -np 3 gaea-checkpoint --phase crash --checkpoint /tmp/c.h5
//              mpirun -np 2 gaea-checkpoint --phase restart --checkpoint /tmp/c.h5
// A checkpoint is validated before the restart: its step must be a checkpoint step of this run
// and every value finite (a NaN is refused, naming the element). The comparison counts unequal
// elements, so a NaN can never pass as "identical".
// Exit status 0 when the restarted result equals the reference, 1 when not, 2 on an error or a
// bad command line (see gaea-checkpoint --help).
//   mpirun -np 4 gaea-checkpoint [--n 96] [--steps 40] [--every 10] [--crash-at 25]
//                                [--checkpoint checkpoint.h5] [--phase all|crash|restart]
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/ga/algorithms.hpp"
#include "gaea/ga/io.hpp"
#include "gaea/runtime/runtime.hpp"
#include "input_checks.hpp"

using gaea::global_array;
using gaea::ga::index;
using gaea::ga::index_t;
using gaea::ga::layout_spec;

namespace {

struct options {
  index_t n = 96, steps = 40, every = 10, crash_at = 25;
  std::string file = "checkpoint.h5", phase = "all";
};

// Adds the options to `app`; `o` is filled and checked when app parses.
void add_options(CLI::App& app, options& o) {
  app.add_option("--n", o.n, "grid points per side")->capture_default_str();
  app.add_option("--steps", o.steps, "steps of the uninterrupted run")->capture_default_str();
  app.add_option("--every", o.every, "checkpoint every k steps")->capture_default_str();
  app.add_option("--crash-at", o.crash_at, "the interrupted run stops after this step")
      ->capture_default_str();
  app.add_option("--checkpoint", o.file, "checkpoint file (HDF5)")->capture_default_str();
  app.add_option("--phase", o.phase, "all | crash | restart")
      ->check(CLI::IsMember({"all", "crash", "restart"}))
      ->capture_default_str();
  app.callback([&o] {
    if (o.n < 3 || o.steps < 1 || o.every < 1 || o.crash_at < o.every || o.crash_at >= o.steps)
      throw gaea::error("need n >= 3, steps >= 1, every <= crash-at < steps");
  });
}

// A hot square in a cold field.
double initial(index_t i, index_t j, index_t n) {
  return (i > n / 4 && i < n / 2 && j > n / 3 && j < 2 * n / 3) ? 100.0 : 0.0;
}

gaea::global_array<double> make_field(const std::string& name, index_t n,
                                      const layout_spec& layout) {
  gaea::global_array<double> u(name, {n, n}, layout);
  u.zero();
  for (const auto& t : u.local_tiles())
    for (index_t i = t.box.lo[0]; i <= t.box.hi[0]; ++i)
      for (index_t j = t.box.lo[1]; j <= t.box.hi[1]; ++j)
        t.at({i, j}) = initial(i, j, n);
  u.sync();
  return u;
}

// One explicit step v = u + c * laplacian(u) on the periodic grid; then u and v swap.
void step(gaea::global_array<double>& u, gaea::global_array<double>& v) {
  constexpr double c = 0.2;
  u.update_ghosts(gaea::ga::boundary::periodic);
  const auto tu = u.local_tiles(), tv = v.local_tiles();
  for (std::size_t k = 0; k < tu.size(); ++k)
    for (index_t i = tu[k].box.lo[0]; i <= tu[k].box.hi[0]; ++i)
      for (index_t j = tu[k].box.lo[1]; j <= tu[k].box.hi[1]; ++j) {
        const auto& a = tu[k];
        const double centre = a.at({i, j});
        tv[k].at({i, j}) = centre + c * (a.at({i - 1, j}) + a.at({i + 1, j}) + a.at({i, j - 1}) +
                                         a.at({i, j + 1}) - 4.0 * centre);
      }
  v.sync();
  std::swap(u, v);
}

// Runs steps from+1 .. to; checkpoints after every step that is a multiple of `every` (when a
// file is given).
void advance(gaea::global_array<double>& u, gaea::global_array<double>& v, index_t from, index_t to,
             const options& o, bool checkpoint) {
  gaea::global_array<std::int64_t> counter("step", {1});
  for (index_t s = from + 1; s <= to; ++s) {
    step(u, v);
    if (!checkpoint || s % o.every != 0) continue;
    counter.fill(s);
    gaea::ga::h5_writer w(o.file);
    w.write(u, "u");
    w.write(counter, "step");
    w.commit();
    if (gaea::runtime::current().rank() == 0)
      std::printf("  checkpoint at step %lld -> %s\n", static_cast<long long>(s), o.file.c_str());
  }
}

layout_spec writer_layout() {
  return layout_spec::block().with_ghosts({1, 1});
}
// Another distribution for the restart: rows split unevenly (when there are ranks to split on).
layout_spec restart_layout(index_t n, int ranks) {
  if (ranks < 2) return layout_spec::block({n, 1}).with_ghosts({1, 1});
  return layout_spec::irregular(
             {{0, n / 3}, ranks >= 4 ? std::vector<index_t>{0, n / 2} : std::vector<index_t>{0}})
      .with_ghosts({1, 1});
}

// Elements where a and b (same dims) differ, NaN counting as a difference; collective.
std::int64_t count_unequal(const gaea::global_array<double>& a, gaea::global_array<double>& b) {
  std::int64_t mine = 0;
  for (const auto& t : a.local_tiles()) {
    const index_t rows = t.box.extent(0), cols = t.box.extent(1);
    std::vector<double> theirs(static_cast<std::size_t>(rows * cols));
    b.get(t.box, theirs);
    for (index_t i = 0; i < rows; ++i)
      for (index_t j = 0; j < cols; ++j)
        if (!(t.at({t.box.lo[0] + i, t.box.lo[1] + j}) ==
              theirs[static_cast<std::size_t>(i * cols + j)]))
          ++mine;
  }
  return gaea::coll::allreduce(gaea::coll::world(), mine, gaea::coll::reduce_op::sum);
}

// A checkpoint is validated before the run continues from it: its step must be one this run
// writes (a multiple of --every in [--every, --steps)) and every value finite (a heat field
// cannot hold a NaN or an infinity). Collective: every rank fails with the same message.
void check_checkpoint(const gaea::global_array<double>& u, std::int64_t step, const options& o) {
  std::string problem;
  if (step < o.every || step >= o.steps || step % o.every != 0)
    problem = "checkpoint '" + o.file + "': step " + std::to_string(step) +
              " is not a checkpoint step of this run (a multiple of --every " +
              std::to_string(o.every) + " below --steps " + std::to_string(o.steps) + ")";
  for (const auto& t : u.local_tiles())
    for (index_t i = t.box.lo[0]; i <= t.box.hi[0] && problem.empty(); ++i)
      for (index_t j = t.box.lo[1]; j <= t.box.hi[1]; ++j)
        if (!std::isfinite(t.at({i, j}))) {
          problem = "checkpoint '" + o.file + "': u(" + std::to_string(i) + ", " +
                    std::to_string(j) + ") is " + std::to_string(t.at({i, j})) +
                    "; the field must be finite";
          break;
        }
  apps::agree(problem);
}

// "96 x 96" for the dims of an array.
std::string shape_text(const index& dims) {
  std::string t;
  for (std::size_t k = 0; k < dims.size(); ++k)
    t += (k ? " x " : "") + std::to_string(dims[k]);
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gaea-checkpoint: checkpoint/restart of heat diffusion on a global array (HDF5)"};
  apps::conventions(app, "gaea-checkpoint");
  options o;
  add_options(app, o);
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;
  // An error on any rank ends the job with its message on every rank (exit 2).
  return gaea::run_main(
      "gaea-checkpoint", &argc, &argv,
      [&](gaea::runtime& rt) {
        const bool root = rt.rank() == 0;
        if (o.phase != "restart") {
          if (root)
            std::printf("interrupted run: %lld steps of %lld, checkpoint every %lld\n",
                        static_cast<long long>(o.crash_at), static_cast<long long>(o.steps),
                        static_cast<long long>(o.every));
          auto u = make_field("u", o.n, writer_layout()), v = u.duplicate("v");
          advance(u, v, 0, o.crash_at, o, true);
          if (root) std::printf("  crash after step %lld\n", static_cast<long long>(o.crash_at));
        }
        if (o.phase == "crash") return 0;

        // The checkpoint says its shape and the writer's layout; a field of another --n cannot
        // continue this run, and is refused now rather than after the reference run.
        const auto info = gaea::ga::describe(o.file, "u");
        apps::agree(info.dims == index{o.n, o.n}
                        ? std::string()
                        : "checkpoint '" + o.file + "': its field u is " + shape_text(info.dims) +
                              ", but this run's --n " + std::to_string(o.n) + " needs " +
                              std::to_string(o.n) + " x " + std::to_string(o.n) +
                              " (restart with the --n it was written with)");

        // The reference: one uninterrupted run.
        auto ref = make_field("ref", o.n, writer_layout()), tmp = ref.duplicate("tmp");
        advance(ref, tmp, 0, o.steps, o, false);

        // Restart: read the checkpoint into another layout.
        const layout_spec layout = restart_layout(info.dims[0], rt.size());
        gaea::global_array<double> u("u", info.dims, layout), v("v", info.dims, layout);
        gaea::global_array<std::int64_t> counter("step", {1});
        gaea::ga::read(u, o.file, "u");
        gaea::ga::read(counter, o.file, "step");
        std::vector<std::int64_t> s(1);
        counter.get({{0}, {0}}, s);
        check_checkpoint(u, s[0], o);
        if (root)
          std::printf("restart from step %lld (written by %lld ranks, %s layout) on %d ranks\n",
                      static_cast<long long>(s[0]), static_cast<long long>(info.writer_ranks),
                      info.layout_kind.c_str(), rt.size());
        advance(u, v, s[0], o.steps, o, false);

        // Compare: the stencil does the same arithmetic whatever the distribution, so the results
        // must be identical, not merely close. The count of unequal elements decides: a NaN is
        // unequal to everything (the infinity norm of the difference skipped it: "identical").
        gaea::global_array<double> diff("diff", info.dims);
        gaea::ga::add(1.0, u, -1.0, ref, diff);
        const double err = gaea::ga::norm(diff, gaea::ga::norm_kind::inf);
        const double total = gaea::ga::norm(u);
        const std::int64_t unequal = count_unequal(u, ref);
        if (root)
          std::printf(
              "after %lld steps: |u|_2 = %.12g, |restarted - uninterrupted|_inf = %g, %lld "
              "element(s) differ: %s\n",
              static_cast<long long>(o.steps), total, err, static_cast<long long>(unequal),
              unequal == 0 ? "identical" : "DIFFERENT");
        return unequal == 0 ? 0 : 1;
      },
      2);
}
