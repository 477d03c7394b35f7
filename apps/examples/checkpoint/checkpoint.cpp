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
//   restart  the uninterrupted reference and the restart from --file: use it to restart with
//            another number of ranks than the crashed run, e.g.
//              mpirun -np 3 gaea-checkpoint --phase crash --file /tmp/c.h5
//              mpirun -np 2 gaea-checkpoint --phase restart --file /tmp/c.h5
// Exit status 0 when the restarted result equals the reference, 1 when not, 2 on an error.
//   mpirun -np 4 gaea-checkpoint [--n 96] [--steps 40] [--every 10] [--crash-at 25]
//                                [--file checkpoint.h5] [--phase all|crash|restart]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "gaea/ga/algorithms.hpp"
#include "gaea/ga/io.hpp"
#include "gaea/runtime/runtime.hpp"

using gaea::global_array;
using gaea::ga::index;
using gaea::ga::index_t;
using gaea::ga::layout_spec;

namespace {

struct options {
  index_t n = 96, steps = 40, every = 10, crash_at = 25;
  std::string file = "checkpoint.h5", phase = "all";
};

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) throw gaea::Error("gaea-checkpoint: " + a + " needs a value");
    const char* v = argv[++i];
    if (a == "--n")
      o.n = std::atoll(v);
    else if (a == "--steps")
      o.steps = std::atoll(v);
    else if (a == "--every")
      o.every = std::atoll(v);
    else if (a == "--crash-at")
      o.crash_at = std::atoll(v);
    else if (a == "--file")
      o.file = v;
    else if (a == "--phase")
      o.phase = v;
    else
      throw gaea::Error("gaea-checkpoint: unknown option " + a);
  }
  if (o.n < 3 || o.steps < 1 || o.every < 1 || o.crash_at < o.every || o.crash_at >= o.steps)
    throw gaea::Error("gaea-checkpoint: need n >= 3, steps >= 1, every <= crash-at < steps");
  if (o.phase != "all" && o.phase != "crash" && o.phase != "restart")
    throw gaea::Error("gaea-checkpoint: --phase is all, crash or restart, not " + o.phase);
  return o;
}

// A hot square in a cold field.
double initial(index_t i, index_t j, index_t n) {
  return (i > n / 4 && i < n / 2 && j > n / 3 && j < 2 * n / 3) ? 100.0 : 0.0;
}

global_array<double> make_field(const std::string& name, index_t n, const layout_spec& layout) {
  global_array<double> u(name, {n, n}, layout);
  u.zero();
  for (const auto& t : u.local_tiles())
    for (index_t i = t.box.lo[0]; i <= t.box.hi[0]; ++i)
      for (index_t j = t.box.lo[1]; j <= t.box.hi[1]; ++j)
        t.at({i, j}) = initial(i, j, n);
  u.sync();
  return u;
}

// One explicit step v = u + c * laplacian(u) on the periodic grid; then u and v swap.
void step(global_array<double>& u, global_array<double>& v) {
  constexpr double c = 0.2;
  u.update_ghosts(true);
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
void advance(global_array<double>& u, global_array<double>& v, index_t from, index_t to,
             const options& o, bool checkpoint) {
  global_array<std::int64_t> counter("step", {1});
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

}  // namespace

namespace {
// The example itself; errors are thrown (main hands them to runtime::fail).
int checkpoint_main(gaea::runtime& rt, const options& o) {
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

  // The reference: one uninterrupted run.
  auto ref = make_field("ref", o.n, writer_layout()), tmp = ref.duplicate("tmp");
  advance(ref, tmp, 0, o.steps, o, false);

  // Restart: the checkpoint says its shape and the writer's layout; read it into another one.
  const auto info = gaea::ga::describe(o.file, "u");
  const layout_spec layout = restart_layout(info.dims[0], rt.size());
  global_array<double> u("u", info.dims, layout), v("v", info.dims, layout);
  global_array<std::int64_t> counter("step", {1});
  gaea::ga::read(u, o.file, "u");
  gaea::ga::read(counter, o.file, "step");
  std::vector<std::int64_t> s(1);
  counter.get({{0}, {0}}, s);
  if (root)
    std::printf("restart from step %lld (written by %lld ranks, %s layout) on %d ranks\n",
                static_cast<long long>(s[0]), static_cast<long long>(info.writer_ranks),
                info.layout_kind.c_str(), rt.size());
  advance(u, v, s[0], o.steps, o, false);

  // Compare: the stencil does the same arithmetic whatever the distribution, so the results
  // must be identical, not merely close.
  global_array<double> diff("diff", info.dims);
  gaea::ga::add(1.0, u, -1.0, ref, diff);
  const double err = gaea::ga::norm(diff, gaea::ga::norm_kind::inf);
  const double total = gaea::ga::norm(u);
  if (root)
    std::printf("after %lld steps: |u|_2 = %.12g, |restarted - uninterrupted|_inf = %g: %s\n",
                static_cast<long long>(o.steps), total, err, err == 0 ? "identical" : "DIFFERENT");
  return err == 0 ? 0 : 1;
}
}  // namespace

int main(int argc, char** argv) {
  // An error on any rank ends the job with its message on every rank (exit 2).
  return gaea::run_main(
      "gaea-checkpoint", &argc, &argv,
      [&](gaea::runtime& rt) { return checkpoint_main(rt, parse(argc, argv)); }, 2);
}
