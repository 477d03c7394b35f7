// Global arrays on process groups other than the world: distributed over the members only,
// one-sided operations between members, collectives over the group while the other group works
// on its own arrays, and the world's arrays unaffected around them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "ga_reference.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/ga/algorithms.hpp"
#include "gaea/ga/patch_ops.hpp"

using namespace gaea;
using namespace gaea::test;
using Catch::Matchers::Contains;

namespace {

// Interleaved halves (rank % 2), so that member i of group 1 is runtime rank 2i + 1: the
// distribution's member-to-rank map is not the identity. One rank: the world itself.
coll::group halves() {
  return coll::world().split(rt().rank() % 2, 0, "half " + std::to_string(rt().rank() % 2));
}

// Layouts for `p` members: block, irregular, ghosts, block-cyclic.
std::vector<std::pair<std::string, layout_spec>> group_layouts(int p) {
  std::vector<std::vector<index_t>> starts{{0}, {0}};
  if (p >= 2) starts[0].push_back(4);
  return {{"block", layout_spec::block()},
          {"irregular", layout_spec::irregular(starts)},
          {"block+ghosts", layout_spec::block().with_ghosts({1, 1})},
          {"block_cyclic", layout_spec::block_cyclic({3, 2})}};
}

// The members' runtime ranks.
std::vector<int> ranks_of(const coll::group& g) {
  std::vector<int> r;
  for (int i = 0; i < g.size(); ++i)
    r.push_back(g.world_rank(i));
  return r;
}

}  // namespace

TEST_CASE("ga groups: an array on a group lives on its members only", "[ga][groups]") {
  const coll::group g = halves();
  const std::vector<int> members = ranks_of(g);
  const int seed = 1 + rt().rank() % 2;  // each group its own contents
  // Each group has its own shape: the groups' creations must not be paired with each other.
  const index dims{11, 7 + rt().rank() % 2};
  for (const auto& [name, spec] : group_layouts(g.size())) {
    INFO("layout " << name << ", group of " << g.size());
    global_array<double> a(g, "A " + name, dims, spec);
    CHECK(a.layout().nprocs() == g.size());
    CHECK(a.group().size() == g.size());
    // Every tile belongs to a member; every member's ranks are the group's, in member order.
    for (int r = 0; r < rt().size(); ++r) {
      const bool member = std::find(members.begin(), members.end(), r) != members.end();
      if (!member) CHECK(a.tiles(r).empty());
      CHECK(a.layout().member_of(r) ==
            (member
                 ? static_cast<int>(std::find(members.begin(), members.end(), r) - members.begin())
                 : -1));
    }
    for (const auto& piece : a.locate({{0, 0}, {dims[0] - 1, dims[1] - 1}}))
      CHECK(std::find(members.begin(), members.end(), piece.rank) != members.end());
    fill(a, seed);
    const auto want = reference<double>(dims, seed);
    CHECK(mismatches(whole(a), want, "get after fill") == 0);
    a.sync();  // every member has read it before it changes

    // Member 0 puts a row, every member accumulates into one element, all get it back.
    if (g.rank() == 0) {
      std::vector<double> row(static_cast<std::size_t>(dims[1]), -1.0);
      a.put({{2, 0}, {2, dims[1] - 1}}, row);
    }
    const double one = 1;
    a.acc({{dims[0] - 1, dims[1] - 1}, {dims[0] - 1, dims[1] - 1}}, std::span(&one, 1), 2.0);
    a.sync();
    const auto got = whole(a);
    auto expect = want;
    for (index_t j = 0; j < dims[1]; ++j)
      expect[static_cast<std::size_t>(2 * dims[1] + j)] = -1.0;
    expect.back() += 2.0 * g.size();
    CHECK(mismatches(got, expect, "put and acc") == 0);

    if (spec.ghosts.empty()) {
      // Algorithms over the group: scale, dot, copy to a duplicate (same group), norm.
      global_array<double> b = a.duplicate("B " + name);
      CHECK(b.group().size() == g.size());
      ga::copy(a, b);
      ga::scale(b, 2.0);
      double dot = 0;
      for (double x : expect)
        dot += 2 * x * x;
      CHECK(ga::dot(a, b) == Approx(dot));
      CHECK(ga::norm(b, ga::norm_kind::inf) >= 0);
    } else {
      a.update_ghosts(ga::boundary::periodic);
      for (const auto& t : a.local_tiles()) {
        const index corner{t.box.lo[0] - 1, t.box.lo[1] - 1};
        const index wrapped{(corner[0] + dims[0]) % dims[0], (corner[1] + dims[1]) % dims[1]};
        CHECK(t.at(corner) == expect[static_cast<std::size_t>(linear(wrapped, dims))]);
      }
    }
  }
}

TEST_CASE("ga groups: group arrays between world arrays keep the world's arrays working",
          "[ga][groups]") {
  const coll::group g = halves();
  global_array<std::int64_t> before("world before", {9, 5});
  fill(before, 3);
  {
    // Only group 0 creates arrays here (two of them), so the ranks' segment counters differ
    // afterwards; the next world array must still agree on its identity everywhere.
    std::vector<global_array<std::int64_t>> mine;
    if (rt().rank() % 2 == 0) {
      mine.emplace_back(g, "only group 0 (1)", index{6});
      mine.emplace_back(g, "only group 0 (2)", index{6});
      mine[1].fill(7);
      std::vector<std::int64_t> v(6);
      mine[1].get({{0}, {5}}, v);
      CHECK(std::count(v.begin(), v.end(), 7) == 6);
    }
    global_array<std::int64_t> after("world after", {4, 9});
    fill(after, 4);
    CHECK(mismatches(whole(after), reference<std::int64_t>({4, 9}, 4), "world after") == 0);
    global_array<std::int64_t> w("world same shape", {6});
    const bool across = !mine.empty() && g.size() < rt().size();
    if (across) {
      // Collectives over arrays of different groups are refused, before communicating...
      CHECK_THROWS_WITH(ga::dot(mine[0], w), Contains("needs arrays on the same ranks"));
      // ...but copy, as in Global Arrays, is collective over the smaller group (group 0 here).
      ga::copy(mine[1], w);
    }
    w.sync();
    std::vector<std::int64_t> v(6);
    w.get({{0}, {5}}, v);
    if (g.size() < rt().size()) CHECK(std::count(v.begin(), v.end(), 7) == 6);
    w.fill(9);  // world collective: after every rank has read w
    if (across) {
      ga::copy(w, mine[0]);  // into the smaller group's array: its members get their parts
      std::vector<std::int64_t> u(6);
      mine[0].get({{0}, {5}}, u);
      CHECK(std::count(u.begin(), u.end(), 9) == 6);
    }
  }
  CHECK(mismatches(whole(before), reference<std::int64_t>({9, 5}, 3), "world before") == 0);
}

TEST_CASE("ga groups: copy_patch between a group's array and a world array moves the patch",
          "[ga][groups]") {
  // GA's pg2test pattern: collective over the smaller group only, both directions, patches at
  // different places in the two arrays; a transposed copy between groups is refused.
  const coll::group g = halves();
  global_array<std::int64_t> w("world patch", {10, 8});
  w.fill(-1);
  const bool member = rt().rank() % 2 == 0;
  if (member && g.size() < rt().size()) {
    for (const auto& [name, spec] : group_layouts(g.size())) {
      INFO(name);
      global_array<std::int64_t> a(g, "group patch " + name, {7, 6}, spec);
      fill(a, 5);
      const patch pa{{1, 2}, {4, 5}}, pw{{5, 1}, {8, 4}};
      ga::copy_patch(a, pa, w, pw);
      std::vector<std::int64_t> got(16);
      w.get(pw, got);
      const auto ref = reference<std::int64_t>({7, 6}, 5);
      std::int64_t bad = 0;
      for (index_t i = 0; i < 4; ++i)
        for (index_t j = 0; j < 4; ++j)
          bad += got[static_cast<std::size_t>(i * 4 + j)] !=
                 ref[static_cast<std::size_t>((1 + i) * 6 + 2 + j)];
      CHECK(bad == 0);
      // Back into another place of the group's array.
      a.zero();
      ga::copy_patch(w, pw, a, patch{{3, 0}, {6, 3}});
      std::vector<std::int64_t> back(16);
      a.get(patch{{3, 0}, {6, 3}}, back);
      CHECK(back == got);
      CHECK_THROWS_WITH(ga::copy_patch(a, pa, w, pw, true),
                        Contains("different process groups") && Contains("transpose"));
      a.sync();
    }
  }
  w.sync();
}

TEST_CASE("ga groups: a rank outside the group cannot create its array", "[ga][groups]") {
  if (rt().size() < 2) return;
  const coll::group g = coll::world().split(rt().rank() == 0 ? 0 : -1, 0, "rank 0 alone");
  if (rt().rank() == 0) {
    global_array<float> a(g, "alone", {5, 5});  // collective over rank 0 only
    a.fill(1.5F);
    CHECK(ga::norm(a, ga::norm_kind::one) == Approx(7.5));  // the largest column sum
  } else {
    CHECK_THROWS_WITH(global_array<float>(g, "alone", {5, 5}),
                      Contains("is not a member of group"));
  }
  rt().barrier();
}
