#include "gaea/progress/wait_strategy.hpp"

#include <sched.h>
#include <sys/prctl.h>
#include <time.h>

namespace gaea::progress {

void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#else
  asm volatile("" ::: "memory");
#endif
}

void spin_strategy::after_step(unsigned events) {
  if (events) {
    idle_ = 0;
    return;
  }
  if (++idle_ >= yield_after_) {
    idle_ = 0;
    sched_yield();
  } else {
    cpu_relax();
  }
}

namespace {
std::int64_t monotonic_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}
}  // namespace

backoff_strategy::backoff_strategy(std::uint32_t spin_ns, std::uint32_t min_sleep_ns,
                                   std::uint32_t max_sleep_ns)
    : spin_ns_(spin_ns),
      min_sleep_ns_(min_sleep_ns),
      max_sleep_ns_(max_sleep_ns),
      sleep_ns_(min_sleep_ns) {
  tighten_timer_slack();
}

void backoff_strategy::after_step(unsigned events) {
  if (events) {
    idle_ = 0;
    sleeping_ = false;
    sleep_ns_ = min_sleep_ns_;
    return;
  }
  if (!sleeping_) {
    // Spin phase: read the clock only every 64 idle steps; once the window has passed, every
    // idle step sleeps until traffic comes back.
    if (idle_ == 0) idle_since_ns_ = monotonic_ns();
    if ((++idle_ & 63) != 0 || monotonic_ns() - idle_since_ns_ < spin_ns_) {
      cpu_relax();
      return;
    }
    sleeping_ = true;
  }
  const timespec ts{0, static_cast<long>(sleep_ns_)};
  clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, nullptr);
  sleep_ns_ = sleep_ns_ * 2 > max_sleep_ns_ ? max_sleep_ns_ : sleep_ns_ * 2;
}

bool tighten_timer_slack() noexcept {
  thread_local int state = 0;  // 0 unknown, 1 set, -1 refused
  if (state == 0) state = prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) == 0 ? 1 : -1;
  return state == 1;
}

}  // namespace gaea::progress
