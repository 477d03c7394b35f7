#include "gaea/progress/wait_strategy.hpp"

#include <sched.h>

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

}  // namespace gaea::progress
