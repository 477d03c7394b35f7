#pragma once
// The atomic counters behind gaea::ga::current_stats().

#include <atomic>
#include <cstdint>

namespace gaea::ga::detail {

struct stat_counters {
  std::atomic<std::uint64_t> gets{0}, puts{0}, accs{0}, bytes_get{0}, bytes_put{0}, bytes_acc{0},
      flushes_issued{0}, flushes_avoided{0}, accs_served{0};
};
stat_counters& counters();

inline void bump(std::atomic<std::uint64_t>& c, std::uint64_t n = 1) {
  c.fetch_add(n, std::memory_order_relaxed);
}

}  // namespace gaea::ga::detail
