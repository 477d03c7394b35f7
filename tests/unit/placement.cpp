// Unit test of the runtime's thread placement: SMT sibling, then a spare core, then unpinned.

#include <catch2/catch.hpp>

#include "gaea/runtime/topology.hpp"

using gaea::place_progress_thread;

TEST_CASE("placement: SMT sibling, then spare core, then unpinned", "[placement]") {
  // 2 cores x 2 PUs: core 0 = PUs {0,2}, core 1 = PUs {1,3}.
  const std::vector<std::vector<int>> smt{{0, 2}, {1, 3}};
  const std::vector<int> all4{0, 1, 2, 3};
  auto p = place_progress_thread(smt, all4, {0}, {{0}, {1}}, 0);
  CHECK(p.cpus == std::vector<int>{2});
  CHECK(p.dedicated);
  CHECK(p.description.find("SMT sibling") != std::string::npos);

  // 4 cores without SMT, 2 bound ranks: each progress thread gets its own spare core.
  const std::vector<std::vector<int>> flat{{0}, {1}, {2}, {3}};
  auto a = place_progress_thread(flat, all4, {0}, {{0}, {1}}, 0);
  auto b = place_progress_thread(flat, all4, {1}, {{0}, {1}}, 1);
  CHECK(a.cpus == std::vector<int>{2});
  CHECK(b.cpus == std::vector<int>{3});
  CHECK(a.description.find("spare core") != std::string::npos);

  // 2 cores, 2 bound ranks: nothing spare -> unpinned over every PU, not the inherited binding.
  const std::vector<std::vector<int>> two{{0}, {1}};
  auto u = place_progress_thread(two, {0, 1}, {0}, {{0}, {1}}, 0);
  CHECK(u.description == "unpinned");
  CHECK(u.cpus == std::vector<int>{0, 1});
  CHECK_FALSE(u.dedicated);

  // Unbound ranks: no spare core can be claimed safely.
  auto f = place_progress_thread(flat, all4, all4, {all4, all4}, 1);
  CHECK(f.description == "unpinned");
}
