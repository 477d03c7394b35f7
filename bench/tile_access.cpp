// tile_access: element access to a local tile of a global array, in a 2-D Jacobi sweep
// v(i, j) = (u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1)) / 4 over the tile's interior (ghost
// width 1), written four ways on the same arrays: by hand (`origin + strides`, the baseline),
// `tile_view::at(index)`, `tile_view::operator()(i, j)` and `tile_span<2>` (`t.span<2>()`).
// Variants run interleaved, --reps times; each prints the median over repetitions of its sweep
// time in thread CPU time (comparable on a busy machine), per element, and its ratio to the
// hand-written sweep. Every variant's result is compared with the baseline's (exit 1 if any
// differs). Run on one rank or more (each rank sweeps its own tile).
//   tile_access [--n 2048] [--sweeps 10] [--reps 5]
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "gaea/ga/global_array.hpp"
#include "gaea/runtime/runtime.hpp"

namespace {

using gaea::ga::index_t;

double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

enum class variant { hand, at, call, span };
constexpr const char* names[] = {"origin + strides (by hand)", "tile_view::at(index)",
                                 "tile_view(i, j)", "tile_span<2>(i, j)"};

// One sweep of `how` from u's tile into v's tile (same distribution, same ghosts).
void sweep(variant how, const gaea::ga::tile_view<double>& u,
           const gaea::ga::tile_view<double>& v) {
  const index_t i0 = u.box.lo[0], i1 = u.box.hi[0], j0 = u.box.lo[1], j1 = u.box.hi[1];
  switch (how) {
    case variant::hand: {
      const index_t su = u.strides[0], sv = v.strides[0];
      for (index_t i = i0; i <= i1; ++i) {
        const double* up = u.origin + (i - i0) * su;
        double* vp = v.origin + (i - i0) * sv;
        for (index_t j = 0; j <= j1 - j0; ++j)
          vp[j] = 0.25 * (up[j - su] + up[j + su] + up[j - 1] + up[j + 1]);
      }
      break;
    }
    case variant::at:
      for (index_t i = i0; i <= i1; ++i)
        for (index_t j = j0; j <= j1; ++j)
          v.at({i, j}) =
              0.25 * (u.at({i - 1, j}) + u.at({i + 1, j}) + u.at({i, j - 1}) + u.at({i, j + 1}));
      break;
    case variant::call:
      for (index_t i = i0; i <= i1; ++i)
        for (index_t j = j0; j <= j1; ++j)
          v(i, j) = 0.25 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1));
      break;
    case variant::span: {
      const auto us = u.span<2>();
      const auto vs = v.span<2>();
      for (index_t i = i0; i <= i1; ++i)
        for (index_t j = j0; j <= j1; ++j)
          vs(i, j) = 0.25 * (us(i - 1, j) + us(i + 1, j) + us(i, j - 1) + us(i, j + 1));
      break;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tile_access: element access to a local tile against origin + strides"};
  index_t n = 2048;
  int sweeps = 10, reps = 5;
  app.add_option("--n", n, "array extent per dimension")->check(CLI::Range(8, 1 << 16));
  app.add_option("--sweeps", sweeps, "sweeps per timed run")->check(CLI::Range(1, 10000));
  app.add_option("--reps", reps, "interleaved repetitions; medians are reported")
      ->check(CLI::Range(1, 1000));
  CLI11_PARSE(app, argc, argv);
  return gaea::run_main("tile_access", &argc, &argv, [&](gaea::runtime& rt) {
    const auto spec = gaea::ga::layout_spec::block().with_ghosts({1, 1});
    gaea::global_array<double> u("u", {n, n}, spec), v("v", {n, n}, spec);
    const auto tu = u.local_tiles().at(0), tv = v.local_tiles().at(0);
    // u's interior and ghosts get distinct values (no update needed: the sweep only reads).
    for (index_t i = tu.box.lo[0] - 1; i <= tu.box.hi[0] + 1; ++i)
      for (index_t j = tu.box.lo[1] - 1; j <= tu.box.hi[1] + 1; ++j)
        tu(i, j) = static_cast<double>((i * 31 + j * 17) % 101);
    const index_t elements = tu.elements();
    std::vector<double> reference;
    std::vector<std::vector<double>> times(4);
    int wrong = 0;
    for (int r = 0; r < reps; ++r)
      for (int k = 0; k < 4; ++k) {
        const auto how = static_cast<variant>((k + r) % 4);  // rotate the order
        const double t0 = thread_cpu_s();
        for (int s = 0; s < sweeps; ++s)
          sweep(how, tu, tv);
        times[static_cast<std::size_t>(how)].push_back((thread_cpu_s() - t0) / sweeps);
        std::vector<double> got;
        got.reserve(static_cast<std::size_t>(elements));
        for (index_t i = tv.box.lo[0]; i <= tv.box.hi[0]; ++i)
          for (index_t j = tv.box.lo[1]; j <= tv.box.hi[1]; ++j)
            got.push_back(tv(i, j));
        if (reference.empty() && how == variant::hand) reference = got;
        if (!reference.empty() && got != reference) {
          std::fprintf(stderr, "tile_access: rank %d: %s differs from the baseline\n", rt.rank(),
                       names[static_cast<std::size_t>(how)]);
          ++wrong;
        }
      }
    if (rt.rank() == 0) {
      auto median = [](std::vector<double> x) {
        std::sort(x.begin(), x.end());
        return x[x.size() / 2];
      };
      const double base = median(times[0]);
      std::printf(
          "# tile_access: %lld x %lld tile of a %lld x %lld array, ghosts 1, %d sweeps x "
          "%d reps, thread CPU time, medians\n",
          static_cast<long long>(tu.box.extent(0)), static_cast<long long>(tu.box.extent(1)),
          static_cast<long long>(n), static_cast<long long>(n), sweeps, reps);
      std::printf("%-28s %12s %14s\n", "access", "ns/element", "speed vs hand");
      for (std::size_t k = 0; k < 4; ++k) {
        const double t = median(times[k]);
        std::printf("%-28s %12.3f %13.2fx\n", names[k], 1e9 * t / static_cast<double>(elements),
                    base / t);
      }
    }
    return wrong ? 1 : 0;
  });
}
