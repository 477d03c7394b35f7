#include "gaea/progress/engine.hpp"

#include <pthread.h>
#include <sched.h>

#include "gaea/base/error.hpp"

namespace gaea::progress {

std::string_view to_string(mode m) noexcept {
  switch (m) {
    case mode::off:
      return "off";
    case mode::spin:
      return "spin";
    case mode::adaptive:
      return "adaptive";
  }
  return "?";
}

engine::engine(comm::service_worker& service, mode m, std::vector<int> cpus, bool share_core)
    : service_(service), mode_(m), cpus_(std::move(cpus)), share_core_(share_core) {
  if (mode_ == mode::off) return;
  thread_ = std::thread([this] { run(); });
}

engine::~engine() {
  if (thread_.joinable()) {
    stop_.store(true, std::memory_order_release);
    service_.signal();
    thread_.join();
  }
}

void engine::run() {
  // Bind before the first step (binding from the parent would race with it). On failure the
  // thread stays where the OS puts it; last_cpu() reports where it actually runs.
  if (!cpus_.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : cpus_)
      CPU_SET(c, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  }
  spin_strategy spin;
  // Idle, the thread backs off to 1 ms sleeps: on virtual machines every wake-up costs ~25 us of
  // CPU (bench/idle_cost: 50 us steps burn 28% of a core, 1 ms steps 3%). Bursts never see it:
  // the thread spins for 50 us after any traffic.
  backoff_strategy backoff(50000, 1000, 1000000);
  wait_strategy& strategy = mode_ == mode::spin ? static_cast<wait_strategy&>(spin) : backoff;
  std::uint64_t steps = 0;
  while (!stop_.load(std::memory_order_acquire)) {
    const unsigned n = service_.progress();
    ++steps;
    steps_.store(steps, std::memory_order_relaxed);
    if (n) {
      busy_steps_.fetch_add(1, std::memory_order_relaxed);
      events_.fetch_add(n, std::memory_order_relaxed);
    }
    if ((steps & 0xffff) == 1) {
      last_cpu_.store(sched_getcpu(), std::memory_order_relaxed);
      if (steps == 1) first_cpu_.store(last_cpu_.load(std::memory_order_relaxed));
    }
    strategy.after_step(n);
  }
  // Drain what arrived before stop so that no request is left half-served.
  while (service_.progress() != 0) {
  }
}

unsigned engine::poll_service() {
  if (mode_ != mode::off) return 0;
  std::unique_lock lock(service_mutex_, std::try_to_lock);
  return lock.owns_lock() ? service_.progress() : 0;
}

unsigned engine::poll(comm::worker& w) {
  return w.progress() + poll_service();
}

void engine::wait(comm::worker& w, comm::completion& c) {
  if (!c.done()) wait_until(w, [&c] { return c.done(); });
  c.check();
}

stats engine::thread_stats() const noexcept {
  return {steps_.load(std::memory_order_relaxed), busy_steps_.load(std::memory_order_relaxed),
          events_.load(std::memory_order_relaxed)};
}

}  // namespace gaea::progress
