#pragma once
/// \file
/// Helpers shared by the energy benchmarks (shift, idle_wait, reaction): wait configurations,
/// medians, cross-rank sums, energy accounting, the MPI library's name and the run description
/// written into every JSON.

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <mpi.h>

#include <nlohmann/json.hpp>

#include "gaea/base/error.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/base/version.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/energy/actuator.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea_bench {

/// One way of waiting: a progress mode plus whether DVFS is lowered around blocking sleeps.
struct wait_config {
  std::string name;  ///< as given on the command line, e.g. "interrupt+dvfs"
  gaea::progress::mode mode = gaea::progress::mode::spin;
  bool dvfs = false;
};

/// Parses a configuration name. Accepted: the names of [PASCoL §4.2] "polling" (= spin),
/// "polling+dvfs", "interrupt", "interrupt+dvfs", plus "spin", "adaptive", "adaptive_fixed",
/// "auto" and any "<mode>+dvfs" / "<mode>-nodvfs". "auto" alone means DVFS on (the runtime's own
/// default); every other mode alone means DVFS off.
inline std::optional<wait_config> parse_config(const std::string& text) {
  std::string base = text;
  std::optional<bool> dvfs;
  if (base.ends_with("+dvfs")) {
    base.resize(base.size() - 5);
    dvfs = true;
  } else if (base.ends_with("-nodvfs")) {
    base.resize(base.size() - 7);
    dvfs = false;
  }
  if (base == "polling") base = "spin";
  const auto m = gaea::progress::parse_mode(base);
  if (!m || *m == gaea::progress::mode::off) return std::nullopt;
  return wait_config{text, *m, dvfs.value_or(*m == gaea::progress::mode::automatic)};
}

/// Splits "a,b,c" (empty items dropped).
inline std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

/// "8 B", "32 KiB", "4 MiB": a size as the tables print it.
inline std::string size_label(std::size_t bytes) {
  char b[32];
  if (bytes >= (std::size_t{1} << 20) && bytes % (std::size_t{1} << 20) == 0)
    std::snprintf(b, sizeof b, "%zu MiB", bytes >> 20);
  else if (bytes >= 1024 && bytes % 1024 == 0)
    std::snprintf(b, sizeof b, "%zu KiB", bytes >> 10);
  else
    std::snprintf(b, sizeof b, "%zu B", bytes);
  return b;
}

/// Parses every item of a comma-separated configuration list; throws gaea::error on an unknown
/// name or an empty list.
inline std::vector<wait_config> parse_configs(const std::string& text) {
  std::vector<wait_config> out;
  for (const std::string& s : split_list(text)) {
    const auto c = parse_config(s);
    if (!c) throw gaea::error("unknown wait configuration '" + s + "'");
    out.push_back(*c);
  }
  if (out.empty()) throw gaea::error("no wait configuration given");
  return out;
}

/// Median (mean of the two middle values for an even count); 0 for an empty vector.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Collective over all ranks (gaea::coll, whose wait keeps serving peers): sum and maximum.
inline double sum_over_ranks(double v) {
  return gaea::coll::allreduce(gaea::coll::world(), v, gaea::coll::reduce_op::sum);
}
inline double max_over_ranks(double v) {
  return gaea::coll::allreduce(gaea::coll::world(), v, gaea::coll::reduce_op::max);
}

/// Sums a per-rank energy delta over the job without double counting: a hardware meter covers
/// the whole node (every rank of the node reads the same counter), so only one rank per node
/// contributes; the model covers one rank, so every rank contributes.
inline double sum_energy(gaea::runtime& rt, double joules, bool measured) {
  return sum_over_ranks(!measured || rt.node_rank() == 0 ? joules : 0.0);
}

/// "measured" or "estimated (model)", for table captions.
inline std::string energy_label(const gaea::energy_reading& e) {
  return e.measured ? "measured (" + e.source + ", " + e.scope + ", one rank per node summed)"
                    : "estimated (" + e.source + ", " + e.scope + ", all ranks summed)";
}

/// What every result file records about the run: ranks, transport, DVFS backend and energy meter.
inline nlohmann::json run_info(gaea::runtime& rt, const char* bench) {
  const gaea::energy_reading e = rt.energy();
  const char* tls = std::getenv("UCX_TLS");
  const char* dvfs_env = std::getenv("GAEA_DVFS");
  nlohmann::json j;
  j["bench"] = bench;
  j["gaea_version"] = gaea::version_string;
  j["ranks"] = rt.size();
  j["nodes"] = rt.nodes();
  j["ucx_tls"] = tls ? tls : "default";
  j["initial_mode"] = std::string(gaea::progress::to_string(rt.progress().current_mode()));
  j["progress_shares_core"] = rt.progress().share_core();
  j["dvfs"] = {{"env", dvfs_env ? dvfs_env : "auto"},
               {"actuator", std::string(rt.dvfs().name())},
               {"hardware", rt.dvfs().hardware()},
               {"reason", rt.dvfs_reason()}};
  j["energy"] = {{"measured", e.measured},
                 {"kind", e.measured ? "measured" : "estimated"},
                 {"source", e.source},
                 {"scope", e.scope},
                 {"summed_over", e.measured ? "one rank per node" : "all ranks"},
                 {"reason", rt.meter_reason()}};
  return j;
}

/// Writes `j` (indented) to `path` through gaea::output_file (a temporary beside it, renamed
/// once complete: a failed write leaves the previous file); reports failure on stderr and
/// returns false.
inline bool write_json(const std::string& path, const nlohmann::json& j) {
  try {
    gaea::output_file out(path, "--json");
    out.write(j.dump(2) + "\n");
    out.commit();
    return true;
  } catch (const gaea::error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return false;
  }
}

/// The 1/5/15-minute load averages, e.g. "0.52 0.61 0.70".
inline std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

/// The MPI library's name and version, first line up to the first comma (e.g. "Open MPI v4.1.4").
inline std::string mpi_library() {
  std::array<char, MPI_MAX_LIBRARY_VERSION_STRING> b{};
  int len = 0;
  MPI_Get_library_version(b.data(), &len);
  const std::string s(b.data(), static_cast<std::size_t>(std::max(len, 0)));
  return s.substr(0, s.find_first_of("\r\n,"));
}

/// Nanoseconds between two steady readings as seconds.
inline double seconds(std::int64_t ns) {
  return static_cast<double>(ns) * 1e-9;
}

}  // namespace gaea_bench
