// The per-call energy strategy on simulated actuators: the frequency goes down for the call and
// back up after it, throttling follows the steps, and everything is restored when a call fails.
#include <bit>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "gaea/coll/collectives.hpp"
#include "gaea/energy/actuator.hpp"
#include "gaea/energy/throttle.hpp"
#include "gaea/runtime/runtime.hpp"

namespace coll = gaea::coll;

namespace {
void require_restored(gaea::runtime& rt) {
  for (int c : rt.throttle().cpus()) {
    REQUIRE(rt.throttle().level(c) == 0);
    REQUIRE(rt.dvfs().current_khz(c) == rt.dvfs().high_khz(c));
  }
}
// What one rank contributes to count_on_node: its node, its CPUs (as a mask: the test machines
// have fewer than 64) and its transitions.
struct rank_counts {
  std::int64_t node = 0;
  std::uint64_t cpus = 0, dvfs = 0, throttle = 0;
};

struct node_counts {
  std::uint64_t cpus = 0;  // distinct CPUs of this node's ranks
  bool shared = false;     // some CPU belongs to more than one of them
  std::uint64_t dvfs = 0, throttle = 0, dvfs_mine = 0;
};

// This node's CPUs and transitions, summed over its ranks. Collective.
node_counts count_on_node(gaea::runtime& rt, std::uint64_t dvfs, std::uint64_t throttle) {
  rank_counts mine{rt.node_id(), 0, dvfs, throttle};
  for (int c : rt.throttle().cpus()) {
    REQUIRE(c < 64);
    mine.cpus |= std::uint64_t{1} << c;
  }
  node_counts n;
  std::uint64_t all = 0;
  for (const rank_counts& r : coll::allgather(coll::world(), mine)) {
    if (r.node != mine.node) continue;
    n.shared = n.shared || (all & r.cpus) != 0;
    all |= r.cpus;
    n.dvfs += r.dvfs;
    n.throttle += r.throttle;
  }
  n.cpus = static_cast<std::uint64_t>(std::popcount(all));
  n.dvfs_mine = dvfs;
  return n;
}

}  // namespace

TEST_CASE(
    "an all-to-all with the energy strategy runs at low frequency and throttles only "
    "inter-node steps",
    "[coll][energy]") {
  gaea::runtime& rt = gaea::runtime::current();
  REQUIRE(rt.dvfs().active());      // GAEA_DVFS=simulated
  REQUIRE(rt.throttle().active());  // GAEA_THROTTLE=simulated
  const coll::group& w = coll::world();
  REQUIRE(!rt.throttle().cpus().empty());
  std::vector<int> send(static_cast<std::size_t>(w.size()) * 16, w.rank()), recv(send.size());
  coll::options o;
  o.algo = coll::algorithm::send_recv;
  o.energy = coll::energy_mode::on;
  const std::uint64_t d0 = rt.dvfs().transition_count(), t0 = rt.throttle().transition_count();
  coll::alltoall(w, std::span<const int>(send), std::span<int>(recv), o);
  REQUIRE(recv.back() == w.size() - 1);
  // Down and up once per CPU of the node: ranks sharing a CPU agree through the node's arbiter,
  // and the transition is charged to the rank that made it. With block placement
  // send-to/receive-from has a run of steps in which every core of the node talks across nodes
  // only (T5), entered and left once; a CPU shared by ranks is throttled only while all of them
  // are in that run, which they may not reach together (0 or 2 transitions).
  const node_counts n =
      count_on_node(rt, rt.dvfs().transition_count() - d0, rt.throttle().transition_count() - t0);
  REQUIRE(n.dvfs == 2 * n.cpus);
  if (w.nodes() == 1)
    REQUIRE(n.throttle == 0);
  else if (!n.shared)
    REQUIRE(n.throttle == 2 * n.cpus);
  else
    REQUIRE((n.throttle % 2 == 0 && n.throttle <= 2 * n.cpus));
  require_restored(rt);
  // Off: nothing changes.
  o.energy = coll::energy_mode::off;
  coll::alltoall(w, std::span<const int>(send), std::span<int>(recv), o);
  {
    coll::scoped_energy off(coll::energy_mode::off);
    coll::options plain;
    plain.algo = coll::algorithm::send_recv;
    coll::alltoall(w, std::span<const int>(send), std::span<int>(recv), plain);
  }
  REQUIRE(rt.dvfs().transition_count() - d0 == n.dvfs_mine);
}

TEST_CASE("a failing collective restores frequency and throttling", "[coll][energy]") {
  gaea::runtime& rt = gaea::runtime::current();
  const coll::group& w = coll::world();
  if (w.size() < 2) return;
  coll::scoped_energy on(coll::energy_mode::on);
  std::vector<double> v(w.rank() == 0 ? 3 : 2, 1.0);  // mismatched counts
  REQUIRE_THROWS_WITH(coll::allreduce(w, std::span<double>(v), coll::reduce_op::sum),
                      Catch::Contains("mismatched"));
  require_restored(rt);
}
