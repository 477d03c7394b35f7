// Waiting primitives that need no runtime: the blocker's micro-sleep, the waiter's DVFS.
#include <catch2/catch.hpp>

#include <sched.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "gaea/energy/actuator.hpp"
#include "gaea/energy/governor.hpp"
#include "gaea/progress/detail/blocker.hpp"
#include "gaea/progress/detail/wait_strategy.hpp"
#include "gaea/progress/telemetry.hpp"

using gaea::progress::detail::blocker;

TEST_CASE("blocker: a micro-sleep ends when the thread is signalled (was deaf to wake-ups)",
          "[waiting][regression]") {
  // A progress thread micro-sleeping when the main thread posts a deferred reply used to keep
  // the reply until the sleep ended; the sleep asked for here is far longer than the test's
  // timeout, so only the signal can end it.
  blocker b(nullptr);
  std::thread signaller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    b.signal();
  });
  const blocker::outcome o = b.sleep(std::int64_t{600} * 1000000000);
  signaller.join();
  CHECK(o == blocker::outcome::signalled);
}

TEST_CASE("blocker: a signal sent before the sleep ends the next sleep, once", "[waiting]") {
  blocker b(nullptr);
  b.signal();
  CHECK(b.sleep(std::int64_t{600} * 1000000000) == blocker::outcome::signalled);
  // The signal was consumed: a short sleep now runs to its end.
  CHECK(b.sleep(1000) == blocker::outcome::timeout);
}

namespace {
// A worker that never has events: its event fd fires only when signal() is called.
class quiet_worker final : public gaea::comm::waitable {
 public:
  quiet_worker() : fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
  ~quiet_worker() override { close(fd_); }
  unsigned progress() override { return 0; }
  bool arm() override {
    std::uint64_t v;
    [[maybe_unused]] const ssize_t r = read(fd_, &v, sizeof v);  // drain, like ucp_worker_arm
    return true;
  }
  int event_fd() override { return fd_; }
  void signal() override {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t r = write(fd_, &one, sizeof one);
  }

 private:
  int fd_;
};

// A worker with events pending: arm() refuses, as ucp_worker_arm's BUSY.
class busy_worker final : public gaea::comm::waitable {
 public:
  busy_worker() : fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
  ~busy_worker() override { close(fd_); }
  unsigned progress() override { return 1; }
  bool arm() override { return false; }
  int event_fd() override { return fd_; }  // never readable: arm refuses first
  void signal() override {}

 private:
  int fd_;
};

// An away hook that offers another worker's armed fd (or watch_busy) to a watching sleep, as a
// thread serving the service worker does.
class watching_hook final : public gaea::progress::detail::away_hook {
 public:
  explicit watching_hook(int fd) : fd_(fd) {}
  void leaving(bool) noexcept override { ++leaving_; }
  void back() noexcept override { ++back_; }
  int watch() noexcept override {
    ++watches_;
    return fd_;
  }
  int fd_, leaving_ = 0, back_ = 0, watches_ = 0;
};

constexpr std::int64_t forever_ns = std::int64_t{600} * 1000000000;  // longer than any timeout

void signal_later(gaea::comm::waitable& w) {
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  w.signal();
}

// Keeps the calling thread on one CPU for the scope, so that the waiter's sched_getcpu() and the
// governor agree on the domain.
class pinned {
 public:
  explicit pinned(int cpu) {
    sched_getaffinity(0, sizeof old_, &old_);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    sched_setaffinity(0, sizeof one, &one);
  }
  ~pinned() { sched_setaffinity(0, sizeof old_, &old_); }

 private:
  cpu_set_t old_;
};
}  // namespace

TEST_CASE("waiter: a block that times out keeps the frequency low until there is work",
          "[waiting][dvfs][regression]") {
  // An idle rank wakes at every safety timeout; it used to raise and lower its core each time
  // (about 100 transitions per second in bench/idle_wait).
  const int cpu = sched_getcpu();
  REQUIRE(cpu >= 0);
  pinned pin(cpu);
  gaea::energy::actuator_config cfg;
  cfg.kind = "simulated";
  cfg.cpus = {cpu};
  cfg.simulated_cost_ns = 1000;
  auto act = gaea::energy::make_actuator(cfg).act;
  gaea::energy::governor gov(*act, {});
  gov.thread_started(cpu);
  gaea::progress::thread_telemetry tel(1, 16);
  quiet_worker worker;
  {
    gaea::progress::detail::waiter w(&worker, tel, &gov);
    w.set_dvfs(true);
    const std::int64_t ms = 1000000;
    CHECK(w.block(ms, 1000 * ms) == blocker::outcome::timeout);
    CHECK(act->transition_count() == 1);  // lowered before the block
    CHECK(w.block(ms, 1000 * ms) == blocker::outcome::timeout);
    CHECK(act->transition_count() == 1);  // still low: no raise and lower around the timeout
    CHECK(act->current_khz(cpu) == act->low_khz(cpu));
    w.awake();  // the thread found work
    CHECK(act->transition_count() == 2);
    CHECK(act->current_khz(cpu) == act->high_khz(cpu));
    // A block that ends by a signal lowers, then raises at once.
    w.signal();
    CHECK(w.block(1000 * ms, 1000 * ms) == blocker::outcome::signalled);
    CHECK(act->transition_count() == 4);
    CHECK(act->current_khz(cpu) == act->high_khz(cpu));
    // A timeout, then the waiter's destruction, leaves the core high too.
    CHECK(w.block(ms, 1000 * ms) == blocker::outcome::timeout);
  }
  CHECK(act->current_khz(cpu) == act->high_khz(cpu));
}

TEST_CASE("blocker: a watching micro-sleep ends when its worker has an event", "[waiting]") {
  // The hand-over's serving waits sleep by steps; an arrival must end the step, not wait for it.
  quiet_worker worker;
  blocker b(&worker);
  std::thread sender([&] { signal_later(worker); });
  const blocker::outcome o = b.sleep(forever_ns, /*watch=*/true);
  sender.join();
  CHECK(o == blocker::outcome::event);
}

TEST_CASE("blocker: a plain micro-sleep does not watch its worker", "[waiting]") {
  quiet_worker worker;
  blocker b(&worker);
  worker.signal();  // readable from the start: only a watching sleep would see it
  CHECK(b.sleep(1000000) == blocker::outcome::timeout);
}

TEST_CASE("blocker: a watching sleep with events pending returns busy without sleeping",
          "[waiting]") {
  busy_worker worker;
  blocker b(&worker);
  CHECK(b.sleep(forever_ns, true) == blocker::outcome::busy);
  // The hook says the same of the worker it serves.
  quiet_worker own;
  blocker c(&own);
  watching_hook hook(gaea::progress::detail::away_hook::watch_busy);
  c.set_away_hook(&hook);
  CHECK(c.sleep(forever_ns, true) == blocker::outcome::busy);
  CHECK(hook.leaving_ == 0);  // it never went away
}

TEST_CASE("blocker: a watching sleep ends on the fd its away hook watches", "[waiting]") {
  quiet_worker own, served;
  blocker b(&own);
  watching_hook hook(served.event_fd());
  b.set_away_hook(&hook);
  std::thread sender([&] { signal_later(served); });
  const blocker::outcome o = b.sleep(forever_ns, true);
  sender.join();
  CHECK(o == blocker::outcome::event);
  CHECK(hook.watches_ == 1);
  CHECK(hook.leaving_ == 1);
  CHECK(hook.back_ == 1);
  // A plain sleep does not ask the hook.
  CHECK(b.sleep(1000) == blocker::outcome::timeout);
  CHECK(hook.watches_ == 1);
}
