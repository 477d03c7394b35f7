// The GAEA_REPORT summary: sums, per-node and per-rank figures from every rank's gathered values,
// as JSON (schema "gaea-report", docs/report.md) and as the text GAEA_REPORT=1 prints.
#include "detail/report_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "gaea/base/error.hpp"
#include "gaea/base/version.hpp"

namespace gaea::detail {

namespace {
constexpr int schema_version = 1;

// A section value declared a count: modules give whole numbers as doubles, exact below 2^53.
std::int64_t to_count(double v) {
  return static_cast<std::int64_t>(std::llround(v));
}

// printf into a string; the attribute lets the compiler check every call's arguments.
__attribute__((format(printf, 1, 2))) std::string format(const char* fmt, ...) {
  char b[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(b, sizeof b, fmt, args);
  va_end(args);
  return b;
}
}  // namespace

std::string iso8601_utc(std::int64_t unix_ms) {
  const std::time_t s = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&s, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%S", &tm);
  return format("%s.%03dZ", b, static_cast<int>(unix_ms % 1000));
}

report_summary summarize_report(const report_context& ctx, const std::vector<double>& reals,
                                const std::vector<std::int64_t>& ints) {
  const auto ranks = static_cast<std::size_t>(ctx.ranks);
  const auto nodes = static_cast<std::size_t>(ctx.nodes);
  std::size_t section_width = 0;
  for (const auto& sec : ctx.sections)
    section_width += sec.keys.size();
  const std::size_t rw = r_fixed + section_width;
  if (ranks == 0 || nodes == 0 || reals.size() != ranks * rw || ints.size() != ranks * i_fixed ||
      ctx.hosts.size() != nodes)
    throw error("GAEA_REPORT: gathered " + std::to_string(reals.size()) + " measures and " +
                std::to_string(ints.size()) + " counts for " + std::to_string(ranks) +
                " ranks on " + std::to_string(nodes) + " nodes (" + std::to_string(rw) + " and " +
                std::to_string(i_fixed) + " per rank expected)");
  auto real = [&](std::size_t r, std::size_t f) { return reals[r * rw + f]; };
  auto count = [&](std::size_t r, std::size_t f) { return ints[r * i_fixed + f]; };
  auto rank_wall = [&](std::size_t r) {
    return static_cast<double>(count(r, i_end_ns) - count(r, i_start_ns)) * 1e-9;
  };

  // Nodes: the interval of a node runs from its first rank's start to its last rank's end (one
  // monotonic clock per node), so the CPU its ranks used in their intervals fits in
  // node wall x node hardware threads.
  struct node_figures {
    int ranks = 0;
    std::int64_t pus = 0, start = INT64_MAX, end = INT64_MIN;
    double cpu = 0, joules = 0;
    bool measured = true;
  };
  std::vector<node_figures> per_node(nodes);
  bool all_measured = true;
  for (std::size_t r = 0; r < ranks; ++r) {
    const std::int64_t id = count(r, i_node);
    if (id < 0 || static_cast<std::size_t>(id) >= nodes)
      throw error("GAEA_REPORT: rank " + std::to_string(r) + " is on node " + std::to_string(id) +
                  " of " + std::to_string(nodes));
    node_figures& n = per_node[static_cast<std::size_t>(id)];
    ++n.ranks;
    n.pus += count(r, i_node_pus);
    n.start = std::min(n.start, count(r, i_start_ns));
    n.end = std::max(n.end, count(r, i_end_ns));
    n.cpu += real(r, r_cpu);
    n.measured = n.measured && count(r, i_measured) != 0;
    all_measured = all_measured && count(r, i_measured) != 0;
  }
  // Energy: a hardware meter covers its node (each rank of the node reads the same counter):
  // count the node's first rank only. The model covers one rank: sum the node's ranks.
  for (std::size_t r = 0; r < ranks; ++r) {
    node_figures& n = per_node[static_cast<std::size_t>(count(r, i_node))];
    if (!n.measured || count(r, i_node_leader) != 0) n.joules += real(r, r_joules);
  }
  double wall = 0, cpu = 0, capacity = 0, joules = 0;
  std::int64_t pus = 0;
  std::vector<double> node_wall(nodes), node_share(nodes);
  for (std::size_t k = 0; k < nodes; ++k) {
    const node_figures& n = per_node[k];
    node_wall[k] = static_cast<double>(n.end - n.start) * 1e-9;
    node_share[k] =
        node_wall[k] > 0 && n.pus > 0 ? n.cpu / (node_wall[k] * static_cast<double>(n.pus)) : 0.0;
    wall = std::max(wall, node_wall[k]);
    cpu += n.cpu;
    capacity += node_wall[k] * static_cast<double>(n.pus);
    pus += n.pus;
    joules += n.joules;
  }
  const double share = capacity > 0 ? cpu / capacity : 0.0;

  // Sums over ranks.
  std::vector<double> real_sum(rw, 0.0);
  std::vector<std::int64_t> int_sum(i_fixed, 0);
  double slowdown_max = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    for (std::size_t f = 0; f < rw; ++f)
      real_sum[f] += real(r, f);
    for (std::size_t f = 0; f < i_fixed; ++f)
      int_sum[f] += count(r, f);
    const double w = rank_wall(r);
    slowdown_max = std::max(slowdown_max, w > 0 ? real(r, r_penalty) / w : 0.0);
  }
  const bool held = slowdown_max <= ctx.max_slowdown;

  nlohmann::json j;
  j["schema"] = "gaea-report";
  j["schema_version"] = schema_version;
  j["gaea_version"] = version_string;
  j["command_line"] = ctx.command_line;
  j["start_time"] = iso8601_utc(ctx.start_unix_ms);
  j["ranks"] = ctx.ranks;
  j["nodes"] = ctx.nodes;
  j["hosts"] = ctx.hosts;
  j["mode"] = ctx.mode;
  j["wall_s"] = wall;
  j["cpu_s"] = cpu;
  j["hardware_threads"] = pus;
  j["cpu_fraction_of_hardware_threads"] = share;
  for (std::size_t s = 0; s < progress::wait_states; ++s) {
    const std::string name(progress::to_string(static_cast<progress::wait_state>(s)));
    j["wait_states"][name] = {{"wall_s", real_sum[r_state_wall + s]},
                              {"cpu_s", real_sum[r_state_cpu + s]}};
  }
  j["waits"] = int_sum[i_waits];
  j["wakeups"] = int_sum[i_wakeups];
  j["blocks"] = int_sum[i_blocks];
  j["mode_switches"] = int_sum[i_mode_switches];
  j["dvfs"] = {{"actuator", ctx.actuator},
               {"reason", ctx.dvfs_reason},
               {"lowered", int_sum[i_dvfs_lowered]},
               {"raised", int_sum[i_dvfs_raised]},
               {"transitions", int_sum[i_transitions]},
               {"cpu_s_at_low_frequency", real_sum[r_low_cpu]}};
  j["energy_manager"] = {{"mode", ctx.energy_mode},
                         {"reason", ctx.markup_reason},
                         {"regions_entered", ctx.markup_regions}};
  j["throttle_choice"] = {{"backend", ctx.throttle},
                          {"reason", ctx.throttle_reason},
                          {"refusal", ctx.throttle_refusal}};
  j["energy"] = {{"joules", joules},
                 {"source", ctx.energy_source},
                 {"kind", all_measured ? "measured" : "estimated"},
                 {"scope", ctx.energy_scope},
                 {"summed_over", all_measured ? "nodes" : "ranks"},
                 {"meter_choice", ctx.meter_reason}};
  if (!ctx.slurm_energy.empty()) j["energy"]["slurm"] = ctx.slurm_energy;
  j["slowdown"] = {{"estimated_max_rank", slowdown_max},
                   {"budget", ctx.max_slowdown},
                   {"held", held},
                   {"calibration", ctx.calibration}};
  for (std::size_t k = 0; k < comm::op_kinds; ++k) {
    const std::string name(comm::to_string(static_cast<comm::op_kind>(k)));
    j["operations"][name] = {{"count", int_sum[i_op_count + k]},
                             {"bytes", int_sum[i_op_bytes + k]}};
  }
  j["sections"] = nlohmann::json::object();
  for (std::size_t at = r_fixed; const auto& sec : ctx.sections)
    for (const report_key& key : sec.keys) {
      nlohmann::json& v = j["sections"][sec.name][key.name];
      v = key.count ? nlohmann::json(to_count(real_sum[at])) : nlohmann::json(real_sum[at]);
      ++at;
    }

  // Per node, by node id.
  nlohmann::json& pn = j["per_node"];
  pn["host"] = ctx.hosts;
  for (std::size_t k = 0; k < nodes; ++k) {
    pn["ranks"].push_back(per_node[k].ranks);
    pn["hardware_threads"].push_back(per_node[k].pus);
    pn["wall_s"].push_back(node_wall[k]);
    pn["cpu_s"].push_back(per_node[k].cpu);
    pn["cpu_fraction_of_hardware_threads"].push_back(node_share[k]);
    pn["joules"].push_back(per_node[k].joules);
  }
  // Per rank, by rank: the main fields beside their sums.
  nlohmann::json& pr = j["per_rank"];
  pr = nlohmann::json::object();
  for (std::size_t r = 0; r < ranks; ++r) {
    const double w = rank_wall(r);
    pr["node"].push_back(count(r, i_node));
    pr["wall_s"].push_back(w);
    pr["cpu_s"].push_back(real(r, r_cpu));
    pr["waits"].push_back(count(r, i_waits));
    pr["wakeups"].push_back(count(r, i_wakeups));
    pr["blocks"].push_back(count(r, i_blocks));
    pr["mode_switches"].push_back(count(r, i_mode_switches));
    pr["dvfs_transitions"].push_back(count(r, i_transitions));
    pr["joules"].push_back(real(r, r_joules));
    pr["estimated_slowdown"].push_back(w > 0 ? real(r, r_penalty) / w : 0.0);
    for (std::size_t k = 0; k < comm::op_kinds; ++k) {
      nlohmann::json& o =
          pr["operations"][std::string(comm::to_string(static_cast<comm::op_kind>(k)))];
      o["count"].push_back(count(r, i_op_count + k));
      o["bytes"].push_back(count(r, i_op_bytes + k));
    }
    for (std::size_t at = r_fixed; const auto& sec : ctx.sections)
      for (const report_key& key : sec.keys) {
        nlohmann::json& a = pr["sections"][sec.name][key.name];
        if (key.count)
          a.push_back(to_count(real(r, at)));
        else
          a.push_back(real(r, at));
        ++at;
      }
  }

  // The text: one job, then its figures; every share says of what.
  report_summary out;
  std::string& t = out.text;
  double cpu_min = real(0, r_cpu), cpu_max = cpu_min;
  for (std::size_t r = 1; r < ranks; ++r) {
    cpu_min = std::min(cpu_min, real(r, r_cpu));
    cpu_max = std::max(cpu_max, real(r, r_cpu));
  }
  t += format("gaea report: %d ranks on %d node%s (%s), %.3f s, mode %s\n", ctx.ranks, ctx.nodes,
              ctx.nodes == 1 ? "" : "s", nodes == 1 ? ctx.hosts[0].c_str() : "see per node", wall,
              ctx.mode.c_str());
  if (nodes == 1)
    t += format("  CPU %.3f s in those %.3f s: %.1f%% of the node's %lld hardware threads", cpu,
                wall, 100 * share, static_cast<long long>(pus));
  else
    t += format("  CPU %.3f s in those %.3f s: %.1f%% of the %lld hardware threads of %d nodes",
                cpu, wall, 100 * share, static_cast<long long>(pus), ctx.nodes);
  t += format(" (per rank %.3f-%.3f s)\n", cpu_min, cpu_max);
  if (nodes > 1)
    for (std::size_t k = 0; k < nodes; ++k)
      t += format(
          "    node %zu (%s): %d ranks, CPU %.3f s in %.3f s, %.1f%% of %lld hardware "
          "threads\n",
          k, ctx.hosts[k].c_str(), per_node[k].ranks, per_node[k].cpu, node_wall[k],
          100 * node_share[k], static_cast<long long>(per_node[k].pus));
  t += format("  waiting (wall, all threads): spin %.3f s, sleep %.3f s, block %.3f s\n",
              j["wait_states"]["spin"]["wall_s"].get<double>(),
              j["wait_states"]["sleep"]["wall_s"].get<double>(),
              j["wait_states"]["block"]["wall_s"].get<double>());
  t += format("  waits %lld, wake-ups %lld, blocks %lld, mode switches %lld\n",
              static_cast<long long>(int_sum[i_waits]), static_cast<long long>(int_sum[i_wakeups]),
              static_cast<long long>(int_sum[i_blocks]),
              static_cast<long long>(int_sum[i_mode_switches]));
  t += format("  DVFS %s: %lld lowered, %lld raised, %.3f CPU-s at low frequency\n",
              ctx.actuator.c_str(), static_cast<long long>(int_sum[i_dvfs_lowered]),
              static_cast<long long>(int_sum[i_dvfs_raised]), real_sum[r_low_cpu]);
  t += "  energy control: " + ctx.energy_mode + "\n";
  if (!ctx.throttle_refusal.empty()) t += "  throttle " + ctx.throttle_refusal + "\n";
  if (all_measured) {
    t +=
        format("  energy %.3f J, summed over %d node%s (measured, %s; each: %s)", joules, ctx.nodes,
               ctx.nodes == 1 ? "" : "s", ctx.energy_source.c_str(), ctx.energy_scope.c_str());
    if (nodes > 1) {
      t += "; per node:";
      for (std::size_t k = 0; k < nodes; ++k)
        t += format(" %.3f", per_node[k].joules);
      t += " J";
    }
    t += "\n";
  } else {
    t += format("  energy %.3f J, summed over %d rank%s (estimated, %s; each: %s)\n", joules,
                ctx.ranks, ctx.ranks == 1 ? "" : "s", ctx.energy_source.c_str(),
                ctx.energy_scope.c_str());
  }
  if (!ctx.slurm_energy.empty()) t += "  " + ctx.slurm_energy + "\n";
  t += format("  slowdown estimate %.2f%% (worst rank; budget %.2f%%: %s)\n", 100 * slowdown_max,
              100 * ctx.max_slowdown, held ? "held" : "exceeded");
  t += "  operations:";
  for (std::size_t k = 0; k < comm::op_kinds; ++k)
    t += format("%s %s %lld (%.1f MB)", k == 0 ? "" : ",",
                std::string(comm::to_string(static_cast<comm::op_kind>(k))).c_str(),
                static_cast<long long>(int_sum[i_op_count + k]),
                static_cast<double>(int_sum[i_op_bytes + k]) / 1e6);
  t += "\n";
  for (std::size_t at = r_fixed; const auto& sec : ctx.sections) {
    t += "  " + sec.name + ":";
    for (const report_key& key : sec.keys) {
      const double v = real_sum[at++];
      if (v == 0) continue;
      t += key.count ? format(" %s %lld", key.name.c_str(), static_cast<long long>(to_count(v)))
                     : format(" %s %.6g", key.name.c_str(), v);
    }
    t += "\n";
  }
  out.json = std::move(j);
  return out;
}

}  // namespace gaea::detail
