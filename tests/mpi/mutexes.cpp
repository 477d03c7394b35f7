// Mutex sets: mutual exclusion checked by non-atomic read-modify-write of global-array
// elements under a lock (the final values are exact), try_lock, threads of one rank, and the
// errors (bad index, unlock by a non-holder, second lock, destroy while held).
#include <catch2/catch.hpp>

#include <string>
#include <thread>
#include <vector>

#include "gaea/counters/mutex_set.hpp"
#include "gaea/ga/global_array.hpp"
#include "test_support.hpp"

using namespace gaea;
using Catch::Matchers::Contains;
using gaea::counters::mutex_set;
using gaea::ga::index_t;
using gaea::test::rt;

namespace {
// x[j] = x[j] + 1 by a get and a put (not atomic), under mutex j of `m`.
void increment_under_lock(mutex_set& m, global_array<std::int64_t>& x, index_t j, bool try_first) {
  if (!try_first || !m.try_lock(j)) m.lock(j);
  std::vector<std::int64_t> v(1);
  x.get({{j}, {j}}, v);
  ++v[0];
  x.put({{j}, {j}}, v);
  x.fence();  // the put is complete at its owner before the next holder reads
  m.unlock(j);
}
}  // namespace

TEST_CASE("mutex_set: read-modify-write under a lock loses no update", "[mutex]") {
  const int me = rt().rank(), n = rt().size();
  constexpr index_t cells = 5;  // more mutexes than ranks on 1-4 ranks: some owned by the caller
  mutex_set m("cells", cells);
  CHECK(m.size() == cells);
  CHECK(m.owner(3) == 3 % n);
  global_array<std::int64_t> x("x", {cells});
  x.zero();
  constexpr int rounds = 60;
  for (int r = 0; r < rounds; ++r)
    for (index_t j = 0; j < cells; ++j)
      increment_under_lock(m, x, (j + me) % cells, r % 3 == 0);
  x.sync();
  std::vector<std::int64_t> got(cells);
  x.get({{0}, {cells - 1}}, got);
  for (index_t j = 0; j < cells; ++j) {
    INFO("cell " << j);
    CHECK(got[static_cast<std::size_t>(j)] == std::int64_t{rounds} * n);
  }
  x.sync();
}

TEST_CASE("mutex_set: two threads per rank contend with every other rank", "[mutex][threads]") {
  const int n = rt().size();
  mutex_set m("shared", 1);
  global_array<std::int64_t> x("x1", {1});
  x.zero();
  constexpr int each = 40;
  std::vector<std::thread> ts;
  for (int t = 0; t < 2; ++t)
    ts.emplace_back([&] {
      for (int i = 0; i < each; ++i)
        increment_under_lock(m, x, 0, i % 2 == 0);
    });
  for (auto& t : ts)
    t.join();
  x.sync();
  std::vector<std::int64_t> got(1);
  x.get({{0}, {0}}, got);
  CHECK(got[0] == std::int64_t{2} * each * n);
  x.sync();
}

TEST_CASE("mutex_set: try_lock of a held mutex fails; the holder's unlock frees it", "[mutex]") {
  const int me = rt().rank(), n = rt().size();
  mutex_set m("flags", 2 * n);
  const std::int64_t target = 2 * n - 1;  // owned by rank n - 1
  if (me == 0) CHECK(m.try_lock(target));
  rt().barrier();
  if (me != 0) CHECK_FALSE(m.try_lock(target));
  if (me == 0) CHECK_FALSE(m.try_lock(target));  // already held, by this very thread
  rt().barrier();
  if (me == 0) m.unlock(target);
  rt().barrier();
  CHECK(m.try_lock((target + me) % (2 * n)));  // every rank its own mutex: all free
  m.unlock((target + me) % (2 * n));
  rt().barrier();
}

TEST_CASE("mutex_set: errors name the set, the index and the ranks", "[mutex][errors]") {
  const int me = rt().rank(), n = rt().size();
  mutex_set m("locks", 3);
  CHECK_THROWS_WITH(m.lock(3),
                    Contains("'locks'") && Contains("lock(3)") && Contains("outside [0, 3)"));
  CHECK_THROWS_WITH(m.unlock(-1), Contains("'locks'") && Contains("unlock(-1)"));
  CHECK_THROWS_WITH(m.unlock(1), Contains("'locks'") &&
                                     Contains("unlock(1) by rank " + std::to_string(me)) &&
                                     Contains("does not hold it") && Contains("free"));
  if (me == 0) m.lock(2);
  rt().barrier();
  if (me == n - 1 && n > 1)
    CHECK_THROWS_WITH(m.unlock(2), Contains("unlock(2) by rank " + std::to_string(me)) &&
                                       Contains("rank 0 holds it"));
  if (me == 0) CHECK_THROWS_WITH(m.lock(2), Contains("already holds it"));
  rt().barrier();
  if (me == 0) m.unlock(2);
  CHECK_THROWS_WITH(mutex_set("negative", -2), Contains("'negative'") && Contains("-2"));

  // Destroying a set while a mutex is held fails on every rank, naming it and its holder.
  mutex_set held("held", 2);
  if (me == 0) held.lock(1);
  CHECK_THROWS_WITH(held.destroy(), Contains("'held'") && Contains("mutex 1 by rank 0"));
  CHECK_FALSE(held.valid());
  CHECK_THROWS_WITH(held.lock(0), Contains("destroyed"));
}
