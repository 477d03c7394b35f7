// lu_gemm_peak: Gflop/s of the LU mini-app's GEMM kernel (lu::gemm_gflops: Eigen on OpenBLAS,
// built with the same flags as gaea-lu) on one thread: the practical ceiling of gaea-lu per core.
//   lu_gemm_peak [seconds-per-shape]
// Shapes: square tiles (the trailing update of gaea-lu is one such product per tile) and one
// large panel product. Prints a table and one JSON line; figures are medians of repetitions.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli.hpp"
#include "kernels.hpp"
#include "timings.hpp"

using namespace lu;

int main(int argc, char** argv) {
  CLI::App app{"lu_gemm_peak: Gflop/s of gaea-lu's GEMM kernel on one thread"};
  apps::conventions(app, "lu_gemm_peak");
  double seconds = 0.5;
  app.add_option("seconds", seconds, "measuring time per shape")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;
  struct shape {
    index_t m, k, n;
  };
  const shape shapes[] = {{128, 128, 128}, {256, 256, 256}, {2048, 256, 2048}};
  std::string json = "{";
  std::printf("%-18s %10s\n", "GEMM m x k x n", "Gflop/s");
  for (const shape& s : shapes) {
    const double g = gemm_gflops(s.m, s.k, s.n, seconds);
    const std::string name =
        std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n);
    std::printf("%-18s %10.2f\n", name.c_str(), g);
    json += (json.size() > 1 ? "," : "") + ("\"gemm_" + name + "_gflops\":" + std::to_string(g));
  }
  std::printf("%s}\n", json.c_str());
  return 0;
}
