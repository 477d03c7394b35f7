// gaea::ga: a distributed 2-D array. Each rank puts one band of rows (which may span several
// owners' blocks), every rank then accumulates 1 into the whole array, and after a sync rank 0
// gets the array back and checks every element and the sum against their closed form.
//   mpirun -np 4 gaea-example-ga
#include <cstdio>
#include <span>
#include <vector>

#include "gaea/ga/global_array.hpp"
#include "gaea/runtime/runtime.hpp"

using gaea::ga::index_t;
using gaea::ga::patch;

int main(int argc, char** argv) {
  return gaea::run_main("gaea-example-ga", &argc, &argv, [](gaea::runtime& rt) {
    const index_t n = 60, me = rt.rank(), p = rt.size();
    gaea::global_array<double> a("A", {n, n});  // collective; block distribution by default
    a.zero();                                   // collective

    // This rank's band of rows [r0, r1), put with one call (the library splits it by owner).
    const index_t r0 = me * n / p, r1 = (me + 1) * n / p;
    if (r1 > r0) {
      std::vector<double> band(static_cast<std::size_t>((r1 - r0) * n));
      for (index_t i = r0; i < r1; ++i)
        for (index_t j = 0; j < n; ++j)
          band[static_cast<std::size_t>((i - r0) * n + j)] = static_cast<double>(i * n + j);
      a.put(patch{{r0, 0}, {r1 - 1, n - 1}}, std::span<const double>(band));
    }
    a.sync();  // collective: every put is complete and visible

    // Every rank adds 1 everywhere: accumulates are atomic per element.
    const std::vector<double> ones(static_cast<std::size_t>(n * n), 1.0);
    a.acc(patch{{0, 0}, {n - 1, n - 1}}, std::span<const double>(ones));
    a.sync();

    const patch mine = a.local_block();
    int bad = 0;
    if (me == 0) {
      std::vector<double> all(static_cast<std::size_t>(n * n));
      a.get(patch{{0, 0}, {n - 1, n - 1}}, std::span(all));
      double sum = 0;
      for (index_t k = 0; k < n * n; ++k) {
        sum += all[static_cast<std::size_t>(k)];
        bad += all[static_cast<std::size_t>(k)] != static_cast<double>(k + p);
      }
      // sum of k over [0, n^2) plus p per element
      const double expect = static_cast<double>(n * n * (n * n - 1) / 2 + p * n * n);
      bad += sum != expect;
      std::printf(
          "ga: %lldx%lld array on %lld ranks (rank 0 owns %s), sum %.0f (expected %.0f): "
          "%s\n",
          static_cast<long long>(n), static_cast<long long>(n), static_cast<long long>(p),
          mine.str().c_str(), sum, expect, bad == 0 ? "ok" : "FAILED");
    }
    a.sync();
    return bad == 0 ? 0 : 1;
  });
}
