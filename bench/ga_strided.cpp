// ga_strided: the global-array protocol benchmarks (strided, accumulate, non-blocking get),
// measured exactly like bench/reference/ga_strided_bench.c measures Global Arrays
// (bench/compare_strided.sh runs both).
//   strided: rank 0 gets (puts) a 1 MiB 2-D patch owned by rank 1 whose rows are `chunk` bytes
//            (64 B .. 256 KiB), under each strided protocol (zero_copy, packed, auto); per
//            repetition K transfers (puts end with a fence); bandwidth 1e6 B/s; median over R.
//   acc:     ranks 1..P-1 accumulate at once into rank 0's block (patches of 1 KiB .. 256 KiB),
//            under each accumulate protocol (auto: straight into rank 0's mapped memory on a
//            node; target-driven; source-driven); per repetition K accumulates and a fence;
//            time per accumulate = the slowest rank's time / K; median over R.
//   nbget:   rank 0 keeps `depth` (1, 8) non-blocking gets of 8 B / 64 KiB from rank 1 in flight;
//            operations per second, median over R.
// Output: tables on rank 0, then one JSON line per row (grep '^{').
// Options: --reps R (5) --iters K (20) --quick (fewer sizes and iterations, for smoke runs)
//          --only strided|acc|nbget (one benchmark)
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/ga/global_array.hpp"
#include "gaea/ga/protocol.hpp"
#include "gaea/runtime/runtime.hpp"

using gaea::ga::index_t;
using gaea::ga::patch;
namespace ga = gaea::ga;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double now() {
  return MPI_Wtime();
}

// Columns split into one block of `width` per rank (rows not split): rank r's block is
// rows x width, so a patch of it has `width * 8`-byte rows.
ga::layout_spec column_blocks(int ranks, index_t width) {
  std::vector<index_t> starts;
  for (int r = 0; r < ranks; ++r)
    starts.push_back(r * width);
  return ga::layout_spec::irregular({{0}, starts});
}

struct options {
  int reps = 5, iters = 20;
  bool quick = false;
  std::string only;  // empty: every benchmark
};

void strided(gaea::runtime& rt, const options& o) {
  const int me = rt.rank(), n = rt.size();
  std::vector<std::size_t> chunks = {64, 256, 1024, 4096, 16384, 65536, 262144};
  if (o.quick) chunks = {64, 4096, 262144};
  const std::size_t total = 1 << 20;
  if (me == 0)
    std::printf(
        "\nstrided 1 MiB patch from rank 1, MB/s (median of %d x %d)\n%10s %8s %12s %12s "
        "%12s %12s %12s %12s  %s\n",
        o.reps, o.iters, "chunk[B]", "rows", "get zc", "get packed", "get auto", "put zc",
        "put packed", "put auto", "model: auto picks");
  for (std::size_t chunk : chunks) {
    const auto w = static_cast<index_t>(chunk / sizeof(double));
    const auto rows = static_cast<index_t>(total / chunk);
    ga::global_array<double> a("strided", {rows, w * n}, column_blocks(n, w));
    const patch p{{0, w}, {rows - 1, 2 * w - 1}};  // rank 1's block
    std::vector<double> buf(static_cast<std::size_t>(p.elements()), 1.0);
    double mbs[2][3] = {};
    const ga::strided_protocol protos[3] = {ga::strided_protocol::zero_copy,
                                            ga::strided_protocol::packed,
                                            ga::strided_protocol::automatic};
    bool picks_packed = false;
    if (me == 0) {
      const ga::strided_model m = a.cost_model(1);
      picks_packed =
          m.prefer_packed(static_cast<std::size_t>(rows), static_cast<std::size_t>(total));
      for (int k = 0; k < 3; ++k) {
        const ga::scoped_strided_protocol use(protos[k]);
        for (int put = 0; put < 2; ++put) {
          std::vector<double> bw;
          for (int r = 0; r < o.reps + 1; ++r) {
            const double t0 = now();
            for (int i = 0; i < o.iters; ++i)
              put ? a.put(p, buf) : a.get(p, buf);
            if (put) a.fence();
            const double t = now() - t0;
            if (r > 0) bw.push_back(static_cast<double>(total) * o.iters / t * 1e-6);
          }
          mbs[put][k] = median(bw);
        }
      }
      std::printf("%10zu %8lld %12.1f %12.1f %12.1f %12.1f %12.1f %12.1f  %s\n", chunk,
                  static_cast<long long>(rows), mbs[0][0], mbs[0][1], mbs[0][2], mbs[1][0],
                  mbs[1][1], mbs[1][2], picks_packed ? "packed" : "zero-copy");
      std::printf(
          "{\"bench\":\"strided\",\"system\":\"gaea\",\"chunk\":%zu,\"rows\":%lld,"
          "\"get_zc\":%.2f,\"get_packed\":%.2f,\"get_auto\":%.2f,\"put_zc\":%.2f,"
          "\"put_packed\":%.2f,\"put_auto\":%.2f,\"auto_packed\":%s,"
          "\"crossover_B\":%.0f}\n",
          chunk, static_cast<long long>(rows), mbs[0][0], mbs[0][1], mbs[0][2], mbs[1][0],
          mbs[1][1], mbs[1][2], picks_packed ? "true" : "false", m.crossover_bytes());
    }
    a.sync();
  }
}

void accumulate(gaea::runtime& rt, const options& o) {
  const int me = rt.rank(), n = rt.size();
  std::vector<std::size_t> sizes = {1024, 16384, 262144};
  if (o.quick) sizes = {1024, 262144};
  if (me == 0)
    std::printf(
        "\naccumulate: ranks 1..%d into rank 0 at once, us per accumulate (median of %d "
        "x %d)\n%10s %14s %14s %14s\n",
        n - 1, o.reps, o.iters, "size[B]", "auto", "target-driven", "source-driven");
  for (std::size_t bytes : sizes) {
    // A square-ish patch of rank 0's block (rows of 512 B at most, so it is strided).
    const index_t w = static_cast<index_t>(std::min<std::size_t>(bytes, 512) / sizeof(double));
    const index_t rows = static_cast<index_t>(bytes / sizeof(double)) / w;
    ga::global_array<double> a("acc", {rows, w * n}, column_blocks(n, w));
    const patch p{{0, 0}, {rows - 1, w - 1}};
    std::vector<double> buf(static_cast<std::size_t>(p.elements()), 1.0);
    constexpr int nprotos = 3;
    double us[nprotos] = {};
    const ga::acc_protocol protos[nprotos] = {ga::acc_protocol::automatic,
                                              ga::acc_protocol::target_driven,
                                              ga::acc_protocol::source_driven};
    for (int k = 0; k < nprotos; ++k) {
      const ga::scoped_acc_protocol use(protos[k]);
      std::vector<double> per;
      for (int r = 0; r < o.reps + 1; ++r) {
        a.sync();
        const double t0 = now();
        if (me != 0) {
          for (int i = 0; i < o.iters; ++i)
            a.acc(p, buf, 1.0);
          a.fence();
        }
        const double tmax =
            gaea::coll::allreduce(gaea::coll::world(), now() - t0, gaea::coll::reduce_op::max);
        if (r > 0) per.push_back(tmax / o.iters * 1e6);
      }
      us[k] = median(per);
    }
    // Check the sums: every element got (reps + 1) * protocols * iters * (n - 1).
    double first = 0;
    if (me == 0) a.get({{0, 0}, {0, 0}}, std::span(&first, 1));
    const double want = static_cast<double>(o.reps + 1) * nprotos * o.iters * (n - 1);
    if (me == 0) {
      if (first != want)
        std::fprintf(stderr, "ga_strided: accumulate check failed: %g, want %g\n", first, want);
      std::printf("%10zu %14.2f %14.2f %14.2f\n", bytes, us[0], us[1], us[2]);
      std::printf(
          "{\"bench\":\"acc\",\"system\":\"gaea\",\"bytes\":%zu,\"origins\":%d,"
          "\"auto_us\":%.3f,\"target_us\":%.3f,\"source_us\":%.3f}\n",
          bytes, n - 1, us[0], us[1], us[2]);
    }
    a.sync();
  }
}

void nbget(gaea::runtime& rt, const options& o) {
  const int me = rt.rank(), n = rt.size();
  const index_t block = (1 << 16) / sizeof(double);
  ga::global_array<double> a("nbget", {block * n});
  const index_t base = block;  // rank 1's block
  std::vector<double> buf(static_cast<std::size_t>(block) * 8);
  if (me == 0)
    std::printf(
        "\nnon-blocking gets from rank 1, thousands of ops/s (median of %d)\n%10s %10s "
        "%14s\n",
        o.reps, "size[B]", "depth", "kops/s");
  for (index_t elems : {index_t{1}, block}) {
    for (int depth : {1, 8}) {
      if (me != 0) continue;
      const int ops = o.quick ? 200 : (elems == 1 ? 20000 : 2000);
      std::vector<double> rate;
      for (int r = 0; r < o.reps + 1; ++r) {
        std::deque<ga::request> window;
        const double t0 = now();
        for (int i = 0; i < ops; ++i) {
          if (static_cast<int>(window.size()) == depth) {
            window.front().wait();
            window.pop_front();
          }
          const auto slot = static_cast<std::size_t>(i % depth) * static_cast<std::size_t>(block);
          window.push_back(a.get({{base}, {base + elems - 1}},
                                 std::span(buf.data() + slot, static_cast<std::size_t>(elems)),
                                 ga::nonblocking));
        }
        for (auto& q : window)
          q.wait();
        if (r > 0) rate.push_back(ops / (now() - t0) * 1e-3);
      }
      const std::size_t bytes = static_cast<std::size_t>(elems) * sizeof(double);
      std::printf("%10zu %10d %14.1f\n", bytes, depth, median(rate));
      std::printf(
          "{\"bench\":\"nbget\",\"system\":\"gaea\",\"bytes\":%zu,\"depth\":%d,"
          "\"kops\":%.2f}\n",
          bytes, depth, median(rate));
    }
  }
  a.sync();
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  CLI::App app{
      "ga_strided: global-array protocol benchmarks (strided, accumulate, non-blocking "
      "get), measured like bench/reference/ga_strided_bench.c"};
  apps::conventions(app, "ga_strided");
  int reps = 0, iters = 0;
  CLI::Option* const reps_opt = app.add_option("--reps", reps,
                                               "repetitions (median reported; default " +
                                                   std::to_string(o.reps) + ", 3 with --quick)")
                                    ->check(CLI::PositiveNumber);
  CLI::Option* const iters_opt = app.add_option("--iters", iters,
                                                "operations per repetition (default " +
                                                    std::to_string(o.iters) + ", 4 with --quick)")
                                     ->check(CLI::PositiveNumber);
  app.add_flag("--quick", o.quick, "fewer sizes and iterations, for smoke runs");
  app.add_option("--only", o.only, "run one benchmark only")
      ->check(CLI::IsMember({"strided", "acc", "nbget"}));
  app.callback([&] {
    if (o.quick) {
      o.reps = 3;
      o.iters = 4;
    }
    if (reps_opt->count() > 0) o.reps = reps;
    if (iters_opt->count() > 0) o.iters = iters;
  });
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;
  // An error on any rank ends the job with its message on every rank.
  return gaea::run_main("ga_strided", &argc, &argv, [&](gaea::runtime& rt) {
    if (rt.size() < 2) {
      if (rt.rank() == 0) std::fprintf(stderr, "ga_strided: needs at least 2 ranks\n");
      return 2;
    }
    if (o.only.empty() || o.only == "strided") strided(rt, o);
    if (o.only.empty() || o.only == "acc") accumulate(rt, o);
    if (o.only.empty() || o.only == "nbget") nbget(rt, o);
    return 0;
  });
}
