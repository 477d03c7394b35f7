#pragma once
// The atomic counters behind gaea::ga::current_stats().

#include <array>
#include <atomic>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "gaea/base/clock.hpp"
#include "gaea/ga/stats.hpp"

namespace gaea::ga::detail {

struct op_counters {
  std::atomic<std::uint64_t> calls{0}, bytes{0}, ticks{0};
};

/// The clock of the per-operation times: the time-stamp counter on x86-64 (cheaper to read than
/// clock_gettime, which made the two reads per operation a visible share of a small get on a
/// node; docs/measurements.md), converted to seconds by current_stats() from its rate since the
/// counters were made; elsewhere nanoseconds.
inline std::uint64_t op_clock() noexcept {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return static_cast<std::uint64_t>(gaea::monotonic_ns());
#endif
}

struct stat_counters {
  stat_counters();
  std::uint64_t clock0;  // op_clock() and monotonic_ns() when the counters were made
  std::int64_t ns0;
  std::array<op_counters, op_count> ops;
  std::atomic<std::uint64_t> flushes_issued{0}, flushes_avoided{0}, accs_served{0}, accs_direct{0},
      packed_served{0}, zero_copy_transfers{0}, packed_transfers{0};
};
stat_counters& counters();

inline void bump(std::atomic<std::uint64_t>& c, std::uint64_t n = 1) {
  c.fetch_add(n, std::memory_order_relaxed);
}
/// One completed operation of kind `o` that took `ticks` of op_clock().
inline void record(op o, std::uint64_t bytes, std::uint64_t ticks) {
  auto& c = counters().ops[static_cast<std::size_t>(o)];
  bump(c.calls);
  bump(c.bytes, bytes);
  bump(c.ticks, ticks);
}

}  // namespace gaea::ga::detail
