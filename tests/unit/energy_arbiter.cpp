// gaea::energy arbiter: the per-node rule between ranks, simulated as several attachments in
// one process (and one forked child for the crash paths), each with its own simulated actuator
// and throttle. A CPU is low only while every rank that may run on it wants it low; its throttle
// level is the lowest any of them asks; suppressed requests cost no transition; restore and
// leaving withdraw; a killed rank stops counting.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gaea/base/error.hpp"
#include "gaea/energy/actuator.hpp"
#include "gaea/energy/arbiter.hpp"
#include "gaea/energy/governor.hpp"
#include "gaea/energy/throttle.hpp"

using namespace gaea::energy;

namespace {

constexpr std::int64_t high = 2400000, low = 1200000;

// A key no other test or job uses.
std::string fresh_key() {
  static std::atomic<int> n{0};
  return "unit-" + std::to_string(::getpid()) + "-" + std::to_string(n++);
}

// One simulated rank: its attachment, its arbitrated actuator (calls and governor views) and
// throttle, on the CPUs of its mask.
struct sim_rank {
  std::shared_ptr<arbiter> arb;
  std::shared_ptr<actuator> dvfs, gov;
  std::unique_ptr<throttle> thr;

  sim_rank(const std::string& key, int me, int ranks, std::vector<int> cpus) {
    arbiter_config ac;
    ac.job_key = key;
    ac.local_rank = me;
    ac.local_ranks = ranks;
    ac.cpus = cpus;
    ac.install_signal_handlers = false;
    arb = attach_arbiter(ac);
    actuator_config cfg;
    cfg.kind = "simulated";
    cfg.cpus = cpus;
    cfg.simulated_high_khz = high;
    cfg.simulated_low_khz = low;
    cfg.simulated_cost_ns = 0;
    cfg.install_signal_handlers = false;
    std::shared_ptr<actuator> inner = make_actuator(cfg).act;
    dvfs = arbitrated(inner, arb, dvfs_source::calls);
    gov = arbitrated(inner, arb, dvfs_source::governor);
    throttle_config tc;
    tc.kind = "simulated";
    tc.cpus = std::move(cpus);
    tc.simulated_cost_ns = 0;
    tc.install_signal_handlers = false;
    thr = arbitrated(make_throttle(tc).thr, arb);
  }
};

bool table_exists(const std::string& key) {
  const std::string prefix = "gaea-arbiter-" + std::to_string(::getuid()) + "-" + key + "-";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/dev/shm", ec))
    if (e.path().filename().string().starts_with(prefix)) return true;
  return false;
}

}  // namespace

TEST_CASE("arbiter: a CPU goes low only while every rank that may run on it wants it low",
          "[energy][arbiter]") {
  const std::string key = fresh_key();
  // CPU 0: rank 0 only; CPU 1: all three; CPU 2: ranks 1 and 2.
  sim_rank r0(key, 0, 3, {0, 1}), r1(key, 1, 3, {1, 2}), r2(key, 2, 3, {1, 2});
  REQUIRE(r0.dvfs != nullptr);
  REQUIRE(r0.dvfs->set_low(1, true));
  REQUIRE(r1.dvfs->set_low(1, true));
  // Recorded, not applied: rank 2 still wants CPU 1 high, and nobody paid a transition.
  for (const sim_rank* r : {&r0, &r1, &r2})
    CHECK(r->dvfs->current_khz(1) == high);
  CHECK(r0.dvfs->transition_count() + r1.dvfs->transition_count() == 0);
  REQUIRE(r2.dvfs->set_low(1, true));
  for (const sim_rank* r : {&r0, &r1, &r2})
    CHECK(r->dvfs->current_khz(1) == low);
  CHECK(r2.dvfs->transition_count() == 1);  // charged to the rank whose request decided
  // A CPU only rank 0 runs on follows rank 0 alone.
  REQUIRE(r0.dvfs->set_low(0, true));
  CHECK(r0.dvfs->current_khz(0) == low);
  // Up as soon as one of them wants it high, written by that rank although rank 2 lowered it.
  REQUIRE(r1.dvfs->set_low(1, false));
  for (const sim_rank* r : {&r0, &r1, &r2})
    CHECK(r->dvfs->current_khz(1) == high);
  CHECK(r1.dvfs->transition_count() == 1);
  CHECK(r1.dvfs->transitions().back().from_khz == low);
  CHECK(r1.dvfs->transitions().back().to_khz == high);
  // The same request again: no write.
  REQUIRE(r0.dvfs->set_low(1, true));
  CHECK(r0.dvfs->transition_count() == 1);  // CPU 0 only
  // A CPU outside the rank's mask is refused, as by a plain actuator.
  CHECK_FALSE(r0.dvfs->set_low(2, true));
}

TEST_CASE("arbiter: a rank's restore raises only the CPUs it may run on", "[energy][arbiter]") {
  const std::string key = fresh_key();
  sim_rank r0(key, 0, 3, {0, 1}), r1(key, 1, 3, {1, 2}), r2(key, 2, 3, {1, 2});
  for (sim_rank* r : {&r0, &r1, &r2})
    for (int c : {0, 1, 2})
      r->dvfs->set_low(c, true);  // false outside the rank's mask
  CHECK(r0.dvfs->current_khz(0) == low);
  CHECK(r0.dvfs->current_khz(1) == low);
  CHECK(r1.dvfs->current_khz(2) == low);
  // Rank 0's end-of-call restore: its CPUs go up (it wants them high), CPU 2, which ranks 1 and
  // 2 still hold low and rank 0 never runs on, stays low.
  r0.dvfs->restore();
  CHECK(r0.dvfs->current_khz(0) == high);
  CHECK(r1.dvfs->current_khz(1) == high);
  CHECK(r1.dvfs->current_khz(2) == low);
  CHECK(r2.dvfs->current_khz(2) == low);
  // Rank 0 leaves: CPU 1 is then up to ranks 1 and 2 alone, decided at their next request.
  r0 = sim_rank(fresh_key(), 0, 2, {7});  // detaches rank 0 from `key`
  unlink_name(*r0.arb);                   // its new table will never see a second rank
  REQUIRE(r1.dvfs->set_low(1, true));
  CHECK(r1.dvfs->current_khz(1) == low);
  r1.dvfs->restore();
  r2.dvfs->restore();
  for (int c : {1, 2})
    CHECK(r2.dvfs->current_khz(c) == high);
}

TEST_CASE("arbiter: the throttle level is the least throttled any rank asks for",
          "[energy][arbiter]") {
  const std::string key = fresh_key();
  sim_rank r0(key, 0, 3, {0, 1}), r1(key, 1, 3, {1}), r2(key, 2, 3, {1});
  REQUIRE(r0.thr->set_level(1, 5));
  REQUIRE(r1.thr->set_level(1, 7));
  CHECK(r0.thr->level(1) == 0);  // rank 2 asks T0
  REQUIRE(r2.thr->set_level(1, 3));
  for (const sim_rank* r : {&r0, &r1, &r2})
    CHECK(r->thr->level(1) == 3);
  CHECK(r2.thr->transition_count() == 1);
  CHECK(r0.thr->transition_count() + r1.thr->transition_count() == 0);
  REQUIRE(r2.thr->set_level(1, 6));
  CHECK(r2.thr->level(1) == 5);
  // set_all covers only the rank's own CPUs: CPU 0 is rank 0's alone.
  REQUIRE(r0.thr->set_all(7));
  CHECK(r0.thr->level(0) == 7);
  CHECK(r0.thr->level(1) == 6);
  // Every rank's restore: back at T0.
  r0.thr->restore();
  CHECK(r0.thr->level(1) == 0);
  CHECK(r0.thr->level(0) == 0);
  r1.thr->restore();
  r2.thr->restore();
  for (const sim_rank* r : {&r0, &r1, &r2})
    CHECK(r->thr->level(1) == 0);
  // Levels are still checked.
  CHECK_THROWS_WITH(r0.thr->set_level(1, 8), Catch::Contains("0..7"));
}

TEST_CASE("arbiter: inside a rank the governor and the calls each ask, and either keeps it low",
          "[energy][arbiter]") {
  const std::string key = fresh_key();
  sim_rank r0(key, 0, 2, {0, 1}), r1(key, 1, 2, {1});
  // CPU 0 is rank 0's alone: low while its governor or its calls want it low.
  REQUIRE(r0.gov->set_low(0, true));
  REQUIRE(r0.dvfs->set_low(0, true));
  REQUIRE(r0.gov->set_low(0, false));
  CHECK(r0.dvfs->current_khz(0) == low);
  REQUIRE(r0.dvfs->set_low(0, false));
  CHECK(r0.dvfs->current_khz(0) == high);
  // The governor on CPU 1, which rank 1 wants high: the request is recorded, before_block says
  // the CPU did not go low, after_wake withdraws it without counting a raise.
  governor g(*r0.gov, {});
  g.thread_started(1);
  CHECK_FALSE(g.before_block(1, 1'000'000'000, 1'000'000'000));
  CHECK(r0.gov->current_khz(1) == high);
  REQUIRE(r1.dvfs->set_low(1, true));  // now both ranks want it low
  CHECK(r1.dvfs->current_khz(1) == low);
  CHECK(g.after_wake(1, 1'100'000'000));  // the withdrawal raised it
  CHECK(r1.dvfs->current_khz(1) == high);
}

TEST_CASE("arbiter: one rank per node has no table; the table goes with the last rank",
          "[energy][arbiter]") {
  arbiter_config one;
  one.job_key = fresh_key();
  one.local_ranks = 1;
  one.cpus = {0};
  CHECK(attach_arbiter(one) == nullptr);
  actuator_config cfg;
  cfg.kind = "simulated";
  cfg.cpus = {0};
  std::shared_ptr<actuator> inner = make_actuator(cfg).act;
  CHECK(arbitrated(inner, nullptr, dvfs_source::calls) == inner);

  const std::string key = fresh_key();
  {
    sim_rank r0(key, 0, 2, {0}), r1(key, 1, 2, {0});
    CHECK(table_exists(key));
    unlink_name(*r0.arb);  // what the runtime does once every rank attached
    CHECK_FALSE(table_exists(key));
    REQUIRE(r0.dvfs->set_low(0, true));  // the mapping still works
    REQUIRE(r1.dvfs->set_low(0, true));
    CHECK(r0.dvfs->current_khz(0) == low);
  }
  {
    sim_rank r0(key, 0, 2, {0}), r1(key, 1, 2, {0});  // a fresh table: nothing left over
    CHECK(r0.dvfs->current_khz(0) == high);
  }
  CHECK_FALSE(table_exists(key));  // unlinked by the last to leave
}

TEST_CASE("arbiter: bad configurations are errors naming the values", "[energy][arbiter]") {
  arbiter_config c;
  c.job_key = fresh_key();
  c.local_ranks = 2;
  c.local_rank = 2;
  c.install_signal_handlers = false;
  CHECK_THROWS_WITH(attach_arbiter(c), Catch::Contains("local rank 2 is outside 0..1"));
  c.local_rank = 0;
  c.cpus = {-1};
  CHECK_THROWS_WITH(attach_arbiter(c), Catch::Contains("CPU -1"));
  c.cpus = {0};
  c.job_key = "bad/key";
  CHECK_THROWS_WITH(attach_arbiter(c), Catch::Contains("job key"));
  c.job_key = fresh_key();
  auto a = attach_arbiter(c);
  CHECK_THROWS_WITH(attach_arbiter(c), Catch::Contains("local rank 0 is already attached"));
  c.local_ranks = 3;
  c.local_rank = 1;
  c.attach_timeout_ns = 100'000'000;
  CHECK_THROWS_WITH(attach_arbiter(c), Catch::Contains("local ranks"));
  unlink_name(*a);  // rank 1 never comes
}

namespace {

// Forks a child that attaches as local rank 1 on CPU 3 (wanting it high, as every rank does at
// first), tells the parent, and waits to be killed with `sig`.
pid_t child_holding_cpu3(const std::string& key, int sig) {
  int p[2];
  REQUIRE(::pipe(p) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(p[0]);
    arbiter_config ac;
    ac.job_key = key;
    ac.local_rank = 1;
    ac.local_ranks = 2;
    ac.cpus = {3};
    ac.install_signal_handlers = sig != SIGKILL;
    ::signal(SIGTERM, SIG_DFL);
    auto arb = attach_arbiter(ac);
    const char ok = 1;
    if (::write(p[1], &ok, 1) != 1) ::_exit(2);
    for (;;)
      ::pause();
  }
  ::close(p[1]);
  char ok = 0;
  REQUIRE(::read(p[0], &ok, 1) == 1);
  ::close(p[0]);
  return pid;
}

}  // namespace

TEST_CASE("arbiter: a rank killed by a fatal signal or SIGKILL stops holding CPUs",
          "[energy][arbiter]") {
  for (int sig : {SIGTERM, SIGKILL}) {
    CAPTURE(sig);
    const std::string key = fresh_key();
    sim_rank r0(key, 0, 2, {3});
    const pid_t child = child_holding_cpu3(key, sig);
    REQUIRE(r0.dvfs->set_low(3, true));
    CHECK(r0.dvfs->current_khz(3) == high);  // the child wants it high
    REQUIRE(::kill(child, sig) == 0);
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == sig);
    // SIGTERM: the handler withdrew the child's request; SIGKILL: the next overridden request
    // (at most one sweep per millisecond) finds its pid gone. Either way rank 0 decides alone.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    REQUIRE(r0.dvfs->set_low(3, true));
    CHECK(r0.dvfs->current_khz(3) == low);
    r0.dvfs->restore();
    CHECK(r0.dvfs->current_khz(3) == high);
  }
}
