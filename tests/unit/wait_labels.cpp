// The one description of what a wait waits for (progress::scoped_wait_label): how nested labels
// compose, for the hang warning, the watchdog and the peers that ask.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "gaea/progress/engine.hpp"

using gaea::progress::current_wait_info;
using gaea::progress::current_wait_label;
using gaea::progress::scoped_wait_label;
using gaea::progress::wait_info;

TEST_CASE("wait labels: an outer label prefixes the inner one's collective", "[waiting]") {
  CHECK(current_wait_label().empty());
  const scoped_wait_label call([] { return std::string("GA_Sync"); });
  CHECK(current_wait_label() == "GA_Sync");
  {
    const scoped_wait_label barrier([] {
      return wait_info{"gaea::runtime::barrier number 3", "round 0: waiting for rank 1", {1, 2}};
    });
    const wait_info info = current_wait_info();
    CHECK(info.what == "GA_Sync: gaea::runtime::barrier number 3");
    CHECK(info.detail == "round 0: waiting for rank 1");
    CHECK(info.ranks == std::vector<int>{1, 2});
    CHECK(current_wait_label() ==
          "GA_Sync: gaea::runtime::barrier number 3 (round 0: waiting for rank 1)");
  }
  CHECK(current_wait_label() == "GA_Sync");
}

TEST_CASE("wait labels: the ranks to ask come from an outer label when the inner has none",
          "[waiting]") {
  const scoped_wait_label outer([] { return wait_info{"creating global_array 'a'", {}, {3}}; });
  const scoped_wait_label inner([] { return std::string("a remote operation"); });
  const wait_info info = current_wait_info();
  CHECK(info.what == "creating global_array 'a': a remote operation");
  CHECK(info.ranks == std::vector<int>{3});
}
