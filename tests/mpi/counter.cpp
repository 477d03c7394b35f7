// P ranks x K fetch_add(1) hand out every value 0..PK-1 exactly once.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <thread>

#include "gaea/counters/shared_counter.hpp"
#include "test_support.hpp"

using namespace gaea;
using gaea::test::rt;

TEST_CASE("shared_counter: every value is handed out exactly once", "[counter]") {
  const int me = rt().rank(), n = rt().size();
  for (int owner : {0, n - 1}) {
    shared_counter c("tasks", owner);
    constexpr int k = 500;
    std::vector<std::int64_t> mine;
    mine.reserve(k);
    for (int i = 0; i < k; ++i) {
      mine.push_back(c.fetch_add(1));
      // Ranks of different speeds: odd ranks pause now and then.
      if (me % 2 == 1 && i % 100 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    REQUIRE(std::is_sorted(mine.begin(), mine.end()));
    // Gather all values on every rank and check the permutation (after a gaea barrier, so that
    // with GAEA_PROGRESS=off the owner keeps serving until everyone is done).
    rt().barrier();
    std::vector<std::int64_t> all(static_cast<std::size_t>(k) * n);
    MPI_Allgather(mine.data(), k, MPI_INT64_T, all.data(), k, MPI_INT64_T, MPI_COMM_WORLD);
    std::sort(all.begin(), all.end());
    bool perm = true;
    for (std::size_t i = 0; i < all.size(); ++i)
      perm = perm && all[i] == static_cast<std::int64_t>(i);
    CHECK(perm);
    rt().barrier();
    CHECK(c.read() == static_cast<std::int64_t>(k) * n);
  }
}

TEST_CASE("shared_counter: chunks, compare-swap and values near 2^63", "[counter]") {
  const int n = rt().size();
  constexpr std::int64_t start = (std::int64_t{1} << 62) + 12345;
  shared_counter c("big", 0, start);
  const std::int64_t got = c.fetch_add(1000);
  CHECK(got >= start);
  CHECK((got - start) % 1000 == 0);
  rt().barrier();
  CHECK(c.read() == start + 1000 * n);
  rt().barrier();
  // Exactly one rank wins a compare-swap race.
  const std::int64_t seen = c.read();
  rt().barrier();
  const bool won = c.compare_swap(seen, -1) == seen;
  const auto wins = gaea::test::allgather(static_cast<std::int64_t>(won));
  CHECK(std::count(wins.begin(), wins.end(), 1) == 1);
  rt().barrier();
  CHECK(c.read() == -1);
}
