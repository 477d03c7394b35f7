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

TEST_CASE("gather and scatter with mismatched roots or counts fail on every member", "[coll]") {
  const coll::group& w = coll::world();
  if (w.size() < 2) return;
  const auto p = static_cast<std::size_t>(w.size());
  for (auto a : {coll::algorithm::binomial, coll::algorithm::linear}) {
    coll::options o;
    o.algo = a;
    INFO(coll::to_string(a));
    std::vector<int> mine(3, w.rank()), all(3 * p);
    const int root = w.rank() == 0 ? 0 : 1;
    REQUIRE_THROWS_WITH(
        coll::gather(w, std::span<const int>(mine), std::span<int>(all), root, o),
        Catch::Contains("mismatched") && Catch::Contains("gather") && Catch::Contains("root"));
    // Rank 0 gives 4 elements, the others (the root among them) 3.
    std::vector<int> part(w.rank() == 0 ? 4 : 3);
    REQUIRE_THROWS_WITH(
        coll::scatter(w, std::span<const int>(all), std::span<int>(part), w.size() - 1, o),
        Catch::Contains("mismatched") && Catch::Contains("count"));
    // Every member's own count agrees with its part, but rank 0's counts differ from the others'.
    std::vector<std::int64_t> counts(p, 2);
    if (w.rank() == 0) counts[p - 1] = 5;
    std::vector<int> two(2), many(static_cast<std::size_t>(2 * p + 3));
    REQUIRE_THROWS_WITH(coll::gatherv(w, std::span<const int>(two), std::span<int>(many),
                                      std::span<const std::int64_t>(counts), 0, o),
                        Catch::Contains("mismatched") && Catch::Contains("counts digest"));
  }
  REQUIRE(coll::allreduce(w, 1, coll::reduce_op::sum) == w.size());
}

TEST_CASE("a problem only one member sees fails gather and scatter on every member", "[coll]") {
  const coll::group& w = coll::world();
  const auto p = static_cast<std::size_t>(w.size());
  const int root = w.size() - 1;
  // The root's buffer is one element short.
  std::vector<double> mine(4, 1.0), all(w.rank() == root ? 4 * p - 1 : 0);
  REQUIRE_THROWS_WITH(coll::gather(w, std::span<const double>(mine), std::span<double>(all), root),
                      Catch::Contains("gather on group 'world'") &&
                          Catch::Contains("root's buffer holds " + std::to_string(4 * p - 1)));
  REQUIRE_THROWS_WITH(coll::scatter(w, std::span<const double>(all), std::span<double>(mine), root),
                      Catch::Contains("root's buffer holds"));
  // Member 0's part does not match its own count.
  std::vector<std::int64_t> counts(p, 1);
  std::vector<double> one(w.rank() == 0 ? 2 : 1), out(p);
  REQUIRE_THROWS_WITH(coll::gatherv(w, std::span<const double>(one), std::span<double>(out),
                                    std::span<const std::int64_t>(counts), root),
                      Catch::Contains("this member gives 2 elements but counts[0] = 1"));
  // Bad arguments every member passes alike.
  REQUIRE_THROWS_WITH(
      coll::gather(w, std::span<const double>(mine), std::span<double>(all), w.size()),
      Catch::Contains("root " + std::to_string(w.size()) + " out of range"));
  counts[0] = -1;
  REQUIRE_THROWS_WITH(
      coll::scatterv(w, std::span<const double>(out), std::span<const std::int64_t>(counts),
                     std::span<double>(one), root),
      Catch::Contains("count[0] = -1 is negative"));
  coll::options o;
  o.algo = coll::algorithm::linear;
  REQUIRE_THROWS_WITH(coll::broadcast(w, std::span<double>(mine), 0, o),
                      Catch::Contains("not an algorithm of this operation"));
  REQUIRE(coll::allreduce(w, 1, coll::reduce_op::sum) == w.size());
}
