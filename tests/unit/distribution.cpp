// Unit tests of gaea::ga's block distribution: tiling, process grids, patch owners, bad shapes.

#include <catch2/catch.hpp>

#include <numeric>

#include "gaea/base/error.hpp"
#include "gaea/ga/distribution.hpp"

using namespace gaea::ga;

TEST_CASE("distribution: blocks tile the index space exactly once", "[distribution]") {
  for (int p : {1, 2, 3, 4, 6, 7, 12}) {
    for (const index& dims : {index{10}, index{7, 5}, index{1, 9}, index{3, 4, 5}, index{100, 3}}) {
      distribution d("A", dims, p);
      index_t total = 1;
      for (auto x : dims)
        total *= x;
      index_t sum = 0;
      for (int r = 0; r < p; ++r)
        sum += d.storage_elements(r);
      CHECK(sum == total);
      // Every element's owner (via locate of a single element) is the rank whose block holds it.
      const patch whole{index(dims.size(), 0), [&] {
                          index h(dims);
                          for (auto& x : h)
                            --x;
                          return h;
                        }()};
      const auto pieces = d.locate(whole);
      index_t covered = 0;
      for (const auto& o : pieces) {
        CHECK(o.piece == d.block(o.rank));
        covered += o.piece.elements();
      }
      CHECK(covered == total);
    }
  }
}

TEST_CASE("distribution: process grid follows the shape and chunk hints", "[distribution]") {
  CHECK(distribution("A", {1000, 10}, 4).grid() == std::vector<int>{4, 1});
  CHECK(distribution("A", {100, 100}, 4).grid() == std::vector<int>{2, 2});
  // A chunk hint that forbids splitting dimension 0.
  CHECK(distribution("A", {100, 100}, 4, {100, 0}).grid() == std::vector<int>{1, 4});
  // More ranks than elements: the extra ranks own nothing.
  distribution small("S", {3}, 4);
  index_t owners = 0;
  for (int r = 0; r < 4; ++r)
    owners += small.storage_elements(r) > 0 ? 1 : 0;
  CHECK(owners == 3);
  CHECK(small.block(3).empty());
}

TEST_CASE("distribution: locate splits a patch among its owners", "[distribution]") {
  distribution d("A", {8, 8}, 4);  // 2x2 grid of 4x4 blocks
  const auto pieces = d.locate(patch{{2, 3}, {5, 4}});
  REQUIRE(pieces.size() == 4);
  CHECK(pieces[0].rank == 0);
  CHECK(pieces[0].piece == patch{{2, 3}, {3, 3}});
  CHECK(pieces[3].rank == 3);
  CHECK(pieces[3].piece == patch{{4, 4}, {5, 4}});
  CHECK(d.locate(patch{{0, 0}, {0, 0}}).size() == 1);
}

TEST_CASE("distribution: bad shapes and patches give gaea::error naming the array",
          "[distribution][errors]") {
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(distribution("Z", {4, 0}, 2), Contains("'Z'") && Contains("dims[1]=0"));
  CHECK_THROWS_WITH(distribution("N", {-3}, 2), Contains("dims[0]=-3"));
  CHECK_THROWS_WITH(distribution("E", {}, 2), Contains("0 dimensions"));
  CHECK_THROWS_WITH(distribution("B", index(8, 2), 2), Contains("8 dimensions"));
  CHECK_THROWS_WITH(distribution("C", {4, 4}, 2, {5, 0}), Contains("chunk[0]=5"));
  distribution d("P", {10, 6}, 2);
  CHECK_THROWS_WITH(d.validate(patch{{0, 4}, {3, 2}}, "get"),
                    Contains("'P'") && Contains("lo[1]=4 > hi[1]=2"));
  CHECK_THROWS_WITH(d.validate(patch{{0, 0}, {10, 2}}, "put"),
                    Contains("outside") && Contains("0..9"));
  CHECK_THROWS_WITH(d.validate(patch{{-1, 0}, {1, 2}}, "acc"), Contains("outside"));
  CHECK_THROWS_WITH(d.validate(patch{{0}, {1}}, "get"), Contains("2-D array"));
  CHECK_THROWS_AS(d.validate(patch{{0, 0}, {9, 6}}, "get"), gaea::error);
  CHECK_NOTHROW(d.validate(patch{{0, 0}, {9, 5}}, "get"));
}
