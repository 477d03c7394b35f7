// stream: STREAM-like memory bandwidth (copy c = a, triad a = b + s c) with oneTBB threads, for
// the lattice Boltzmann bandwidth bound (bench/lbm_scaling.sh). Bytes are counted as STREAM
// does: copy 16 B and triad 24 B per element, write-allocate reads not counted. Reports the best
// of --reps repetitions per thread count (STREAM's convention) and the median.
//   stream [--n elements] [--reps r] [--threads 1,2]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <CLI/CLI.hpp>

#include "cli.hpp"

int main(int argc, char** argv) {
  std::int64_t n = 1 << 25;  // 32 Mi doubles = 256 MiB per array, far beyond any cache
  int reps = 10;
  std::vector<int> threads = {1, 2};
  CLI::App app{"STREAM-like copy and triad bandwidth"};
  apps::conventions(app, "stream");
  app.add_option("--n", n, "elements per array")
      ->check(CLI::Range(std::int64_t{1} << 16, std::int64_t{1} << 31));
  app.add_option("--reps", reps, "repetitions")->check(CLI::Range(1, 1000));
  app.add_option("--threads", threads, "thread counts")->delimiter(',')->check(CLI::PositiveNumber);
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;
  const auto un = static_cast<std::size_t>(n);
  std::unique_ptr<double[]> a(new double[un]), b(new double[un]), c(new double[un]);
  using clock = std::chrono::steady_clock;
  std::printf("%8s %6s %12s %12s %12s %12s\n", "threads", "kernel", "best GB/s", "median GB/s",
              "bytes/elem", "array MiB");
  for (int t : threads) {
    tbb::task_arena arena(t);
    // First touch by the same threads that run the kernels.
    arena.execute([&] {
      tbb::parallel_for(
          tbb::blocked_range<std::size_t>(0, un),
          [&](const auto& r) {
            for (std::size_t i = r.begin(); i < r.end(); ++i)
              a[i] = 1.0, b[i] = 2.0, c[i] = 0.0;
          },
          tbb::static_partitioner());
    });
    for (int kernel = 0; kernel < 2; ++kernel) {
      std::vector<double> gbs;
      for (int r = 0; r < reps; ++r) {
        const auto t0 = clock::now();
        arena.execute([&] {
          tbb::parallel_for(
              tbb::blocked_range<std::size_t>(0, un),
              [&](const auto& rg) {
                if (kernel == 0)
                  for (std::size_t i = rg.begin(); i < rg.end(); ++i)
                    c[i] = a[i];
                else
                  for (std::size_t i = rg.begin(); i < rg.end(); ++i)
                    a[i] = b[i] + 3.0 * c[i];
              },
              tbb::static_partitioner());
        });
        const double s = std::chrono::duration<double>(clock::now() - t0).count();
        gbs.push_back(static_cast<double>(n) * (kernel == 0 ? 16.0 : 24.0) / s / 1e9);
      }
      std::sort(gbs.begin(), gbs.end());
      std::printf("%8d %6s %12.2f %12.2f %12d %12.0f\n", t, kernel == 0 ? "copy" : "triad",
                  gbs.back(), gbs[gbs.size() / 2], kernel == 0 ? 16 : 24,
                  static_cast<double>(n) * 8.0 / (1 << 20));
    }
  }
  if (a[un / 2] < 0) std::printf("%f\n", c[0]);  // keep the stores observable
  return 0;
}
