#pragma once
// The atomic counters behind gaea::ga::current_stats().

#include <array>
#include <atomic>
#include <cstdint>

#include "gaea/ga/stats.hpp"

namespace gaea::ga::detail {

struct op_counters {
  std::atomic<std::uint64_t> calls{0}, bytes{0}, ns{0};
};

struct stat_counters {
  std::array<op_counters, op_count> ops;
  std::atomic<std::uint64_t> flushes_issued{0}, flushes_avoided{0}, accs_served{0}, accs_direct{0},
      packed_served{0}, zero_copy_transfers{0}, packed_transfers{0};
};
stat_counters& counters();

inline void bump(std::atomic<std::uint64_t>& c, std::uint64_t n = 1) {
  c.fetch_add(n, std::memory_order_relaxed);
}
/// One completed operation of kind `o`.
inline void record(op o, std::uint64_t bytes, std::uint64_t ns) {
  auto& c = counters().ops[static_cast<std::size_t>(o)];
  bump(c.calls);
  bump(c.bytes, bytes);
  bump(c.ns, ns);
}

}  // namespace gaea::ga::detail
