// Process-wide counters of the global-array layer and their formatting (gaea/ga/stats.hpp).
#include "gaea/ga/stats.hpp"

#include <atomic>
#include <cstdio>
#include <string>

#include "detail/stats_counters.hpp"

namespace gaea::ga {

namespace detail {
stat_counters::stat_counters() : clock0(op_clock()), ns0(gaea::monotonic_ns()) {}

stat_counters& counters() {
  static stat_counters c;
  return c;
}

}  // namespace detail

stats current_stats() {
  auto& c = detail::counters();
  auto ld = [](const std::atomic<std::uint64_t>& a) { return a.load(std::memory_order_relaxed); };
  // Seconds per op_clock() tick: its mean rate since the counters were made (1e-9 when the clock
  // is in nanoseconds, or before the first tick).
  const double ticks = static_cast<double>(detail::op_clock() - c.clock0);
  const double seconds = static_cast<double>(gaea::monotonic_ns() - c.ns0) * 1e-9;
  const double per_tick = ticks > 0 && seconds > 0 ? seconds / ticks : 1e-9;
  stats s;
  for (std::size_t i = 0; i < op_count; ++i)
    s.ops[i] = {ld(c.ops[i].calls), ld(c.ops[i].bytes),
                static_cast<double>(ld(c.ops[i].ticks)) * per_tick};
  s.flushes_issued = ld(c.flushes_issued);
  s.flushes_avoided = ld(c.flushes_avoided);
  s.accs_served = ld(c.accs_served);
  s.accs_direct = ld(c.accs_direct);
  s.packed_served = ld(c.packed_served);
  s.zero_copy_transfers = ld(c.zero_copy_transfers);
  s.packed_transfers = ld(c.packed_transfers);
  return s;
}

std::string format(const stats& s) {
  std::string out;
  char line[256];
  for (std::size_t i = 0; i < op_count; ++i) {
    const op_figures& f = s.ops[i];
    if (f.calls == 0) continue;
    std::snprintf(line, sizeof line, "  %-13s %10llu calls %12.3f MB %10.3f ms\n",
                  std::string(to_string(static_cast<op>(i))).c_str(),
                  static_cast<unsigned long long>(f.calls), static_cast<double>(f.bytes) * 1e-6,
                  f.seconds * 1e3);
    out += line;
  }
  std::snprintf(line, sizeof line,
                "  fences: %llu flushes issued, %llu avoided; transfers: %llu zero-copy, %llu "
                "packed; served: %llu accumulates, %llu packed; direct: %llu accumulates\n",
                static_cast<unsigned long long>(s.flushes_issued),
                static_cast<unsigned long long>(s.flushes_avoided),
                static_cast<unsigned long long>(s.zero_copy_transfers),
                static_cast<unsigned long long>(s.packed_transfers),
                static_cast<unsigned long long>(s.accs_served),
                static_cast<unsigned long long>(s.packed_served),
                static_cast<unsigned long long>(s.accs_direct));
  out += line;
  return out;
}

}  // namespace gaea::ga
