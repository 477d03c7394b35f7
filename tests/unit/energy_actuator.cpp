// gaea::energy actuators against fake cpufreq / msr trees: what is written, what is restored,
// and how make_actuator falls back when nothing can be written.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "energy_fake_tree.hpp"
#include "gaea/base/error.hpp"
#include "gaea/energy/actuator.hpp"

using namespace gaea::energy;
using energy_test::add_cpufreq;
using energy_test::add_msr;
using energy_test::cpufreq_files;
using energy_test::cpufreq_path;
using energy_test::fake_root;
using energy_test::msr_value;

namespace {

actuator_config config_for(const fake_root& t, std::string kind, std::vector<int> cpus) {
  actuator_config cfg;
  cfg.kind = std::move(kind);
  cfg.root = t.root();
  cfg.cpus = std::move(cpus);
  cfg.install_signal_handlers = false;  // only the signal test wants them
  return cfg;
}

cpufreq_files ondemand_files() {
  cpufreq_files f;
  f.governor = "ondemand";
  f.setspeed = "<unsupported>";
  return f;
}

cpufreq_files intel_pstate_files() {
  cpufreq_files f;
  f.governor = "powersave";
  f.available_governors = "performance powersave";
  f.setspeed = "";
  f.available_frequencies = "";
  f.cpuinfo_max = 3400000;
  f.cpuinfo_min = 800000;
  f.scaling_min = 1000000;  // above the lowest: lowering must move the floor first
  f.scaling_max = 3000000;
  return f;
}

// Before fork(): the child must not print the parent's buffered output a second time.
void flush_output() {
  std::cout.flush();
  std::fflush(nullptr);
}

}  // namespace

TEST_CASE("cpufreq userspace: setspeed goes low and back, restore puts the originals back",
          "[energy][actuator]") {
  fake_root t;
  add_cpufreq(t, 0, {});
  add_cpufreq(t, 1, {});
  auto choice = make_actuator(config_for(t, "auto", {0, 1}));
  INFO(choice.reason);
  REQUIRE(choice.act);
  actuator& a = *choice.act;
  CHECK(a.name() == "cpufreq-userspace");
  CHECK(a.active());
  CHECK(a.hardware());
  CHECK(choice.reason.find("cpufreq-userspace on CPUs 0-1") != std::string::npos);
  CHECK(a.high_khz(0) == 2400000);
  CHECK(a.low_khz(0) == 800000);
  CHECK(a.current_khz(0) == 2000000);
  CHECK(a.high_khz(7) == 0);
  CHECK_FALSE(a.set_low(7, true));  // not one of cfg.cpus

  REQUIRE(a.set_low(0, true));
  CHECK(t.line(cpufreq_path(0, "scaling_setspeed")) == "800000");
  CHECK(t.line(cpufreq_path(1, "scaling_setspeed")) == "2000000");
  CHECK(a.current_khz(0) == 800000);
  REQUIRE(a.set_low(0, true));  // already low: no write, no transition
  REQUIRE(a.set_low(0, false));
  CHECK(t.line(cpufreq_path(0, "scaling_setspeed")) == "2400000");
  REQUIRE(a.set_low(1, true));
  CHECK(t.line(cpufreq_path(1, "scaling_setspeed")) == "800000");

  const auto log = a.transitions();
  REQUIRE(log.size() == 3);
  CHECK(a.transition_count() == 3);
  CHECK(log[0].cpu == 0);
  CHECK(log[0].from_khz == 2000000);
  CHECK(log[0].to_khz == 800000);
  CHECK(log[1].from_khz == 800000);
  CHECK(log[1].to_khz == 2400000);
  CHECK(log[2].cpu == 1);
  CHECK(log[1].t_ns >= log[0].t_ns);
  for (const auto& tr : log)
    CHECK(tr.cost_ns >= 0);
  // The cost estimate is at least cpuinfo_transition_latency (10 us in the tree).
  CHECK(a.transition_cost_ns() >= 10000);

  a.restore();
  CHECK(t.line(cpufreq_path(0, "scaling_setspeed")) == "2000000");
  CHECK(t.line(cpufreq_path(1, "scaling_setspeed")) == "2000000");
  CHECK(t.line(cpufreq_path(0, "scaling_governor")) == "userspace");
  CHECK(a.current_khz(0) == 2000000);
  // Idempotent: nothing changed since, so a second restore writes nothing.
  t.write(cpufreq_path(0, "scaling_setspeed"), "1234");
  a.restore();
  CHECK(t.line(cpufreq_path(0, "scaling_setspeed")) == "1234");
}

TEST_CASE("cpufreq userspace: an ondemand governor is switched on first use and switched back",
          "[energy][actuator]") {
  fake_root t;
  add_cpufreq(t, 0, ondemand_files());
  auto choice = make_actuator(config_for(t, "cpufreq", {0}));
  INFO(choice.reason);
  REQUIRE(choice.act);
  CHECK(choice.act->name() == "cpufreq-userspace");
  CHECK(choice.reason.find("'ondemand'") != std::string::npos);
  CHECK(t.line(cpufreq_path(0, "scaling_governor")) == "ondemand");  // nothing changed yet

  REQUIRE(choice.act->set_low(0, true));
  CHECK(t.line(cpufreq_path(0, "scaling_governor")) == "userspace");
  CHECK(t.line(cpufreq_path(0, "scaling_setspeed")) == "800000");
  choice.act->restore();
  CHECK(t.line(cpufreq_path(0, "scaling_governor")) == "ondemand");

  // After a restore the actuator still works: it switches the governor again.
  REQUIRE(choice.act->set_low(0, true));
  CHECK(t.line(cpufreq_path(0, "scaling_governor")) == "userspace");
  choice.act.reset();  // the destructor restores too
  CHECK(t.line(cpufreq_path(0, "scaling_governor")) == "ondemand");
}

TEST_CASE("cpufreq minmax: intel_pstate-like tree lowers scaling_max_freq and puts it back",
          "[energy][actuator]") {
  fake_root t;
  add_cpufreq(t, 0, intel_pstate_files());
  auto choice = make_actuator(config_for(t, "auto", {0}));
  INFO(choice.reason);
  REQUIRE(choice.act);
  actuator& a = *choice.act;
  CHECK(a.name() == "cpufreq-minmax");
  CHECK(a.high_khz(0) == 3000000);  // the original scaling_max_freq
  CHECK(a.low_khz(0) == 800000);    // cpuinfo_min_freq

  REQUIRE(a.set_low(0, true));
  CHECK(t.line(cpufreq_path(0, "scaling_min_freq")) == "800000");  // floor moved first
  CHECK(t.line(cpufreq_path(0, "scaling_max_freq")) == "800000");
  REQUIRE(a.set_low(0, false));
  CHECK(t.line(cpufreq_path(0, "scaling_max_freq")) == "3000000");
  CHECK(t.line(cpufreq_path(0, "scaling_min_freq")) == "1000000");
  REQUIRE(a.transitions().size() == 2);
  CHECK(a.transitions()[0].to_khz == 800000);
  CHECK(a.transitions()[1].to_khz == 3000000);

  REQUIRE(a.set_low(0, true));
  a.restore();
  CHECK(t.line(cpufreq_path(0, "scaling_max_freq")) == "3000000");
  CHECK(t.line(cpufreq_path(0, "scaling_min_freq")) == "1000000");
  CHECK(t.line(cpufreq_path(0, "scaling_governor")) == "powersave");
}

TEST_CASE("cpufreq files that cannot be written fall back to none, naming the path",
          "[energy][actuator]") {
  fake_root t;
  cpufreq_files f;
  f.setspeed = "";
  add_cpufreq(t, 0, f);
  // The tests run as root, and root ignores permission bits (chmod 0444 would still be
  // writable), so make the targets unwritable for anyone: scaling_setspeed is a directory
  // (open(O_WRONLY) fails with EISDIR) and scaling_max_freq a dangling symlink into a missing
  // directory (ENOENT, and no O_CREAT).
  std::filesystem::create_directories(t.at(cpufreq_path(0, "scaling_setspeed")));
  std::filesystem::remove(t.at(cpufreq_path(0, "scaling_max_freq")));
  std::filesystem::create_symlink(t.at("/missing/scaling_max_freq"),
                                  t.at(cpufreq_path(0, "scaling_max_freq")));

  for (const char* kind : {"auto", "cpufreq"}) {
    actuator_choice choice;
    REQUIRE_NOTHROW(choice = make_actuator(config_for(t, kind, {0})));
    INFO(choice.reason);
    REQUIRE(choice.act);
    CHECK(choice.act->name() == "none");
    CHECK_FALSE(choice.act->active());
    CHECK(choice.reason.find(t.at(cpufreq_path(0, "scaling_setspeed")).string()) !=
          std::string::npos);
    CHECK(choice.reason.find("sleep-only, no DVFS") != std::string::npos);
  }
  CHECK(t.line(cpufreq_path(0, "scaling_governor")) == "userspace");
}

TEST_CASE("nothing under the root: none, sleep-only", "[energy][actuator]") {
  fake_root t;
  for (const char* kind : {"auto", "cpufreq", "msr"}) {
    const auto choice = make_actuator(config_for(t, kind, {0, 1}));
    INFO(choice.reason);
    REQUIRE(choice.act);
    CHECK(choice.act->name() == "none");
    CHECK_FALSE(choice.act->active());
    CHECK_FALSE(choice.act->set_low(0, true));
    CHECK(choice.act->high_khz(0) == 0);
    CHECK(choice.act->low_khz(0) == 0);
    CHECK(choice.act->transition_count() == 0);
    CHECK(choice.reason.find("sleep-only, no DVFS") != std::string::npos);
  }
  const auto a = make_actuator(config_for(t, "auto", {0}));
  CHECK(a.reason.find("cpu0: scaling_governor missing") != std::string::npos);
  CHECK(make_actuator(config_for(t, "off", {0})).act->name() == "none");
  CHECK(make_actuator(config_for(t, "auto", {})).act->name() == "none");
}

TEST_CASE("an unknown actuator kind is an error naming GAEA_DVFS", "[energy][actuator]") {
  fake_root t;
  try {
    make_actuator(config_for(t, "turbo", {0}));
    FAIL("no exception");
  } catch (const gaea::error& e) {
    const std::string what = e.what();
    CHECK(what.find("GAEA_DVFS") != std::string::npos);
    CHECK(what.find("auto|cpufreq|geopm|msr|simulated|off") != std::string::npos);
  }
}

TEST_CASE("a fatal signal restores what the actuator changed", "[energy][actuator]") {
  fake_root t;
  add_cpufreq(t, 0, {});
  add_cpufreq(t, 1, ondemand_files());
  flush_output();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // Child: Catch2 installs its own SIGTERM handler around every test case; start from the
    // default disposition so that the child dies of the signal, as a real process would.
    ::signal(SIGTERM, SIG_DFL);
    auto cfg = config_for(t, "cpufreq", {0, 1});
    cfg.install_signal_handlers = true;
    auto choice = make_actuator(cfg);
    if (!choice.act || !choice.act->set_low(0, true) || !choice.act->set_low(1, true)) _exit(2);
    if (t.line(cpufreq_path(0, "scaling_setspeed")) != "800000") _exit(4);
    if (t.line(cpufreq_path(1, "scaling_governor")) != "userspace") _exit(5);
    ::raise(SIGTERM);
    _exit(3);  // not reached: the handler restores, then re-raises with the default action
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  INFO("child status " << status);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(t.line(cpufreq_path(0, "scaling_setspeed")) == "2000000");
  CHECK(t.line(cpufreq_path(0, "scaling_governor")) == "userspace");
  CHECK(t.line(cpufreq_path(1, "scaling_governor")) == "ondemand");
}

TEST_CASE("exit() restores what a live actuator changed", "[energy][actuator]") {
  fake_root t;
  add_cpufreq(t, 0, ondemand_files());
  flush_output();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // The actuator is never destroyed (exit() does not unwind): only the atexit handler runs.
    static auto* choice = new actuator_choice(make_actuator(config_for(t, "cpufreq", {0})));
    if (!choice->act || !choice->act->set_low(0, true)) _exit(2);
    if (t.line(cpufreq_path(0, "scaling_governor")) != "userspace") _exit(4);
    std::exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(t.line(cpufreq_path(0, "scaling_governor")) == "ondemand");
}

TEST_CASE("DVFS leaves IA32_CLOCK_MODULATION to the throttle: msr and auto give none",
          "[energy][actuator]") {
  fake_root t;
  add_msr(t, 0, 0x301);
  for (const char* kind : {"auto", "msr"}) {
    const auto choice = make_actuator(config_for(t, kind, {0}));
    INFO(choice.reason);
    REQUIRE(choice.act);
    CHECK(choice.act->name() == "none");
    CHECK_FALSE(choice.act->set_low(0, true));
    CHECK(choice.reason.find("sleep-only, no DVFS") != std::string::npos);
  }
  const auto msr = make_actuator(config_for(t, "msr", {0}));
  CHECK(msr.reason.find("GAEA_THROTTLE=msr") != std::string::npos);
  CHECK(msr_value(t, 0) == 0x301);  // never written
}

TEST_CASE("simulated: transitions are logged with their cost and take at least that long",
          "[energy][actuator]") {
  fake_root t;
  auto cfg = config_for(t, "simulated", {0, 1});
  cfg.simulated_high_khz = 3000000;
  cfg.simulated_low_khz = 1000000;
  cfg.simulated_cost_ns = 200000;
  auto choice = make_actuator(cfg);
  REQUIRE(choice.act);
  actuator& a = *choice.act;
  CHECK(a.name() == "simulated");
  CHECK(a.active());
  CHECK_FALSE(a.hardware());
  CHECK(a.transition_cost_ns() == 200000);
  const auto t0 = std::chrono::steady_clock::now();
  REQUIRE(a.set_low(1, true));
  const auto took = std::chrono::steady_clock::now() - t0;
  CHECK(took >= std::chrono::nanoseconds(200000));
  CHECK(a.current_khz(1) == 1000000);
  CHECK_FALSE(a.set_low(5, true));
  const auto log = a.transitions();
  REQUIRE(log.size() == 1);
  CHECK(log[0].cpu == 1);
  CHECK(log[0].from_khz == 3000000);
  CHECK(log[0].to_khz == 1000000);
  CHECK(log[0].cost_ns >= 200000);
  a.restore();
  CHECK(a.current_khz(1) == 3000000);

  // Without a configured range: cpufreq's cpuinfo when readable, else 2.4 / 1.2 GHz.
  add_cpufreq(t, 0, intel_pstate_files());
  auto from_tree = make_actuator(config_for(t, "simulated", {0}));
  CHECK(from_tree.act->high_khz(0) == 3400000);
  CHECK(from_tree.act->low_khz(0) == 800000);
  fake_root empty;
  auto defaults = make_actuator(config_for(empty, "simulated", {0}));
  CHECK(defaults.act->high_khz(0) == 2400000);
  CHECK(defaults.act->low_khz(0) == 1200000);
}

TEST_CASE("the transition log keeps the newest entries and counts all", "[energy][actuator]") {
  fake_root t;
  auto cfg = config_for(t, "simulated", {0});
  cfg.simulated_cost_ns = 0;
  cfg.transition_capacity = 3;
  auto a = make_actuator(cfg).act;
  for (int i = 0; i < 10; ++i)
    REQUIRE(a->set_low(0, i % 2 == 0));
  CHECK(a->transition_count() == 10);
  const auto log = a->transitions();
  REQUIRE(log.size() == 3);
  // Transitions 7, 8, 9 (0-based): 7 raises, 8 lowers, 9 raises.
  CHECK(log[0].to_khz == 2400000);
  CHECK(log[1].to_khz == 1200000);
  CHECK(log[2].to_khz == 2400000);
  CHECK(log[0].t_ns <= log[1].t_ns);
  CHECK(log[1].t_ns <= log[2].t_ns);
}
