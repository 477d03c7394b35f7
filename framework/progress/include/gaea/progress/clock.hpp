#pragma once
/// \file
/// Clocks of the progress engine: monotonic wall time and the calling thread's CPU time.

#include <time.h>

#include <cstdint>

#include "gaea/base/clock.hpp"

namespace gaea::progress {

/// CLOCK_MONOTONIC in ns (gaea::monotonic_ns, the clock of every Gaea timestamp).
using gaea::monotonic_ns;

/// CLOCK_MONOTONIC in seconds, for timings kept as doubles.
inline double monotonic_s() noexcept {
  return static_cast<double>(monotonic_ns()) * 1e-9;
}

/// CPU time of the calling thread in ns (a system call: call it at state changes, not per step).
inline std::int64_t thread_cpu_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

/// CPU time of the whole process (all threads) in ns.
inline std::int64_t process_cpu_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace gaea::progress
