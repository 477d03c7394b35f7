#pragma once
/// \file
/// Gaea's clocks: gaea::monotonic_ns, the one monotonic clock of every timestamp (progress
/// telemetry, trace events, timings; CLOCK_MONOTONIC, shared by every process of a node), its
/// value in seconds, and the CPU time of the calling thread and of the process. Thread-safe.

#include <time.h>

#include <cstdint>

namespace gaea {

/// CLOCK_MONOTONIC in ns (vDSO: tens of ns).
inline std::int64_t monotonic_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

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

}  // namespace gaea
