// The start-up calibration of the auto policy's costs: epoll wake-up latency, micro-sleep cost.

#include "gaea/progress/calibration.hpp"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

#include "gaea/base/clock.hpp"
#include "gaea/progress/detail/blocker.hpp"
#include "gaea/progress/detail/wait_strategy.hpp"

namespace gaea::progress {

std::string calibration::describe() const {
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "wake-up %.1f us, micro-sleep %.1f us, DVFS transition %.1f us (%s)",
                static_cast<double>(wake_ns) / 1e3, static_cast<double>(sleep_ns) / 1e3,
                static_cast<double>(dvfs_ns) / 1e3, measured ? "measured" : "defaults");
  return buf;
}

namespace {
std::int64_t median(std::vector<std::int64_t> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A second thread blocks in epoll on an eventfd; this thread signals it and the woken thread
// records when it ran. The gap is what an interrupt-driven wait adds to a message's latency.
std::int64_t measure_wake(int samples) {
  const int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  const int ep = epoll_create1(EPOLL_CLOEXEC);
  if (efd < 0 || ep < 0) {
    if (efd >= 0) close(efd);
    if (ep >= 0) close(ep);
    return -1;
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = efd;
  epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev);
  std::atomic<std::int64_t> woke{0};
  std::atomic<int> ready{0};
  std::vector<std::int64_t> gaps;
  std::thread sleeper([&] {
    for (int i = 0; i < samples; ++i) {
      ready.store(i + 1, std::memory_order_release);
      epoll_event out;
      while (epoll_wait(ep, &out, 1, 1000) == 0) {
      }
      woke.store(monotonic_ns(), std::memory_order_release);
      std::uint64_t v;
      [[maybe_unused]] const ssize_t r = read(efd, &v, sizeof v);
    }
  });
  for (int i = 0; i < samples; ++i) {
    while (ready.load(std::memory_order_acquire) != i + 1)
      std::this_thread::yield();
    // Let the sleeper reach epoll_wait: a signal sent before it blocks measures nothing.
    const timespec pause{0, 200000};
    clock_nanosleep(CLOCK_MONOTONIC, 0, &pause, nullptr);
    woke.store(0, std::memory_order_relaxed);
    const std::int64_t t0 = monotonic_ns();
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t r = write(efd, &one, sizeof one);
    std::int64_t t1;
    while ((t1 = woke.load(std::memory_order_acquire)) == 0)
      std::this_thread::yield();
    gaps.push_back(t1 - t0);
  }
  sleeper.join();
  close(ep);
  close(efd);
  return median(gaps);
}

// The same interruptible sleep that the wait strategies use.
std::int64_t measure_sleep(int samples) {
  detail::tighten_timer_slack();
  detail::blocker b(nullptr);
  std::vector<std::int64_t> d;
  for (int i = 0; i < samples; ++i) {
    const std::int64_t t0 = monotonic_ns();
    b.sleep(1000);
    d.push_back(monotonic_ns() - t0);
  }
  return median(d);
}
}  // namespace

calibration calibrate(int samples) noexcept {
  calibration c;
  try {
    const std::int64_t wake = measure_wake(std::max(samples, 3));
    const std::int64_t sleep = measure_sleep(std::max(samples, 3));
    if (wake > 0 && sleep > 0) {
      c.wake_ns = wake;
      c.sleep_ns = sleep;
      c.measured = true;
    }
  } catch (...) {  // a failed measurement keeps the documented defaults (measured stays false)
  }
  return c;
}

}  // namespace gaea::progress
