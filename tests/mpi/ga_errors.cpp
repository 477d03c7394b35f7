// Bad input on one rank gives a clear gaea::error there, and the other ranks do not hang.
#include <catch2/catch.hpp>

#include "gaea/counters/shared_counter.hpp"
#include "gaea/ga/global_array.hpp"
#include "test_support.hpp"

using namespace gaea;
using Catch::Matchers::Contains;
using gaea::ga::patch;
using gaea::test::rt;

TEST_CASE("global_array: bad patches and buffers throw gaea::error on the faulty rank only",
          "[ga][errors]") {
  global_array<double> a("M", {10, 8});
  a.zero();
  const int bad_rank = rt().size() - 1;
  if (rt().rank() == bad_rank) {
    std::vector<double> buf(100);
    CHECK_THROWS_WITH(a.get(patch{{0, 0}, {10, 7}}, buf),
                      Contains("'M'") && Contains("outside") && Contains("0..9"));
    CHECK_THROWS_WITH(a.put(patch{{3, 5}, {2, 6}}, buf),
                      Contains("'M'") && Contains("lo[0]=3 > hi[0]=2"));
    CHECK_THROWS_WITH(a.acc(patch{{0, -1}, {1, 1}}, buf), Contains("outside"));
    // 4x8 patch needs 32 elements; 31 is one short.
    std::vector<double> small(31);
    CHECK_THROWS_WITH(a.get(patch{{0, 0}, {3, 7}}, small),
                      Contains("buffer has 31 elements") && Contains("needs 32"));
    const ga::index_t ld_small[] = {4};
    CHECK_THROWS_WITH(a.get(patch{{0, 0}, {3, 7}}, buf, ld_small),
                      Contains("ld[0]=4") && Contains("extent 8"));
    const ga::index_t ld_wrong[] = {8, 8};
    CHECK_THROWS_WITH(a.put(patch{{0, 0}, {3, 7}}, buf, ld_wrong), Contains("ld has 2 entries"));
    CHECK_THROWS_WITH(a.locate(patch{{0}, {1}}), Contains("2-D array"));
  }
  // Collective calls with bad arguments fail identically on every rank, before communicating.
  CHECK_THROWS_WITH(global_array<float>("Z", {0, 4}), Contains("'Z'") && Contains("dims[0]=0"));
  CHECK_THROWS_WITH(global_array<std::int32_t>("N", {5, -2}), Contains("dims[1]=-2"));
  CHECK_THROWS_WITH(shared_counter("C", rt().size()), Contains("'C'") && Contains("owner rank"));
  // Everyone is still in step: a collective and a correct transfer work.
  a.sync();
  std::vector<double> ok(80, 1.0);
  if (rt().rank() == 0) a.put(patch{{0, 0}, {9, 7}}, ok);
  a.sync();
  std::vector<double> back(80);
  a.get(patch{{0, 0}, {9, 7}}, back);
  CHECK(back[79] == 1.0);
}

TEST_CASE("shared_counter: negative increments are rejected", "[counter][errors]") {
  shared_counter c("lb");
  CHECK_THROWS_WITH(c.fetch_add(-1), Contains("'lb'") && Contains("fetch_add(-1)"));
  CHECK(c.read() == 0);
}

TEST_CASE("runtime: a second runtime in the same process is refused", "[runtime][errors]") {
  CHECK_THROWS_WITH(runtime(), Contains("already exists"));
}
