#pragma once
/// \file
/// gaea::monotonic_ns — the one monotonic clock of Gaea's timestamps (progress telemetry, trace
/// events, timings): CLOCK_MONOTONIC in ns, shared by every process of a node. Thread-safe.

#include <time.h>

#include <cstdint>

namespace gaea {

/// CLOCK_MONOTONIC in ns (vDSO: tens of ns).
inline std::int64_t monotonic_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace gaea
