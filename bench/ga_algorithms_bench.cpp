// ga_algorithms_bench: distributed gemm and HDF5 I/O throughput, side by side in one run.
//   mpirun -np N ga_algorithms_bench [n] [reps] [dir]
// Prints medians over `reps` repetitions of:
//   - gemm C = A B (n x n doubles) on block and on block-cyclic (64 x 64) layouts, in GFLOP/s,
//     next to Eigen's serial GEMM of the same size on rank 0 alone;
//   - copy between a block and a block-cyclic array (GB/s of array data);
//   - ga::write and ga::read of an n x n double array (MB/s, file under `dir`).
#include <unistd.h>

#include <Eigen/Core>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/ga/algorithms.hpp"
#include "gaea/ga/io.hpp"
#include "gaea/runtime/runtime.hpp"

using gaea::global_array;
using gaea::ga::index_t;
using gaea::ga::layout_spec;

namespace {
double median_seconds(int reps, const std::function<void()>& fn) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    gaea::runtime::current().barrier();
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    gaea::runtime::current().barrier();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "ga_algorithms_bench: collective algorithms and HDF5 I/O of global arrays (gemm, "
      "copy, write, read)"};
  apps::conventions(app, "ga_algorithms_bench");
  index_t n = 1024;
  int reps = 5;
  std::string dir = std::filesystem::temp_directory_path().string();
  app.add_option("n", n, "matrix order")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("reps", reps, "repetitions (median reported)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("dir", dir, "directory of the HDF5 files")->capture_default_str();
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;
  // An error on any rank ends the job with its message on every rank.
  return gaea::run_main("ga_algorithms_bench", &argc, &argv, [&](gaea::runtime& rt) {
    const bool root = rt.rank() == 0;
    const double flops =
        2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
    if (root)
      std::printf("ga_algorithms_bench: %d ranks, n = %lld, median of %d\n", rt.size(),
                  static_cast<long long>(n), reps);
    if (root) std::printf("%-34s %12s %12s\n", "operation", "median s", "rate");

    auto report = [&](const char* what, double s, double amount, const char* unit) {
      if (root) std::printf("%-34s %12.4f %9.2f %s\n", what, s, amount / s, unit);
    };
    for (const auto& [name, layout] :
         {std::pair{"block", layout_spec::block()},
          std::pair{"block_cyclic 64x64", layout_spec::block_cyclic({64, 64})}}) {
      global_array<double> a("A", {n, n}, layout), b("B", {n, n}, layout), c("C", {n, n}, layout);
      a.fill(1.0);
      b.fill(0.5);
      const double s = median_seconds(reps, [&] {
        gaea::ga::gemm(gaea::ga::mat_op::none, gaea::ga::mat_op::none, 1.0, a, b, 0.0, c);
      });
      report((std::string("gemm ") + name).c_str(), s, flops * 1e-9, "GFLOP/s");
    }
    {
      double s = 0;
      if (root) {
        Eigen::MatrixXd a = Eigen::MatrixXd::Constant(n, n, 1.0),
                        b = Eigen::MatrixXd::Constant(n, n, 0.5), c(n, n);
        std::vector<double> t;
        for (int r = 0; r < reps; ++r) {
          const auto t0 = std::chrono::steady_clock::now();
          c.noalias() = a * b;
          t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        std::sort(t.begin(), t.end());
        s = t[t.size() / 2];
      }
      report("Eigen serial gemm (rank 0 only)", s, flops * 1e-9, "GFLOP/s");
    }
    const double bytes = 8.0 * static_cast<double>(n) * static_cast<double>(n);
    global_array<double> blk("blk", {n, n}),
        cyc("cyc", {n, n}, layout_spec::block_cyclic({64, 64}));
    blk.fill(2.0);
    report("copy block -> block_cyclic", median_seconds(reps, [&] { gaea::ga::copy(blk, cyc); }),
           bytes * 1e-9, "GB/s");
    const std::string file = dir + "/ga_algorithms_bench_" + std::to_string(::getpid()) + ".h5";
    // Rank 0's name (the pid differs between ranks).
    const std::string shared = gaea::coll::broadcast(gaea::coll::world(), file, 0);
    report("ga::write (block)", median_seconds(reps, [&] { gaea::ga::write(blk, shared, "x"); }),
           bytes * 1e-6, "MB/s");
    report("ga::read (into block_cyclic)",
           median_seconds(reps, [&] { gaea::ga::read(cyc, shared, "x"); }), bytes * 1e-6, "MB/s");
    rt.barrier();
    if (root) std::filesystem::remove(shared);
    return 0;
    return 0;
  });
}
