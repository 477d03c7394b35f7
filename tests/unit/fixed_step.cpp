// Mode adaptive_fixed: the fixed-step sleep schedule of [AdaptivePolling Fig. 3], its settings,
// and the strategy that sleeps what the schedule says.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "gaea/base/clock.hpp"
#include "gaea/base/env.hpp"
#include "gaea/base/error.hpp"
#include "gaea/progress/detail/wait_strategy.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/progress/fixed_step.hpp"
#include "gaea/progress/settings.hpp"
#include "gaea/progress/telemetry.hpp"

using gaea::progress::fixed_step_params;
using gaea::progress::fixed_step_schedule;

namespace {
fixed_step_params params(std::int64_t min_ns, std::int64_t max_ns, std::int64_t step_ns) {
  fixed_step_params p;
  p.min_ns = min_ns;
  p.max_ns = max_ns;
  p.step_ns = step_ns;
  return p;
}

std::vector<std::int64_t> idle_sleeps(fixed_step_schedule& s, int n) {
  std::vector<std::int64_t> out;
  for (int i = 0; i < n; ++i)
    out.push_back(s.idle());
  return out;
}

// Sets an environment variable for the scope.
class scoped_env {
 public:
  scoped_env(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~scoped_env() { unsetenv(name_); }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  const char* name_;
};
}  // namespace

TEST_CASE("adaptive_fixed: the defaults are the published d_min 0, d_max 1000 ns, step 1 ns",
          "[adaptive_fixed]") {
  const fixed_step_params p;
  CHECK(p.min_ns == 0);
  CHECK(p.max_ns == 1000);
  CHECK(p.step_ns == 1);
  fixed_step_schedule s(p);
  // The published loop: 0, 1, 2, ... reaching d_max after d_max / step idle probes.
  const std::vector<std::int64_t> first = idle_sleeps(s, 1003);
  for (std::size_t i = 0; i <= 1000; ++i)
    REQUIRE(first[i] == static_cast<std::int64_t>(i));
  CHECK(first[1001] == 1000);
  CHECK(first[1002] == 1000);
}

TEST_CASE("adaptive_fixed: the sleep grows by the step and stops at d_max", "[adaptive_fixed]") {
  fixed_step_schedule s(params(500, 2000, 400));
  CHECK(idle_sleeps(s, 7) == std::vector<std::int64_t>{500, 900, 1300, 1700, 2000, 2000, 2000});
  // A step larger than the whole range goes straight to d_max.
  fixed_step_schedule big(params(10, 20, 1000));
  CHECK(idle_sleeps(big, 3) == std::vector<std::int64_t>{10, 20, 20});
}

TEST_CASE("adaptive_fixed: an arrival resets the sleep to d_min", "[adaptive_fixed]") {
  fixed_step_schedule s(params(100, 1000, 300));
  idle_sleeps(s, 10);
  CHECK(s.next_ns() == 1000);
  s.arrival();
  CHECK(s.next_ns() == 100);
  CHECK(idle_sleeps(s, 3) == std::vector<std::int64_t>{100, 400, 700});
}

TEST_CASE("adaptive_fixed: invalid parameters name the variable and its value",
          "[adaptive_fixed][errors]") {
  CHECK_THROWS_WITH(params(-1, 1000, 1).validate(),
                    Catch::Matchers::Contains("GAEA_ADAPTIVE_FIXED_MIN_NS=-1"));
  CHECK_THROWS_WITH(params(0, 1000, 0).validate(),
                    Catch::Matchers::Contains("GAEA_ADAPTIVE_FIXED_STEP_NS=0"));
  CHECK_THROWS_WITH(params(5000, 1000, 1).validate(),
                    Catch::Matchers::Contains("GAEA_ADAPTIVE_FIXED_MAX_NS=1000 is below "
                                              "GAEA_ADAPTIVE_FIXED_MIN_NS=5000"));
  CHECK_THROWS_WITH(params(0, 2'000'000'000, 1).validate(),
                    Catch::Matchers::Contains("GAEA_ADAPTIVE_FIXED_MAX_NS=2000000000"));
  CHECK_NOTHROW(params(0, 0, 1).validate());
}

TEST_CASE("adaptive_fixed: the settings are read from the environment and checked",
          "[adaptive_fixed][errors]") {
  {
    scoped_env a("GAEA_ADAPTIVE_FIXED_MIN_NS", "200");
    scoped_env b("GAEA_ADAPTIVE_FIXED_MAX_NS", "50000");
    scoped_env c("GAEA_ADAPTIVE_FIXED_STEP_NS", "100");
    const fixed_step_params p = fixed_step_params::from_env();
    CHECK(p.min_ns == 200);
    CHECK(p.max_ns == 50000);
    CHECK(p.step_ns == 100);
  }
  CHECK(fixed_step_params::from_env().max_ns == fixed_step_params{}.max_ns);  // unset: defaults
  {
    scoped_env a("GAEA_ADAPTIVE_FIXED_STEP_NS", "fast");
    CHECK_THROWS_WITH(fixed_step_params::from_env(),
                      Catch::Matchers::Contains("GAEA_ADAPTIVE_FIXED_STEP_NS='fast'"));
  }
  {
    scoped_env a("GAEA_ADAPTIVE_FIXED_MIN_NS", "3000");
    CHECK_THROWS_WITH(fixed_step_params::from_env(),
                      Catch::Matchers::Contains("GAEA_ADAPTIVE_FIXED_MIN_NS=3000"));
  }
  {
    scoped_env a("GAEA_PROGRESS", "adaptive_fixed");
    CHECK(gaea::progress::mode_from_env() == gaea::progress::mode::adaptive_fixed);
  }
}

TEST_CASE("adaptive_fixed: the strategy sleeps the schedule's d after idle steps only",
          "[adaptive_fixed][waiting]") {
  using namespace gaea::progress;
  thread_telemetry tel(1, 16);
  detail::waiter w(nullptr, tel, nullptr);
  detail::fixed_step_strategy s(w, params(0, 200000, 100000));
  s.begin_wait(8, transfer_kind::other);
  CHECK(s.schedule().next_ns() == 0);
  s.after_step(0);  // d = 0: a spin step, no sleep
  telemetry_totals t0;
  tel.add_to(t0, gaea::monotonic_ns());
  CHECK(t0.wakeups == 0);
  CHECK(s.schedule().next_ns() == 100000);
  const std::int64_t before = gaea::monotonic_ns();
  s.after_step(0);  // sleeps 100 us
  s.after_step(0);  // sleeps 200 us (d_max)
  s.after_step(0);  // 200 us again
  const std::int64_t slept = gaea::monotonic_ns() - before;
  CHECK(slept >= 500000);
  telemetry_totals t1;
  tel.add_to(t1, gaea::monotonic_ns());
  CHECK(t1.wakeups == 3);
  CHECK(s.schedule().next_ns() == 200000);
  s.after_step(1);  // traffic
  CHECK(s.schedule().next_ns() == 0);
  s.end_wait();
}
