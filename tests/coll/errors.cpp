// Bad calls: a clear gaea::error on every member that takes part, never a hang.
#include <catch2/catch.hpp>
#include <vector>

#include "gaea/base/error.hpp"
#include "gaea/coll/collectives.hpp"

namespace coll = gaea::coll;

TEST_CASE("a bad root or a non-member is an error on the calling rank", "[coll]") {
  const coll::group& w = coll::world();
  std::vector<int> v(4);
  REQUIRE_THROWS_WITH(coll::broadcast(w, std::span<int>(v), w.size()),
                      Catch::Contains("root " + std::to_string(w.size()) + " out of range"));
  const coll::group none = w.split(-1);
  REQUIRE(none.rank() == -1);
  REQUIRE_THROWS_WITH(coll::barrier(none), Catch::Contains("not a member"));
  coll::options o;
  o.algo = coll::algorithm::bruck;
  REQUIRE_THROWS_WITH(coll::barrier(w, o), Catch::Contains("not an algorithm of this operation"));
}

TEST_CASE("mismatched counts fail on every member instead of hanging", "[coll]") {
  const coll::group& w = coll::world();
  if (w.size() < 2) return;
  // Rank 0 passes one element more than the others.
  std::vector<double> v(w.rank() == 0 ? 11 : 10, 1.0);
  for (auto a : {coll::algorithm::recursive_doubling, coll::algorithm::ring}) {
    coll::options o;
    o.algo = a;
    INFO(coll::to_string(a));
    REQUIRE_THROWS_WITH(coll::allreduce(w, std::span<double>(v), coll::reduce_op::sum, o),
                        Catch::Contains("mismatched") && Catch::Contains("group 'world'"));
  }
  // The group is still usable afterwards.
  REQUIRE(coll::allreduce(w, 1, coll::reduce_op::sum) == w.size());
}

TEST_CASE("mismatched roots fail on every member instead of hanging", "[coll]") {
  const coll::group& w = coll::world();
  if (w.size() < 2) return;
  std::vector<int> v(8, w.rank());
  const int root = w.rank() == 0 ? 0 : 1;
  REQUIRE_THROWS_WITH(coll::broadcast(w, std::span<int>(v), root),
                      Catch::Contains("mismatched") && Catch::Contains("root"));
  REQUIRE(coll::allreduce(w, 1, coll::reduce_op::sum) == w.size());
}
