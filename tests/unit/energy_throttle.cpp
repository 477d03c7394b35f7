// gaea::energy throttle (clock modulation T0..T7): the simulated backend's levels, transitions
// and restore; the MSR backend against a fake /dev/cpu/N/msr (the 8 bytes written at 0x19A for
// every level, the original written back); make_throttle's choices and errors; and what the
// model charges for throttled CPU time (rank_usage).

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "energy_fake_tree.hpp"
#include "gaea/base/error.hpp"
#include "gaea/energy/actuator.hpp"
#include "gaea/energy/meter.hpp"
#include "gaea/energy/model.hpp"
#include "gaea/energy/throttle.hpp"

using namespace gaea::energy;
using energy_test::add_msr;
using energy_test::fake_root;
using energy_test::msr_bytes;
using energy_test::msr_value;

namespace {

throttle_config config_for(const fake_root& t, std::string kind, std::vector<int> cpus) {
  throttle_config cfg;
  cfg.kind = std::move(kind);
  cfg.root = t.root();
  cfg.cpus = std::move(cpus);
  cfg.install_signal_handlers = false;  // only the signal test wants them
  return cfg;
}

// The gaea::error message of fn() ("" when it did not throw).
template <class F>
std::string error_of(F&& fn) {
  try {
    fn();
  } catch (const gaea::error& e) {
    return e.what();
  }
  return "";
}

// Keeps the CPU busy until the process has used `ms` more milliseconds of CPU time (not wall
// time: the machine may be shared).
void burn_cpu_ms(int ms) {
  const auto cpu_ns = [] {
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
  };
  const std::int64_t end = cpu_ns() + std::int64_t{ms} * 1'000'000;
  while (cpu_ns() < end)
    burn_cpu(std::chrono::milliseconds(1));
}

std::int64_t sum(const level_times& t) {
  std::int64_t s = 0;
  for (std::int64_t v : t)
    s += v;
  return s;
}

}  // namespace

TEST_CASE("throttle levels: duty (8-j)/8, out-of-range levels name the value",
          "[energy][throttle]") {
  CHECK(throttle_levels == 8);
  CHECK(throttle_duty(0) == 1.0);
  CHECK(throttle_duty(4) == 0.5);
  CHECK(throttle_duty(5) == 3.0 / 8);
  CHECK(throttle_duty(7) == 1.0 / 8);
  const std::string e = error_of([] { throttle_duty(8); });
  CHECK(e.find("level 8") != std::string::npos);
  CHECK(e.find("0..7") != std::string::npos);
  CHECK(error_of([] { throttle_duty(-1); }).find("level -1") != std::string::npos);

  // mean_duty: the uniform duty that removes as many cycles as the time at each level.
  level_times t{};
  t[4] = 1000;
  CHECK(mean_duty(t, 1000) == 0.5);
  CHECK(mean_duty(t, 2000) == 0.75);  // half the CPU time unthrottled
  t[4] = 0;
  t[5] = 800;
  t[7] = 200;
  CHECK(mean_duty(t, 1000) == Approx(1 - (800 * 5.0 / 8 + 200 * 7.0 / 8) / 1000));
  CHECK(mean_duty(t, 0) == 1.0);
  t[7] = 1000000;  // more throttled time than CPU time (different clocks): clamped
  CHECK(mean_duty(t, 1000) == 1.0 / 8);
}

TEST_CASE("simulated throttle: levels, transitions logged with their cost, restore to T0",
          "[energy][throttle]") {
  fake_root t;
  auto cfg = config_for(t, "simulated", {0, 2});
  cfg.simulated_cost_ns = 200000;
  auto choice = make_throttle(cfg);
  INFO(choice.reason);
  REQUIRE(choice.thr);
  throttle& th = *choice.thr;
  CHECK(th.name() == "simulated");
  CHECK(th.active());
  CHECK_FALSE(th.hardware());
  CHECK(th.cpus() == std::vector<int>{0, 2});
  CHECK(choice.reason.find("simulated throttle on CPUs 0,2") != std::string::npos);
  CHECK(th.transition_cost_ns() == 200000);
  CHECK(th.level(0) == 0);
  CHECK(th.level(2) == 0);

  const auto t0 = std::chrono::steady_clock::now();
  REQUIRE(th.set_level(2, 5));
  CHECK(std::chrono::steady_clock::now() - t0 >= std::chrono::nanoseconds(200000));
  CHECK(th.level(2) == 5);
  CHECK(th.duty(2) == 3.0 / 8);
  CHECK(th.level(0) == 0);
  // Already there: true, and nothing is counted.
  REQUIRE(th.set_level(2, 5));
  CHECK(th.transition_count() == 1);
  REQUIRE(th.set_level(0, 7));
  REQUIRE(th.set_level(2, 0));
  CHECK_FALSE(th.set_level(1, 3));  // not managed
  CHECK(th.level(1) == 0);

  const auto log = th.transitions();
  REQUIRE(log.size() == 3);
  CHECK(th.transition_count() == 3);
  CHECK(log[0].cpu == 2);
  CHECK(log[0].from_level == 0);
  CHECK(log[0].to_level == 5);
  CHECK(log[1].cpu == 0);
  CHECK(log[1].to_level == 7);
  CHECK(log[2].from_level == 5);
  CHECK(log[2].to_level == 0);
  for (const auto& tr : log)
    CHECK(tr.cost_ns >= 200000);
  CHECK(log[0].t_ns <= log[1].t_ns);
  CHECK(log[1].t_ns <= log[2].t_ns);

  // set_all, then restore: every CPU back to T0, each change a transition.
  REQUIRE(th.set_all(4));
  CHECK(th.level(0) == 4);
  CHECK(th.level(2) == 4);
  CHECK(th.transition_count() == 5);
  th.restore();
  CHECK(th.level(0) == 0);
  CHECK(th.level(2) == 0);
  CHECK(th.transition_count() == 7);
  CHECK(th.transitions().back().to_level == 0);
  th.restore();  // idempotent
  CHECK(th.transition_count() == 7);
  REQUIRE(th.set_level(0, 1));  // still usable
  CHECK(th.level(0) == 1);
}

TEST_CASE("throttle: an out-of-range level is a gaea::error naming the value",
          "[energy][throttle]") {
  fake_root t;
  auto choice = make_throttle(config_for(t, "simulated", {0}));
  throttle& th = *choice.thr;
  std::string e = error_of([&] { th.set_level(0, 8); });
  CHECK(e.find("'simulated'") != std::string::npos);
  CHECK(e.find("level 8") != std::string::npos);
  CHECK(e.find("0..7") != std::string::npos);
  CHECK(error_of([&] { th.set_level(0, -1); }).find("level -1") != std::string::npos);
  CHECK(error_of([&] { th.set_all(9); }).find("set_all(level 9)") != std::string::npos);
  CHECK(th.level(0) == 0);
  CHECK(th.transition_count() == 0);
  // "none" validates too.
  auto off = make_throttle(config_for(t, "off", {0}));
  CHECK(error_of([&] { off.thr->set_level(0, 12); }).find("level 12") != std::string::npos);
}

TEST_CASE("simulated throttle: the transition log keeps the newest entries and counts all",
          "[energy][throttle]") {
  fake_root t;
  auto cfg = config_for(t, "simulated", {0});
  cfg.simulated_cost_ns = 0;
  cfg.transition_capacity = 3;
  auto th = make_throttle(cfg).thr;
  for (int i = 1; i <= 10; ++i)
    REQUIRE(th->set_level(0, i % 8));
  CHECK(th->transition_count() == 10);
  const auto log = th->transitions();
  REQUIRE(log.size() == 3);
  CHECK(log[0].to_level == 0);  // transitions 8, 9, 10 went to 0, 1, 2
  CHECK(log[1].to_level == 1);
  CHECK(log[2].to_level == 2);
}

TEST_CASE("throttle: process CPU time is counted at the level the CPUs were at",
          "[energy][throttle]") {
  fake_root t;
  auto cfg = config_for(t, "simulated", {0});
  cfg.simulated_cost_ns = 0;
  auto th = make_throttle(cfg).thr;
  burn_cpu_ms(30);
  REQUIRE(th->set_level(0, 4));
  burn_cpu_ms(60);
  const level_times by = th->cpu_ns_by_level();
  CHECK(by[0] >= 25'000'000);
  CHECK(by[4] >= 50'000'000);  // the open interval is included
  for (int j : {1, 2, 3, 5, 6, 7})
    CHECK(by[static_cast<std::size_t>(j)] == 0);
  // Two CPUs at different levels: each gets half of the CPU time.
  auto cfg2 = config_for(t, "simulated", {0, 1});
  cfg2.simulated_cost_ns = 0;
  auto two = make_throttle(cfg2).thr;
  REQUIRE(two->set_level(1, 7));
  burn_cpu_ms(40);
  const level_times split = two->cpu_ns_by_level();
  CHECK(split[7] > 15'000'000);
  CHECK(split[0] >= split[7]);
  CHECK(split[0] - split[7] < 5'000'000);
  // "none" counts nothing.
  CHECK(sum(make_throttle(config_for(t, "off", {0})).thr->cpu_ns_by_level()) == 0);
}

TEST_CASE("msr throttle: the 8 bytes at 0x19A for every level, original restored",
          "[energy][throttle]") {
  fake_root t;
  // Bit 0 and bits 8-9 set by someone else; modulation off (T0).
  add_msr(t, 0, 0x301);
  add_msr(t, 1, 0x0);
  const std::string untouched = msr_bytes(t, 0);
  auto choice = make_throttle(config_for(t, "auto", {0, 1}));
  INFO(choice.reason);
  REQUIRE(choice.thr);
  throttle& th = *choice.thr;
  CHECK(th.name() == "msr-clockmod");
  CHECK(th.active());
  CHECK(th.hardware());
  CHECK(choice.reason.find("msr-clockmod throttle on CPUs 0-1") != std::string::npos);
  CHECK(th.level(0) == 0);
  CHECK(msr_bytes(t, 0) == untouched);  // the probe wrote the same value back

  // Tj: enable (bit 4) and duty 8 - j in bits 3:1; bit 0 cleared, bits 63:5 kept.
  const std::uint64_t expected[8] = {0x300, 0x31E, 0x31C, 0x31A, 0x318, 0x316, 0x314, 0x312};
  for (int j = 7; j >= 0; --j) {
    INFO("level " << j);
    REQUIRE(th.set_level(0, j));
    CHECK(th.level(0) == j);
    CHECK(msr_value(t, 0) == expected[j]);
    // Only those 8 bytes change.
    std::string now = msr_bytes(t, 0);
    REQUIRE(now.size() == untouched.size());
    CHECK(now.substr(0, 0x19A) == untouched.substr(0, 0x19A));
    CHECK(now.substr(0x19A + 8) == untouched.substr(0x19A + 8));
  }
  CHECK(msr_value(t, 1) == 0);  // the other CPU was never touched
  REQUIRE(th.set_level(1, 5));
  CHECK(msr_value(t, 1) == 0x16);  // enable + duty 3/8
  CHECK(th.transition_count() == 9);
  CHECK(th.transition_cost_ns() >= 0);

  REQUIRE(th.set_level(0, 6));
  th.restore();
  CHECK(msr_value(t, 0) == 0x301);
  CHECK(msr_value(t, 1) == 0x0);
  CHECK(msr_bytes(t, 0) == untouched);
  CHECK(th.level(0) == 0);
  CHECK(th.level(1) == 0);
  CHECK(th.transition_count() == 12);  // 10 writes + 2 CPUs brought back by restore
  // Idempotent: nothing changed since, so a second restore writes nothing.
  add_msr(t, 0, 0x1234);
  th.restore();
  CHECK(msr_value(t, 0) == 0x1234);
  add_msr(t, 0, 0x301);

  // Usable after restore; the destructor restores too.
  REQUIRE(th.set_level(0, 3));
  CHECK(msr_value(t, 0) == 0x31A);
  choice.thr.reset();
  CHECK(msr_value(t, 0) == 0x301);
}

TEST_CASE("msr throttle: modulation found on is the CPU's level and what restore puts back",
          "[energy][throttle]") {
  fake_root t;
  add_msr(t, 0, 0x1A);  // enable + duty 5/8: T3
  auto th = make_throttle(config_for(t, "msr", {0})).thr;
  REQUIRE(th);
  CHECK(th->level(0) == 3);
  REQUIRE(th->set_level(0, 0));
  CHECK(msr_value(t, 0) == 0x0);
  th->restore();
  CHECK(msr_value(t, 0) == 0x1A);
  CHECK(th->level(0) == 3);
}

TEST_CASE("make_throttle: without MSR access auto and msr give none, naming the path",
          "[energy][throttle]") {
  fake_root t;
  for (const char* kind : {"auto", "msr"}) {
    const auto choice = make_throttle(config_for(t, kind, {0, 1}));
    INFO(choice.reason);
    REQUIRE(choice.thr);
    CHECK(choice.thr->name() == "none");
    CHECK_FALSE(choice.thr->active());
    CHECK_FALSE(choice.thr->hardware());
    CHECK(choice.thr->cpus().empty());
    CHECK_FALSE(choice.thr->set_level(0, 5));
    CHECK_FALSE(choice.thr->set_all(5));
    CHECK(choice.thr->level(0) == 0);
    CHECK(choice.thr->transition_count() == 0);
    CHECK(choice.reason.find("no MSR access (" + t.at("/dev/cpu/0/msr").string()) !=
          std::string::npos);
    CHECK(choice.reason.find("no throttling") != std::string::npos);
  }
  CHECK(make_throttle(config_for(t, "msr", {0})).reason.find("GAEA_THROTTLE=msr: ") == 0);
  // auto never picks the simulated backend: that one is chosen explicitly.
  CHECK(make_throttle(config_for(t, "auto", {0})).thr->name() == "none");
  CHECK(make_throttle(config_for(t, "off", {0})).reason.find("GAEA_THROTTLE=off") == 0);
  CHECK(make_throttle(config_for(t, "auto", {})).thr->name() == "none");
  // One CPU without a writable register is enough to refuse: no half-throttled set.
  add_msr(t, 0, 0);
  const auto half = make_throttle(config_for(t, "auto", {0, 1}));
  CHECK(half.thr->name() == "none");
  CHECK(half.reason.find("/dev/cpu/1/msr") != std::string::npos);
}

TEST_CASE("an unknown GAEA_THROTTLE kind is a gaea::error naming it", "[energy][throttle]") {
  fake_root t;
  std::string e = error_of([&] { make_throttle(config_for(t, "turbo", {0})); });
  CHECK(e.find("GAEA_THROTTLE='turbo'") != std::string::npos);
  CHECK(e.find("auto|msr|simulated|off") != std::string::npos);

  ::setenv("GAEA_THROTTLE", "cpufreq", 1);
  e = error_of([] { throttle_kind_from_env(); });
  CHECK(e.find("GAEA_THROTTLE='cpufreq'") != std::string::npos);
  ::setenv("GAEA_THROTTLE", "simulated", 1);
  CHECK(throttle_kind_from_env() == "simulated");
  ::unsetenv("GAEA_THROTTLE");
  CHECK(throttle_kind_from_env() == "auto");
}

TEST_CASE("a fatal signal restores what the msr throttle changed", "[energy][throttle]") {
  fake_root t;
  add_msr(t, 0, 0x301);
  std::cout.flush();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::signal(SIGTERM, SIG_DFL);  // die of the signal, as a real process would
    auto cfg = config_for(t, "msr", {0});
    cfg.install_signal_handlers = true;
    auto choice = make_throttle(cfg);
    if (!choice.thr || !choice.thr->set_level(0, 5)) _exit(2);
    if (msr_value(t, 0) != 0x316) _exit(4);  // enable + duty 3/8
    ::raise(SIGTERM);
    _exit(3);  // not reached
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  INFO("child status " << status);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(msr_value(t, 0) == 0x301);
}

TEST_CASE("rank usage: a 50% duty charges half the dynamic power, not the cube of it",
          "[energy][throttle][model]") {
  fake_root t;
  model_params p;  // 10 W dynamic at f_max
  auto thr_cfg = config_for(t, "simulated", {0});
  thr_cfg.simulated_cost_ns = 0;
  auto th = make_throttle(thr_cfg).thr;
  actuator_config no_dvfs;
  no_dvfs.kind = "off";
  const auto dvfs = make_actuator(no_dvfs).act;
  REQUIRE(th->set_level(0, 4));  // 50% duty
  burn_cpu_ms(80);
  const level_times by = th->cpu_ns_by_level();
  const double cpu_s = static_cast<double>(sum(by)) * 1e-9;
  REQUIRE(cpu_s > 0.07);
  const usage_snapshot u = rank_usage(p, 0.0, cpu_s, 0.0, *dvfs, *th, 0);
  CHECK(u.throttle_transitions == 1);
  CHECK(u.transitions == 0);
  // Dynamic energy only (wall 0): P_dyn * cpu * duty. Converting the duty into a frequency and
  // cubing it (the old runtime) would charge 1/8 instead of 1/2.
  const double dyn = model_energy_j(p, 0.0, u.shares);
  CHECK(dyn / (p.p_dyn_w * cpu_s) == Approx(0.5).margin(0.01));
  // The throttle transition is charged at throttle_transition_j.
  CHECK(model_energy_j(p, 0.0, u.shares, u.transitions, u.throttle_transitions) ==
        Approx(dyn + p.throttle_transition_j).epsilon(1e-12));
  // CPU time from before the throttle existed is unthrottled: twice the CPU time, duty 3/4.
  const usage_snapshot longer = rank_usage(p, 0.0, 2 * cpu_s, 0.0, *dvfs, *th, 0);
  CHECK(model_energy_j(p, 0.0, longer.shares) / (p.p_dyn_w * 2 * cpu_s) ==
        Approx(0.75).margin(0.01));
}

TEST_CASE("rank usage: duty and DVFS frequency combine, (f/f_max)^3 times the duty",
          "[energy][throttle][model]") {
  fake_root t;
  model_params p;  // f_max 2.4 GHz
  actuator_config ac;
  ac.kind = "simulated";
  ac.root = t.root();
  ac.cpus = {0};
  ac.simulated_high_khz = 2400000;
  ac.simulated_low_khz = 1200000;
  ac.simulated_cost_ns = 0;
  ac.install_signal_handlers = false;
  const auto dvfs = make_actuator(ac).act;
  REQUIRE(dvfs->set_low(0, true));
  auto thr_cfg = config_for(t, "simulated", {0});
  thr_cfg.simulated_cost_ns = 0;
  auto th = make_throttle(thr_cfg).thr;
  REQUIRE(th->set_level(0, 6));  // duty 1/4
  burn_cpu_ms(60);
  const double cpu_s = static_cast<double>(sum(th->cpu_ns_by_level())) * 1e-9;
  // All of it at the low frequency: half of f_max, so 1/8 of P_dyn, times the duty 1/4.
  const usage_snapshot u = rank_usage(p, 1.0, cpu_s, cpu_s, *dvfs, *th, 0);
  REQUIRE(u.shares.size() == 2);
  CHECK(u.shares[1].khz == 1200000);
  CHECK(u.transitions == 1);
  CHECK(u.throttle_transitions == 1);
  const double dyn = model_energy_j(p, 0.0, u.shares);
  CHECK(dyn / (p.p_dyn_w * cpu_s) == Approx(0.125 * 0.25).margin(0.002));
  // Static and non-CPU dynamic power are untouched by either.
  CHECK(model_energy_j(p, 1.0, u.shares) - dyn ==
        Approx(p.p_static_w + p.p_dyn_other_w).epsilon(1e-12));
}
