#pragma once
// Internal to the runtime: the GAEA_REPORT summary built from every rank's gathered figures
// (report_summary.cpp); report.cpp gathers them and writes the result. docs/report.md describes
// the JSON it produces.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gaea/comm/op_stats.hpp"
#include "gaea/progress/telemetry.hpp"
#include "gaea/runtime/extension.hpp"

namespace gaea::detail {

// One rank's measures, gathered as doubles; the modules' section values follow them.
enum report_real : std::size_t {
  r_cpu,                                               // process CPU s over the report interval
  r_state_wall,                                        // wall s per wait state
  r_state_cpu = r_state_wall + progress::wait_states,  // CPU s per wait state
  r_low_cpu = r_state_cpu + progress::wait_states,
  r_penalty,
  r_joules,
  r_fixed
};

// One rank's counts and clock readings, gathered as int64 (exact).
enum report_int : std::size_t {
  i_start_ns,  // monotonic clock at the interval's start and end (comparable within a node)
  i_end_ns,
  i_node,
  i_node_leader,
  i_node_pus,  // hardware threads of the node, from its first rank only
  i_measured,
  i_waits,
  i_wakeups,
  i_blocks,
  i_mode_switches,
  i_dvfs_lowered,
  i_dvfs_raised,
  i_transitions,
  i_op_count,                                // comm::op_kinds
  i_op_bytes = i_op_count + comm::op_kinds,  // comm::op_kinds
  i_fixed = i_op_bytes + comm::op_kinds
};

// What rank 0 knows of the job besides the gathered figures.
struct report_context {
  int ranks = 0;
  int nodes = 0;
  std::vector<std::string> hosts;  // by node id
  std::string mode;
  std::vector<std::string> command_line;
  std::int64_t start_unix_ms = 0;
  std::string actuator, dvfs_reason;
  /// Who controls the frequency (runtime::energy_mode), why (the markup's reason), and the wait
  /// regions rank 0 marked for the manager.
  std::string energy_mode, markup_reason;
  std::uint64_t markup_regions = 0;
  /// Rank 0's throttle backend, why, and the write its device refused while running ("" if none).
  std::string throttle, throttle_reason, throttle_refusal;
  std::string energy_source, energy_scope, meter_reason;
  /// Under Slurm: which energy figure is which (energy::slurm_energy_note); "" otherwise.
  std::string slurm_energy;
  double max_slowdown = 0;
  std::string calibration;
  struct section {
    std::string name;
    std::vector<report_key> keys;
  };
  std::vector<section> sections;
};

struct report_summary {
  nlohmann::json json;  // docs/report.md
  std::string text;     // the lines GAEA_REPORT=1 prints
};

// Builds the report from every rank's figures: `reals` holds ranks x (r_fixed + section values),
// `ints` ranks x i_fixed, rank by rank. Throws gaea::error when the sizes do not match.
report_summary summarize_report(const report_context& ctx, const std::vector<double>& reals,
                                const std::vector<std::int64_t>& ints);

// "2026-11-24T21:09:25.123Z" (UTC) for milliseconds since the Unix epoch.
std::string iso8601_utc(std::int64_t unix_ms);

}  // namespace gaea::detail
