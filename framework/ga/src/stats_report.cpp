// The "global arrays" section of the GAEA_REPORT summary: per-operation figures and counters.
#include <string>
#include <vector>

#include "detail/registry.hpp"
#include "gaea/ga/stats.hpp"
#include "gaea/runtime/extension.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga::detail {

void add_report_section(runtime& rt) {
  std::vector<report_key> keys;
  for (std::size_t i = 0; i < op_count; ++i) {
    const std::string o(to_string(static_cast<op>(i)));
    keys.insert(keys.end(), {report_count(o + "_calls"), o + "_MB", o + "_ms"});
  }
  for (const char* k : {"flushes_issued", "flushes_avoided", "zero_copy_transfers",
                        "packed_transfers", "accs_served", "packed_served", "accs_direct"})
    keys.push_back(report_count(k));
  gaea::add_report_section(rt, "global arrays", keys, [] {
    const stats s = current_stats();
    std::vector<double> v;
    for (const op_figures& f : s.ops)
      v.insert(v.end(), {static_cast<double>(f.calls), static_cast<double>(f.bytes) * 1e-6,
                         f.seconds * 1e3});
    for (std::uint64_t x : {s.flushes_issued, s.flushes_avoided, s.zero_copy_transfers,
                            s.packed_transfers, s.accs_served, s.packed_served, s.accs_direct})
      v.push_back(static_cast<double>(x));
    return v;
  });
}

}  // namespace gaea::ga::detail
