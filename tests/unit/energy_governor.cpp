// gaea::energy governor with the simulated actuator and injected clocks: hysteresis, rate limit,
// and domains that go low only when every thread in them blocks.

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>
#include <vector>

#include "gaea/energy/actuator.hpp"
#include "gaea/energy/governor.hpp"

using namespace gaea::energy;

namespace {

std::unique_ptr<actuator> simulated(std::int64_t cost_ns, std::vector<int> cpus) {
  actuator_config cfg;
  cfg.kind = "simulated";
  cfg.cpus = std::move(cpus);
  cfg.simulated_high_khz = 2400000;
  cfg.simulated_low_khz = 1200000;
  cfg.simulated_cost_ns = cost_ns;
  return make_actuator(cfg).act;
}

constexpr std::int64_t ms = 1000000;

}  // namespace

TEST_CASE("governor: short sleeps skip, long sleeps lower, wakes raise, rate limit holds",
          "[energy][governor]") {
  auto act = simulated(1000, {0, 1, 2, 3});
  governor g(*act, {0, 0, 1, 1});
  CHECK(g.min_idle_ns() == 20000);  // 20 x 1 us
  CHECK(g.min_interval_ns() == 200000);
  g.thread_started(0);

  CHECK_FALSE(g.before_block(0, 1 * ms, 5000));  // 5 us < 20 us
  CHECK(g.skipped_short() == 1);
  CHECK(act->current_khz(0) == 2400000);
  CHECK_FALSE(g.after_wake(0, 1 * ms + 5000));
  CHECK(act->transition_count() == 0);

  CHECK(g.before_block(0, 2 * ms, 1 * ms));
  CHECK(act->current_khz(0) == 1200000);
  CHECK(g.after_wake(0, 3 * ms));
  CHECK(act->current_khz(0) == 2400000);
  CHECK(act->transition_count() == 2);

  // 100 us after the last lowering: within min_interval (200 us).
  CHECK_FALSE(g.before_block(0, 2 * ms + 100000, 1 * ms));
  CHECK(g.skipped_rate() == 1);
  CHECK(act->current_khz(0) == 2400000);
  CHECK_FALSE(g.after_wake(0, 2 * ms + 200000));
  // Past the interval it lowers again.
  CHECK(g.before_block(0, 4 * ms, 1 * ms));
  CHECK(g.after_wake(0, 5 * ms));
  CHECK(g.skipped_short() == 1);
  CHECK(g.skipped_rate() == 1);
  CHECK(act->transition_count() == 4);
}

TEST_CASE("governor: a domain goes low only when all its threads block", "[energy][governor]") {
  auto act = simulated(1000, {0, 1, 2, 3});
  governor g(*act, {0, 0, 1, 1});
  g.thread_started(2);
  g.thread_started(3);
  g.thread_started(0);

  CHECK_FALSE(g.before_block(2, 1 * ms, 1 * ms));  // CPU 3 still runs in domain 1
  CHECK(g.skipped_short() == 0);
  CHECK(act->transition_count() == 0);
  CHECK(g.before_block(3, 1 * ms, 1 * ms));
  CHECK(act->current_khz(3) == 1200000);  // lowered through the CPU that blocked last
  CHECK(act->current_khz(0) == 2400000);  // domain 0 untouched

  // Either thread waking raises the domain, through the CPU it was lowered on.
  CHECK(g.after_wake(2, 2 * ms));
  CHECK(act->current_khz(3) == 2400000);
  CHECK_FALSE(g.after_wake(3, 2 * ms));

  // A stopped thread no longer keeps its domain awake; counts never go below zero.
  g.thread_stopped(2);
  g.thread_stopped(2);
  CHECK(g.before_block(3, 5 * ms, 1 * ms));
  // A thread starting in a low domain raises it.
  g.thread_started(2);
  CHECK(act->current_khz(3) == 2400000);

  // CPUs outside the map are their own domain.
  auto wide = simulated(1000, {0, 9});
  governor h(*wide, {0});
  h.thread_started(0);
  CHECK(h.before_block(9, 1 * ms, 1 * ms));
  CHECK(wide->current_khz(9) == 1200000);
  CHECK(wide->current_khz(0) == 2400000);
  CHECK_FALSE(h.before_block(-1, 1 * ms, 1 * ms));
}

TEST_CASE("governor: derived and configured thresholds, inactive actuator", "[energy][governor]") {
  auto free_act = simulated(0, {0});
  governor unknown_cost(*free_act, {});
  CHECK(unknown_cost.min_idle_ns() == 100000);
  CHECK(unknown_cost.min_interval_ns() == 1000000);

  auto act = simulated(1000, {0});
  governor configured(*act, {}, governor_config{50000, 70000});
  CHECK(configured.min_idle_ns() == 50000);
  CHECK(configured.min_interval_ns() == 70000);
  CHECK_FALSE(configured.before_block(0, 1 * ms, 40000));
  CHECK(configured.skipped_short() == 1);

  actuator_config off;
  off.kind = "off";
  auto none = make_actuator(off).act;
  governor idle(*none, {});
  CHECK_FALSE(idle.before_block(0, 1 * ms, 1000 * ms));
  CHECK_FALSE(idle.after_wake(0, 2 * ms));
}

TEST_CASE("governor: concurrent block/wake cycles leave every domain high", "[energy][governor]") {
  auto act = simulated(0, {0, 1, 2, 3});
  governor g(*act, {0, 0, 1, 1}, governor_config{1, 1});
  const auto now = [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  std::vector<std::thread> threads;
  for (int cpu = 0; cpu < 4; ++cpu)
    threads.emplace_back([&, cpu] {
      g.thread_started(cpu);
      for (int i = 0; i < 2000; ++i) {
        g.before_block(cpu, now(), 1 * ms);
        g.after_wake(cpu, now());
      }
    });
  for (auto& t : threads)
    t.join();
  for (int cpu = 0; cpu < 4; ++cpu)
    CHECK(act->current_khz(cpu) == 2400000);
  CHECK(act->transition_count() % 2 == 0);  // every lowering was followed by its raise
}
