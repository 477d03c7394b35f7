// get_bench: intra-node get latency (8 B) and bandwidth (1 MiB) on a gaea::global_array, measured
// exactly like bench/reference/ga_get_bench.c measures Global Arrays, so the two can be run side
// by side (bench/compare_get.sh):
//   rank 0 gets from a 1-D patch owned by rank 1; rank 1 only waits in sync().
//   latency: 1000 warm-up gets, then R repetitions of K gets of one double; per repetition the
//            mean time per get; reported: median and min over repetitions.
//   bandwidth: 10 warm-up gets, then R repetitions of K gets of 1 MiB into a page-aligned
//            buffer; per repetition bytes/time (1e9 B/s); reported: median and max.
// Options: --reps R (7) --lat-iters K (10000) --bw-iters K (200)
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gaea/base/version.hpp"
#include "gaea/ga/global_array.hpp"
#include "gaea/runtime/runtime.hpp"

using gaea::ga::index_t;
using gaea::ga::patch;

namespace {
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
}  // namespace

int main(int argc, char** argv) {
  int reps = 7, lat_iters = 10000, bw_iters = 200;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string o = argv[i];
    const int v = std::atoi(argv[i + 1]);
    if (v <= 0) {
      std::fprintf(stderr, "get_bench: %s needs a positive value\n", o.c_str());
      return 2;
    }
    if (o == "--reps")
      reps = v;
    else if (o == "--lat-iters")
      lat_iters = v;
    else if (o == "--bw-iters")
      bw_iters = v;
    else {
      std::fprintf(stderr, "get_bench: unknown option %s\n", o.c_str());
      return 2;
    }
  }
  gaea::runtime rt(&argc, &argv);
  if (rt.size() < 2) {
    if (rt.rank() == 0) std::fprintf(stderr, "get_bench: needs at least 2 ranks\n");
    return 2;
  }
  constexpr index_t block = (1 << 20) / sizeof(double);
  gaea::global_array<double> a("bench", {block * rt.size()});
  const patch b1 = a.distribution(1);
  {
    auto l = a.access();
    for (std::size_t i = 0; i < l.size(); ++i)
      l[i] = static_cast<double>(a.local_block().lo[0]) + static_cast<double>(i);
  }
  a.sync();
  std::vector<double> lat, bw;
  if (rt.rank() == 0) {
    constexpr std::size_t page = 4096;
    std::unique_ptr<double, decltype(&std::free)> buf(
        static_cast<double*>(
            std::aligned_alloc(page, static_cast<std::size_t>(block) * sizeof(double))),
        &std::free);
    std::span<double> whole(buf.get(), static_cast<std::size_t>(block));
    a.get(b1, whole);
    for (index_t i = 0; i < block; ++i)
      if (whole[static_cast<std::size_t>(i)] != static_cast<double>(b1.lo[0] + i)) {
        std::fprintf(stderr, "get_bench: wrong data at %lld\n", static_cast<long long>(i));
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    const patch one{{b1.lo[0] + 7}, {b1.lo[0] + 7}};
    for (int i = 0; i < 1000; ++i)
      a.get(one, whole.first(1));
    for (int r = 0; r < reps; ++r) {
      const double t = MPI_Wtime();
      for (int i = 0; i < lat_iters; ++i)
        a.get(one, whole.first(1));
      lat.push_back((MPI_Wtime() - t) / lat_iters * 1e6);
    }
    for (int i = 0; i < 10; ++i)
      a.get(b1, whole);
    for (int r = 0; r < reps; ++r) {
      const double t = MPI_Wtime();
      for (int i = 0; i < bw_iters; ++i)
        a.get(b1, whole);
      bw.push_back(static_cast<double>(bw_iters) * (1 << 20) / (MPI_Wtime() - t) / 1e9);
    }
  }
  a.sync();
  if (rt.rank() == 0) {
    const char* tls = std::getenv("UCX_TLS");
    const char* rp = std::getenv("GAEA_RKEY_PTR");
    std::printf(
        "Gaea get latency 8 B : median %.3f us, min %.3f us (%d reps x %d gets, %d ranks)\n",
        median(lat), *std::min_element(lat.begin(), lat.end()), reps, lat_iters, rt.size());
    std::printf("Gaea get bandwidth 1 MiB : median %.3f GB/s, max %.3f GB/s (%d reps x %d gets)\n",
                median(bw), *std::max_element(bw.begin(), bw.end()), reps, bw_iters);
    std::printf(
        "{\"system\":\"Gaea-%s/UCX_TLS=%s/RKEY_PTR=%s/progress=%s\",\"ranks\":%d,"
        "\"get_lat_8B_us_median\":%.4f,\"get_lat_8B_us_min\":%.4f,"
        "\"get_bw_1MiB_GBs_median\":%.4f,\"get_bw_1MiB_GBs_max\":%.4f,\"reps\":%d}\n",
        gaea::version_string, tls ? tls : "default", rp ? rp : "1",
        std::string(gaea::progress::to_string(rt.progress().current_mode())).c_str(), rt.size(),
        median(lat), *std::min_element(lat.begin(), lat.end()), median(bw),
        *std::max_element(bw.begin(), bw.end()), reps);
  }
  return 0;
}
