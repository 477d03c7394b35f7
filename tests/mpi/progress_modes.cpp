// Wait modes switched at run time, the active-message barrier, and a waiting rank that
// must not starve a computing one. Each body runs under every GAEA_PROGRESS mode it is registered
// for (see tests/CMakeLists.txt).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <thread>
#include <vector>

#include "gaea/ga/global_array.hpp"
#include "gaea/progress/engine.hpp"
#include "test_support.hpp"

using gaea::progress::mode;
using gaea::test::rt;

namespace {
// A ring exchange that needs the peers' progress: gets and accumulates to the right neighbour.
void ring_round(gaea::global_array<double>& a, int iteration) {
  const int p = rt().size(), me = rt().rank();
  const std::int64_t n = 1024;
  const int right = (me + 1) % p;
  std::vector<double> mine(static_cast<std::size_t>(n), double(me + 1));
  a.acc(gaea::ga::patch({right * n}, {right * n + n - 1}), mine);
  a.sync();
  std::vector<double> got(static_cast<std::size_t>(n));
  a.get(gaea::ga::patch({right * n}, {right * n + n - 1}), got);
  const int left_of_right = me;  // the only rank accumulating into `right`'s block
  for (double v : got)
    REQUIRE(v == double(iteration) * (left_of_right + 1));
  a.sync();
}
}  // namespace

TEST_CASE("progress: wait modes switch at run time and restore at scope exit", "[progress]") {
  auto& e = rt().progress();
  const mode start = e.current_mode();
  const std::int64_t n = 1024;
  gaea::global_array<double> a("ring", {n * rt().size()});
  a.zero();
  int iteration = 0;
  for (mode m : {mode::spin, mode::adaptive, mode::adaptive_fixed, mode::interrupt, mode::automatic,
                 mode::off}) {
    for (bool dvfs : {false, true}) {
      gaea::progress::scoped_mode guard(e, m, dvfs);
      CHECK(e.current_mode() == m);
      CHECK(e.dvfs_enabled() == dvfs);
      ring_round(a, ++iteration);
    }
    CHECK(e.current_mode() == start);
  }
  CHECK(e.totals().mode_switches >= 1);
}

TEST_CASE("progress: the active-message barrier orders many rounds", "[progress][barrier]") {
  // Each rank writes its round number, barriers, and then must see every rank's write.
  const int p = rt().size(), me = rt().rank();
  gaea::global_array<std::int64_t> seen("barrier rounds", {p});
  seen.zero();
  std::vector<std::int64_t> all(static_cast<std::size_t>(p));
  for (std::int64_t round = 1; round <= 60; ++round) {
    if ((round + me) % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));
    const std::int64_t v = round;
    seen.put(gaea::ga::patch({me}, {me}), std::span(&v, 1));
    seen.fence();
    rt().barrier();
    seen.get(gaea::ga::patch({0}, {p - 1}), all);
    for (std::int64_t x : all)
      REQUIRE(x >= round);
    rt().barrier();
  }
}

TEST_CASE("progress: a wait in progress follows a mode switch (kept its first strategy)",
          "[progress][regression]") {
  auto& e = rt().progress();
  const mode start = e.current_mode();
  const mode other = start == mode::interrupt ? mode::adaptive : mode::interrupt;
  std::atomic<bool> released{false};
  const std::uint64_t before = e.totals().mode_switches;
  // Another thread switches the mode while this one waits, and releases it well after, so the
  // wait steps under the new mode before its predicate holds.
  std::thread switcher([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    e.set_mode(other, e.dvfs_enabled());
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    released.store(true);
    e.notify_waiters();
  });
  e.wait_until(
      rt().worker(), [&] { return released.load(); }, /*notified=*/true);
  switcher.join();
  // The progress thread counts the switch once, the waiting thread once more when its strategy
  // follows it (read before switching back, which the progress thread would count too).
  const std::uint64_t after = e.totals().mode_switches;
  e.set_mode(start, e.dvfs_enabled());
  CHECK(after - before >= 2u);
  rt().barrier();
}
