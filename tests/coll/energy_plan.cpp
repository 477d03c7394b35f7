// The per-call energy strategy's step levels ([A2A-Energy] §2, stages 1-4) for block and cyclic
// placements, from the algorithms' patterns alone (no runtime).
#include <catch2/catch.hpp>
#include <vector>

#include "detail/energy_plan.hpp"
#include "detail/shape.hpp"
#include "detail/simulate.hpp"
#include "gaea/coll/estimator.hpp"

namespace d = gaea::coll::detail;
using gaea::coll::algorithm;
using gaea::coll::operation;

namespace {
// Levels of the exchange steps only (the first and last rounds are local copies: T0).
std::vector<int> steps(const std::vector<int>& all, std::size_t first, std::size_t count) {
  return {all.begin() + static_cast<long>(first), all.begin() + static_cast<long>(first + count)};
}
}  // namespace

TEST_CASE("Bruck throttles to T5 once every core of a node talks across nodes", "[coll][energy]") {
  // The layout of [A2A-Energy Fig. 2]: 3 nodes of 8 cores, block placement: steps 2^k < 8 have
  // intra-node partners on every node, the later ones are inter-node only.
  auto g = d::synthetic_group(24, 3, true);
  for (int me : {0, 7, 8, 23}) {
    const auto lv = d::node_levels(*g, me, operation::alltoall, algorithm::bruck, 64, 65536);
    REQUIRE(lv.size() == 7);  // rotate, 5 steps, rotate back
    CHECK(lv.front() == d::level_intra);
    CHECK(lv.back() == d::level_intra);
    CHECK(steps(lv, 1, 5) == std::vector<int>{0, 0, 0, 5, 5});
  }
}

TEST_CASE("cyclic placement makes Bruck's first steps inter-node and its last intra-node",
          "[coll][energy]") {
  auto block = d::synthetic_group(4, 2, true), cyclic = d::synthetic_group(4, 2, false);
  REQUIRE(block->block);
  REQUIRE_FALSE(cyclic->block);
  CHECK(steps(d::node_levels(*block, 0, operation::alltoall, algorithm::bruck, 8, 65536), 1, 2) ==
        std::vector<int>{0, 5});
  CHECK(steps(d::node_levels(*cyclic, 0, operation::alltoall, algorithm::bruck, 8, 65536), 1, 2) ==
        std::vector<int>{5, 0});
}

TEST_CASE("send-to/receive-from is inter-node only from step c to step p - c", "[coll][energy]") {
  const int p = 24, c = 8;
  auto g = d::synthetic_group(p, 3, true);
  const auto lv = d::node_levels(*g, 3, operation::alltoall, algorithm::send_recv, 1024, 65536);
  REQUIRE(lv.size() == static_cast<std::size_t>(p));  // own copy + p-1 steps
  for (int k = 1; k < p; ++k) {
    INFO("step " << k);
    CHECK(lv[static_cast<std::size_t>(k)] ==
          (k >= c && k <= p - c ? d::level_inter : d::level_intra));
  }
}

TEST_CASE("pairwise exchange leaves the node from step c on", "[coll][energy]") {
  auto g = d::synthetic_group(16, 4, true);
  const auto lv = d::node_levels(*g, 5, operation::alltoall, algorithm::pairwise, 1024, 65536);
  for (int k = 1; k < 16; ++k)
    CHECK(lv[static_cast<std::size_t>(k)] == (k < 4 ? d::level_intra : d::level_inter));
}

TEST_CASE("members idle in a step let their node throttle to T7", "[coll][energy]") {
  // Binomial broadcast from 0 on 2 nodes x 2: node 1 (members 2, 3) waits in the first round
  // for member 0's message while nothing on it moves.
  auto g = d::synthetic_group(4, 2, true);
  const auto lv = d::node_levels(*g, 3, operation::barrier, algorithm::hierarchical, 0, 65536);
  REQUIRE_FALSE(lv.empty());
  auto one = d::synthetic_group(2, 1, true);
  const auto single = d::node_levels(*one, 0, operation::alltoall, algorithm::pairwise, 0, 65536);
  for (std::size_t i = 1; i < single.size(); ++i)
    CHECK(single[i] == d::level_intra);  // one node: never throttled
  auto far = d::synthetic_group(2, 2, true);
  const auto apart = d::node_levels(*far, 0, operation::alltoall, algorithm::pairwise, 0, 65536);
  CHECK(apart[1] == d::level_inter);
  // A round in which no member of the node takes part is idle.
  auto chain = d::synthetic_group(4, 4, true);
  const auto lc =
      d::node_levels(*chain, 3, operation::broadcast, algorithm::chain, 3 * 65536, 65536);
  CHECK(lc.front() == d::level_inter);
  CHECK(std::count(lc.begin(), lc.end(), d::level_idle) == 0);
}

TEST_CASE(
    "the automatic strategy applies only where its transitions stay within the slowdown "
    "budget",
    "[coll][energy]") {
  // Two CPUs, 10 µs DVFS and 2 µs throttle transitions, down and up: 48 µs per call.
  const double cost = 2 * (2 * 10e-6 + 2 * 2e-6);
  CHECK_FALSE(d::worth_saving(100e-6, cost, 0.02));
  CHECK(d::worth_saving(2.5e-3, cost, 0.02));
  const gaea::coll::estimator e;
  auto g = d::synthetic_group(24, 3, true);
  const double small =
      d::simulate(e, operation::alltoall, algorithm::bruck, *g, 64, 65536, false).seconds;
  const double large =
      d::simulate(e, operation::alltoall, algorithm::send_recv, *g, 1 << 20, 65536, false).seconds;
  CHECK_FALSE(d::worth_saving(small, cost, 0.02));
  CHECK(d::worth_saving(large, cost, 0.02));
}
