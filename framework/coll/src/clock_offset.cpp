// Clock offsets between members for coll::measure: see detail/clock_offset.hpp.
#include "detail/clock_offset.hpp"

#include <time.h>

#include <cmath>
#include <span>
#include <vector>

#include "gaea/base/clock.hpp"
#include "gaea/coll/collectives.hpp"

namespace gaea::coll::detail {

namespace {

options plain() {
  options o;
  o.energy = energy_mode::off;
  return o;
}

// When this kernel booted, on the wall clock: CLOCK_REALTIME - CLOCK_MONOTONIC. Processes of one
// kernel read the same value (to within NTP's slewing over the moments they read it, well under
// the tolerance below); two machines agree only if they booted within that tolerance. (The boot
// id cannot tell: inside the emulated hosts' namespaces it differs from the host's.)
double boot_time_s() {
  timespec real{}, mono{};
  clock_gettime(CLOCK_REALTIME, &real);
  clock_gettime(CLOCK_MONOTONIC, &mono);
  return static_cast<double>(real.tv_sec - mono.tv_sec) +
         1e-9 * static_cast<double>(real.tv_nsec - mono.tv_nsec);
}

constexpr double same_kernel_tolerance_s = 50e-6;

}  // namespace

clock_offset offset_from_member0(const group& g, bool always) {
  std::vector<double> boots(static_cast<std::size_t>(g.size()));
  const double mine = boot_time_s();
  allgather(g, std::span<const double>(&mine, 1), std::span<double>(boots), plain());
  clock_offset out;
  for (int i = 1; i < g.size(); ++i) {
    if (!always &&
        std::abs(boots[static_cast<std::size_t>(i)] - boots[0]) < same_kernel_tolerance_s)
      continue;
    const int members[] = {0, i};
    const group pair = g.subset(members);
    if (pair.rank() < 0) continue;
    double best_rtt = 1e300, best = 0;
    for (int k = 0; k < 16; ++k) {
      double t[1] = {0};
      const double ta = gaea::monotonic_s();
      broadcast(pair, std::span<double>(t), 0, plain());
      if (pair.rank() == 1) t[0] = gaea::monotonic_s();
      broadcast(pair, std::span<double>(t), 1, plain());
      const double tc = gaea::monotonic_s();
      if (tc - ta < best_rtt) {
        best_rtt = tc - ta;
        best = t[0] - 0.5 * (ta + tc);
      }
    }
    double o[2] = {best, best_rtt};
    broadcast(pair, std::span<double>(o), 0, plain());
    if (pair.rank() == 1) out = {o[0], o[1]};
  }
  return out;
}

}  // namespace gaea::coll::detail
