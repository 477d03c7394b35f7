// coll::measure, what the estimator is calibrated and validated with: every member gets the same
// figures, a larger call measures longer, bad arguments fail on every member.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "detail/clock_offset.hpp"
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

TEST_CASE("clock offsets measured by round trips are within half a round trip of the truth",
          "[coll][measure]") {
  const coll::group& w = coll::world();
  // Every rank here runs on one kernel (the emulated hosts too): the true offset is 0, so the
  // measured one must lie within the method's bound, half the round trip it used.
  const gaea::coll::detail::clock_offset o = gaea::coll::detail::offset_from_member0(w, true);
  if (w.rank() == 0) {
    CHECK(o.offset == 0);
    CHECK(o.rtt == 0);
  } else {
    CHECK(o.rtt > 0);
    CHECK(std::abs(o.offset) <= 0.5 * o.rtt + 1e-7);
  }
  // Without `always`, one kernel means no round trips at all.
  const gaea::coll::detail::clock_offset same = gaea::coll::detail::offset_from_member0(w, false);
  CHECK(same.offset == 0);
  CHECK(same.rtt == 0);
}
