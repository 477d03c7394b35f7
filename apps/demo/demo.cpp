// gaea-demo: a dynamically load-balanced matrix-vector product y = A x on global arrays.
// Tasks are (row block, column block) tiles of A, handed out by a shared counter; each task gets
// its tile of A and the matching piece of x (one-sided gets), multiplies, and accumulates its
// partial y into the distributed y (a target-driven accumulate). Ranks run at different speeds on
// purpose, so the counter has something to balance. The result is checked against the closed
// form, and a summary is printed.
//   mpirun -np 4 gaea-demo [n] [tile]    (gaea-demo --help)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "cli.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/counters/shared_counter.hpp"
#include "gaea/ga/global_array.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"

using gaea::ga::index_t;
using gaea::ga::patch;

namespace {
// A(i, j) and x(j) chosen so that y(i) = sum_j A(i,j) x(j) has a closed form.
double a_elem(index_t i, index_t j) {
  return static_cast<double>(i % 7 + 1) + 1e-3 * static_cast<double>(j % 5);
}
double x_elem(index_t j) {
  return static_cast<double>(j % 3);
}
double y_exact(index_t i, index_t n) {
  double s = 0;
  for (index_t j = 0; j < n; ++j)
    s += a_elem(i, j) * x_elem(j);
  return s;
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "gaea-demo: a load-balanced y = A x on global arrays (tiles handed out by a shared "
      "counter), checked against the closed form"};
  apps::conventions(app, "gaea-demo");
  index_t n = 2048, tile = 128;
  app.add_option("n", n, "matrix order")->capture_default_str();
  app.add_option("tile", tile, "tile size")->capture_default_str();
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;
  try {
    // An error on any rank ends the job with its message on every rank (exit 1).
    return gaea::run_main(
        "gaea-demo", &argc, &argv,
        [&](gaea::runtime& rt) {
          const gaea::coll::group& world = gaea::coll::world();  // collective on first use
          if (n <= 0 || tile <= 0 || tile > n)
            throw gaea::error("gaea-demo: need 0 < tile <= n (got n=" + std::to_string(n) +
                              ", tile=" + std::to_string(tile) + ")");
          gaea::global_array<double> a("A", {n, n}), x("x", {n}), y("y", {n});
          // Owners fill their blocks in place (zero copy).
          const patch ab = a.local_block();
          auto al = a.access();
          for (index_t i = ab.lo[0], k = 0; !ab.empty() && i <= ab.hi[0]; ++i)
            for (index_t j = ab.lo[1]; j <= ab.hi[1]; ++j)
              al[static_cast<std::size_t>(k++)] = a_elem(i, j);
          const patch xb = x.local_block();
          auto xl = x.access();
          for (index_t j = xb.lo[0], k = 0; !xb.empty() && j <= xb.hi[0]; ++j)
            xl[static_cast<std::size_t>(k++)] = x_elem(j);
          y.zero();
          a.sync();
          x.sync();

          const index_t tiles_per_dim = (n + tile - 1) / tile;
          const std::int64_t ntasks = tiles_per_dim * tiles_per_dim;
          gaea::counters::shared_counter next("tasks");
          std::vector<double> ablk(static_cast<std::size_t>(tile * tile)),
              xblk(static_cast<std::size_t>(tile)), yblk(static_cast<std::size_t>(tile));
          std::int64_t mine = 0;
          double t_counter = 0, t_get = 0, t_compute = 0, t_acc = 0;
          using clock = std::chrono::steady_clock;
          auto secs = [](clock::duration d) { return std::chrono::duration<double>(d).count(); };
          const auto t0 = clock::now();
          for (;;) {
            auto t = clock::now();
            const std::int64_t task = next.fetch_add(1);
            t_counter += secs(clock::now() - t);
            if (task >= ntasks) break;
            ++mine;
            const index_t bi = task / tiles_per_dim, bj = task % tiles_per_dim;
            const patch rows{{bi * tile}, {std::min(n, (bi + 1) * tile) - 1}};
            const patch cols{{bj * tile}, {std::min(n, (bj + 1) * tile) - 1}};
            const index_t nr = rows.extent(0), nc = cols.extent(0);
            t = clock::now();
            a.get(patch{{rows.lo[0], cols.lo[0]}, {rows.hi[0], cols.hi[0]}},
                  std::span(ablk.data(), static_cast<std::size_t>(nr * nc)));
            x.get(cols, std::span(xblk.data(), static_cast<std::size_t>(nc)));
            t_get += secs(clock::now() - t);
            t = clock::now();
            for (index_t i = 0; i < nr; ++i) {
              double s = 0;
              for (index_t j = 0; j < nc; ++j)
                s += ablk[static_cast<std::size_t>(i * nc + j)] * xblk[static_cast<std::size_t>(j)];
              yblk[static_cast<std::size_t>(i)] = s;
            }
            // Uneven speeds: odd ranks are slower, so fast ranks should take more tasks.
            if (rt.rank() % 2 == 1) std::this_thread::sleep_for(std::chrono::microseconds(200));
            t_compute += secs(clock::now() - t);
            t = clock::now();
            y.acc(rows, std::span<const double>(yblk.data(), static_cast<std::size_t>(nr)));
            t_acc += secs(clock::now() - t);
          }
          y.sync();
          const double elapsed = secs(clock::now() - t0);

          // Check: every rank verifies its own block of y against the closed form.
          const patch yb = y.local_block();
          auto yl = y.access();
          double max_err = 0;
          for (index_t i = yb.lo[0], k = 0; !yb.empty() && i <= yb.hi[0]; ++i, ++k)
            max_err = std::max(max_err, std::abs(yl[static_cast<std::size_t>(k)] - y_exact(i, n)) /
                                            std::max(1.0, std::abs(y_exact(i, n))));
          const double global_err =
              gaea::coll::allreduce(world, max_err, gaea::coll::reduce_op::max);
          const std::int64_t total = gaea::coll::allreduce(world, mine, gaea::coll::reduce_op::sum);
          const auto s = gaea::ga::current_stats();
          std::vector<double> row{static_cast<double>(mine),
                                  t_counter,
                                  t_get,
                                  t_compute,
                                  t_acc,
                                  static_cast<double>(s.accs_served),
                                  static_cast<double>(s.flushes_avoided)};
          // Rank 0 prints every rank's row.
          std::vector<double> all(rt.rank() == 0 ? row.size() * static_cast<std::size_t>(rt.size())
                                                 : 0);
          gaea::coll::gather(world, std::span<const double>(row), std::span<double>(all), 0);
          const bool ok = global_err < 1e-12 && total == ntasks;
          if (rt.rank() == 0) {
            std::printf(
                "gaea-demo: y = A x, n = %lld, %lld tiles of %lld^2, %d ranks, progress %s\n",
                static_cast<long long>(n), static_cast<long long>(ntasks),
                static_cast<long long>(tile), rt.size(),
                std::string(gaea::progress::to_string(rt.progress().current_mode())).c_str());
            std::printf("%5s %7s %11s %9s %11s %9s %12s %15s\n", "rank", "tasks", "counter[s]",
                        "get[s]", "compute[s]", "acc[s]", "accs served", "fences avoided");
            for (int r = 0; r < rt.size(); ++r) {
              const double* v = &all[static_cast<std::size_t>(r) * row.size()];
              std::printf("%5d %7.0f %11.4f %9.4f %11.4f %9.4f %12.0f %15.0f\n", r, v[0], v[1],
                          v[2], v[3], v[4], v[5], v[6]);
            }
            std::printf("tasks handed out %lld of %lld, max relative error %.2e, time %.3f s: %s\n",
                        static_cast<long long>(total), static_cast<long long>(ntasks), global_err,
                        elapsed, ok ? "CORRECT" : "WRONG");
          }
          return ok ? 0 : 1;
        },
        1);
  } catch (const gaea::error& e) {
    std::fprintf(stderr, "gaea-demo: %s\n", e.what());
    return 2;
  }
}
