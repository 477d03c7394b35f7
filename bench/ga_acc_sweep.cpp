// ga_acc_sweep: a bulk accumulate against its chunk size, target-driven vs source-driven
// (pipelined), as [PGAS-BGQ Fig. 11], with the automatic protocol (straight into the owner's
// mapped memory on a node, target-driven across nodes) beside them.
//   Ranks 1..P-1 accumulate at once a `--bytes` patch (default 1 MiB, rows of 512 B like
//   bench/reference/ga_strided_bench.c's acc) into rank 0's block, cut into chunks of 512 B ..
//   the whole patch (ga::set_acc_chunk_bytes); per repetition K accumulates and a fence; time
//   per accumulate = the slowest rank's time / K; median over R. The sums are checked.
// Output: a table on rank 0, then one JSON line per chunk size (grep '^{').
// Options: --reps R (5) --iters K (4) --bytes B (1048576) --chunks c1,c2,...
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench_common.hpp"
#include "cli.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/ga/global_array.hpp"
#include "gaea/ga/protocol.hpp"
#include "gaea/runtime/runtime.hpp"

using gaea::ga::index_t;
using gaea::ga::patch;
namespace ga = gaea::ga;
using gaea_bench::median;

namespace {

struct options {
  int reps = 5, iters = 4;
  std::size_t bytes = std::size_t{1} << 20;
  std::vector<std::size_t> chunks = {512, 2048, 8192, 32768, 131072, 1048576};
};

int sweep(gaea::runtime& rt, const options& o) {
  const int me = rt.rank(), n = rt.size();
  const index_t w = 512 / sizeof(double);
  const index_t rows = static_cast<index_t>(o.bytes / sizeof(double)) / w;
  std::vector<index_t> starts;
  for (int r = 0; r < n; ++r)
    starts.push_back(r * w);
  ga::global_array<double> a("acc_sweep", {rows, w * n}, ga::layout_spec::irregular({{0}, starts}));
  a.zero();
  const patch p{{0, 0}, {rows - 1, w - 1}};
  const std::vector<double> buf(static_cast<std::size_t>(p.elements()), 1.0);
  const ga::acc_protocol protos[] = {ga::acc_protocol::automatic, ga::acc_protocol::target_driven,
                                     ga::acc_protocol::source_driven};
  if (me == 0)
    std::printf(
        "accumulate sweep: ranks 1..%d add %zu B each into rank 0, us per accumulate (median "
        "of %d x %d)\n%10s %12s %14s %14s\n",
        n - 1, o.bytes, o.reps, o.iters, "chunk[B]", "auto", "target-driven", "source-driven");
  int calls = 0;
  for (std::size_t chunk : o.chunks) {
    double us[3] = {};
    for (int k = 0; k < 3; ++k) {
      const ga::scoped_acc_protocol use(protos[k]);
      ga::set_acc_chunk_bytes(chunk);
      std::vector<double> per;
      for (int r = 0; r < o.reps + 1; ++r) {
        a.sync();
        const double t0 = MPI_Wtime();
        if (me != 0) {
          for (int i = 0; i < o.iters; ++i)
            a.acc(p, std::span<const double>(buf), 1.0);
          a.fence();
        }
        const double tmax = gaea::coll::allreduce(gaea::coll::world(), MPI_Wtime() - t0,
                                                  gaea::coll::reduce_op::max);
        if (r > 0) per.push_back(tmax / o.iters * 1e6);
        ++calls;
      }
      ga::set_acc_chunk_bytes(0);
      us[k] = median(per);
    }
    if (me == 0) {
      std::printf("%10zu %12.1f %14.1f %14.1f\n", chunk, us[0], us[1], us[2]);
      std::printf(
          "{\"bench\":\"acc_sweep\",\"system\":\"gaea\",\"bytes\":%zu,\"chunk\":%zu,"
          "\"origins\":%d,\"auto_us\":%.3f,\"target_us\":%.3f,\"source_us\":%.3f}\n",
          o.bytes, chunk, n - 1, us[0], us[1], us[2]);
    }
  }
  a.sync();
  // Every element got one add per accumulate of every origin.
  double corner = 0, last = 0;
  if (me == 0) {
    a.get({{0, 0}, {0, 0}}, std::span(&corner, 1));
    a.get({{rows - 1, w - 1}, {rows - 1, w - 1}}, std::span(&last, 1));
  }
  const double want = static_cast<double>(calls) * o.iters * (n - 1);
  if (me == 0 && (corner != want || last != want)) {
    std::fprintf(stderr, "ga_acc_sweep: accumulate check failed: %g and %g, want %g\n", corner,
                 last, want);
    return 1;
  }
  a.sync();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  CLI::App app{
      "ga_acc_sweep: a bulk accumulate against its chunk size, target- vs source-driven "
      "([PGAS-BGQ Fig. 11]) and automatic"};
  apps::conventions(app, "ga_acc_sweep");
  app.add_option("--reps", o.reps, "repetitions (median reported)")->check(CLI::PositiveNumber);
  app.add_option("--iters", o.iters, "accumulates per repetition")->check(CLI::PositiveNumber);
  app.add_option("--bytes", o.bytes, "bytes per accumulate (a multiple of 512)")
      ->check(CLI::Range(std::size_t{512}, std::size_t{1} << 30));
  app.add_option("--chunks", o.chunks, "chunk sizes in bytes")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;
  if (o.bytes % 512 != 0) {
    std::fprintf(stderr, "ga_acc_sweep: --bytes %zu is not a multiple of 512\n", o.bytes);
    return 2;
  }
  return gaea::run_main("ga_acc_sweep", &argc, &argv, [&](gaea::runtime& rt) {
    if (rt.size() < 2) {
      if (rt.rank() == 0) std::fprintf(stderr, "ga_acc_sweep: needs at least 2 ranks\n");
      return 2;
    }
    return sweep(rt, o);
  });
}
