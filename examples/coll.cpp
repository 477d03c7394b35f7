// gaea::coll: collectives on Gaea's transport. Every rank contributes a vector to an allreduce
// over the world group, the ranks split into even and odd groups that reduce on their own, and a
// non-blocking allgather runs while the rank does other work. Each result is checked against its
// closed form on every rank, and the ranks agree on the verdict with one more allreduce.
//   mpirun -np 4 gaea-example-coll
#include <cstdint>
#include <cstdio>
#include <span>
#include <vector>

#include "gaea/coll/collectives.hpp"
#include "gaea/coll/group.hpp"
#include "gaea/runtime/runtime.hpp"

using gaea::coll::reduce_op;

int main(int argc, char** argv) {
  return gaea::run_main("gaea-example-coll", &argc, &argv, [](gaea::runtime& rt) {
    const gaea::coll::group& world = gaea::coll::world();  // made when the runtime started
    const std::int64_t me = world.rank(), p = world.size();
    int bad = 0;

    // Allreduce in place: element i becomes sum over ranks r of (r + i) = p(p-1)/2 + p i.
    std::vector<std::int64_t> v(8);
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = me + static_cast<std::int64_t>(i);
    gaea::coll::allreduce(world, std::span(v), reduce_op::sum);
    for (std::size_t i = 0; i < v.size(); ++i)
      bad += v[i] != p * (p - 1) / 2 + p * static_cast<std::int64_t>(i);

    // A sub-group (collective over world): the largest rank of my parity.
    const gaea::coll::group half = world.split(static_cast<int>(me % 2), 0, "parity");
    const std::int64_t top = gaea::coll::allreduce(half, me, reduce_op::max);
    const std::int64_t expect_top = (p - 1) % 2 == me % 2 ? p - 1 : p - 2;
    bad += top != expect_top;

    // Non-blocking allgather: start it, do something else, then wait.
    const std::vector<double> mine{static_cast<double>(me) * 0.5};
    std::vector<double> all(static_cast<std::size_t>(p));
    gaea::coll::request r = gaea::coll::allgather(world, std::span<const double>(mine),
                                                  std::span(all), gaea::nonblocking);
    double local_work = 0;
    for (int i = 1; i <= 1000; ++i)
      local_work += 1.0 / i;
    r.wait();
    for (std::int64_t k = 0; k < p; ++k)
      bad += all[static_cast<std::size_t>(k)] != static_cast<double>(k) * 0.5;

    // Everyone learns whether any rank saw a wrong value.
    const int total_bad = gaea::coll::allreduce(world, bad, reduce_op::sum);
    if (rt.rank() == 0)
      std::printf(
          "coll: %lld ranks, allreduce sum[7]=%lld, parity max=%lld, allgather of %lld "
          "(harmonic %.3f): %s\n",
          static_cast<long long>(p), static_cast<long long>(v[7]), static_cast<long long>(top),
          static_cast<long long>(p), local_work, total_bad == 0 ? "ok" : "FAILED");
    return total_bad == 0 ? 0 : 1;
  });
}
