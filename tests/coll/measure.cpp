// coll::measure, what the estimator is calibrated and validated with: every member gets the same
// figures, a larger call measures longer, bad arguments fail on every member.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "gaea/base/error.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/coll/estimator.hpp"

namespace coll = gaea::coll;

TEST_CASE("measure gives every member the same figures, one per case", "[coll][measure]") {
  const coll::group& w = coll::world();
  const std::vector<coll::measure_case> cases = {
      {coll::operation::broadcast, coll::algorithm::binomial, 8},
      {coll::operation::broadcast, coll::algorithm::binomial, std::size_t{16} << 20},
      {coll::operation::barrier, coll::algorithm::dissemination, 0},
      {coll::operation::alltoall, coll::algorithm::send_recv, 4096}};
  const std::vector<coll::measurement> m = coll::measure(w, cases, 7);
  REQUIRE(m.size() == cases.size());
  for (const coll::measurement& x : m) {
    CHECK(std::isfinite(x.seconds));
    CHECK(x.seconds > 0);
    CHECK(x.spread >= 0);
    CHECK(x.late >= 0);
    CHECK(x.late <= 1);
    // Identical on every member: the figures come from reductions over all members.
    CHECK(coll::allreduce(w, x.seconds, coll::reduce_op::max) == x.seconds);
    CHECK(coll::allreduce(w, x.seconds, coll::reduce_op::min) == x.seconds);
  }
  // 16 MiB copied (at least once) takes longer than 8 bytes, whatever the machine's load.
  if (w.size() > 1) CHECK(m[1].seconds > m[0].seconds);
}

TEST_CASE("measure rejects a repetition count below one on every member", "[coll][measure]") {
  const coll::group& w = coll::world();
  const std::vector<coll::measure_case> cases = {
      {coll::operation::barrier, coll::algorithm::dissemination, 0}};
  REQUIRE_THROWS_AS(coll::measure(w, cases, 0), gaea::error);
  REQUIRE_THROWS_WITH(coll::measure(w, cases, 0), Catch::Contains("reps must be at least 1"));
  // The group is still usable.
  REQUIRE(coll::allreduce(w, 1, coll::reduce_op::sum) == w.size());
}
