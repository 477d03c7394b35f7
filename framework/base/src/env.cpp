// The table of every GAEA_* environment variable, with the parsing, checks and typed getters.

#include "gaea/base/env.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "gaea/base/enum_names.hpp"
#include "gaea/base/error.hpp"

namespace gaea::env {

const std::vector<variable>& table() {
  static const std::vector<variable> vars = {
      {"GAEA_PROGRESS", "auto",
       "wait mode of the progress thread and of application-thread waits: "
       "auto|spin|adaptive|adaptive_fixed|interrupt|off. spin polls with `pause`; adaptive "
       "spins while traffic is recent, then micro-sleeps with a doubling step; adaptive_fixed "
       "probes and sleeps with a step growing by a fixed amount ([AdaptivePolling Fig. 3], "
       "GAEA_ADAPTIVE_FIXED_*); interrupt blocks in epoll on the UCX "
       "event fd; auto spins while traffic is recent or a latency-critical wait is pending, "
       "micro-sleeps, then blocks once the idle time exceeds the calibrated wake-up cost; off = "
       "no progress thread (a rank serves its peers only inside Gaea calls)",
       value_kind::choice, "auto|spin|adaptive|adaptive_fixed|interrupt|off"},
      {"GAEA_ADAPTIVE_FIXED_MIN_NS",
       "0",
       "mode adaptive_fixed: d_min, the first sleep after an arrival, in nanoseconds (a plain "
       "integer; 0 = probe again at once)",
       value_kind::size,
       {},
       0},
      {"GAEA_ADAPTIVE_FIXED_MAX_NS",
       "1000",
       "mode adaptive_fixed: d_max, the longest sleep, in nanoseconds (a plain integer, at least "
       "d_min, at most 1000000000)",
       value_kind::size,
       {},
       0},
      {"GAEA_ADAPTIVE_FIXED_STEP_NS",
       "1",
       "mode adaptive_fixed: d_step, added to the sleep after every idle probe, in nanoseconds "
       "(a plain integer)",
       value_kind::size,
       {},
       1},
      {"GAEA_PROGRESS_BIND", "auto",
       "placement of the progress thread: auto (SMT sibling, else a spare core, else unpinned) | "
       "none",
       value_kind::choice, "auto|none"},
      {"GAEA_SHARED_CORES", "auto",
       "whether other ranks share this rank's cores: auto (when a node's ranks outnumber its "
       "hardware threads) | yes (also when they look dedicated, e.g. other jobs or emulated "
       "hosts on the same CPUs: waits yield as on an oversubscribed node, as Open MPI's "
       "mpi_yield_when_idle) | no",
       value_kind::choice, "auto|yes|no"},
      {"GAEA_RKEY_PTR", "1",
       "1 = use ucp_rkey_ptr direct load/store for get/put to peers on the node when UCX allows "
       "it; 0 = "
       "always go through UCX RMA",
       value_kind::choice, "0|1"},
      {"GAEA_RKEY_CACHE",
       "1024",
       "remote keys each worker keeps unpacked (an LFU cache per worker, [PGAS-BGQ eq. 5-6]): "
       "beyond it the least used key is evicted and unpacked again from its packed copy on next "
       "use. Keys of direct (same-node, ucp_rkey_ptr) peers are kept outside the count",
       value_kind::size,
       {},
       1},
      {"GAEA_TEST_FAIL_MEM_MAP",
       "0",
       "for tests and benchmarks: a segment of at least this many bytes on a rank (K/M/G "
       "suffixes; 0 = never) acts there as if ucp_mem_map failed, so peers reach it through the "
       "active-message fall-back ([PGAS-BGQ eq. 8])",
       value_kind::size,
       {},
       0},
      {"GAEA_MAX_TRANSFER",
       "1G",
       "largest single UCX transfer in bytes (K/M/G suffixes); larger transfers are split. Lower "
       "it only "
       "to test the splitting",
       value_kind::size,
       {},
       8},
      {"GAEA_STRIDED", "auto",
       "strided get/put protocol: auto (per owner piece, whichever the calibrated cost model "
       "says is faster) | zero_copy (one RMA per contiguous chunk) | packed (one message per "
       "owner piece, packed and unpacked by the two sides)",
       value_kind::choice, "auto|zero_copy|packed"},
      {"GAEA_ACC", "auto",
       "accumulate protocol: auto (per owner: add straight into its memory under its striped "
       "locks when mapped on this node, else target) | target (an active message the owner "
       "applies) | source (lock the owner, get, add, put, unlock: the classic scheme, for "
       "comparison)",
       value_kind::choice, "auto|target|source"},
      {"GAEA_DVFS", "auto",
       "frequency actuator used around blocking sleeps and in collectives: auto (cpufreq if "
       "writable, else GEOPM's CPU_FREQUENCY_MAX_CONTROL through geopmwrite, else none) | cpufreq "
       "| geopm | simulated (records transitions for the energy model) | off (msr is accepted and "
       "gives none: clock modulation is GAEA_THROTTLE's)",
       value_kind::choice, "auto|cpufreq|geopm|msr|simulated|off"},
      {"GAEA_THROTTLE", "auto",
       "clock-modulation throttle (T0..T7) used by the collectives' energy strategy: auto (MSR "
       "IA32_CLOCK_MODULATION if writable, else none) | msr | simulated (records transitions "
       "for the energy model) | off",
       value_kind::choice, "auto|msr|simulated|off"},
      {"GAEA_SYSFS_ROOT", "/",
       "root under which /sys and /dev are looked up (tests point it at fake trees)",
       value_kind::text},
      {"GAEA_ENERGY_METER", "auto",
       "energy meter: auto (RAPL powercap, then perf power events, then RAPL through msr-safe, "
       "then GEOPM's CPU_ENERGY, each used only after it proves it works, else the model) | rapl | "
       "perf | msr-safe | geopm | model",
       value_kind::choice, "auto|rapl|perf|msr-safe|geopm|model"},
      {"GAEA_GEOPM_BIN_DIR", "",
       "directory holding GEOPM's geopmread and geopmwrite (the GEOPM meter and DVFS backend); "
       "empty = found on PATH",
       value_kind::text},
      {"GAEA_ENERGY_MANAGER", "auto",
       "who controls the frequency during waits: auto (when GEOPM's controller runs for the job, "
       "Gaea marks its waits as a GEOPM region and writes no frequency or duty itself; else "
       "Gaea's own DVFS and throttle) | geopm (markup whenever libgeopm loads) | own (Gaea's "
       "own DVFS and throttle)",
       value_kind::choice, "auto|geopm|own"},
      {"GAEA_GEOPM_LIBRARY", "",
       "GEOPM's runtime library for region markup (a path or a name for dlopen); empty = "
       "libgeopm.so.2, then libgeopm.so",
       value_kind::text},
      {"GAEA_ENERGY_MODEL", "",
       "JSON file with the power-model parameters (see framework/energy/README.md); empty = "
       "documented defaults",
       value_kind::text},
      {"GAEA_REPORT", "0",
       "0 = no report; 1 = rank 0 prints a progress/energy summary over all ranks at finalize; "
       "a file name ending in .json = write that summary as JSON",
       value_kind::report},
      {"GAEA_TRACE", "",
       "trace file written at finalize, format by name: *.json = Chrome trace JSON (Perfetto, "
       "chrome://tracing), *.otf2 = OTF2 archive (Vampir, otf2-print), any other name = HDF5 "
       "time series (wait states, frequency, modelled power); JSON and OTF2 also hold the "
       "application regions (get/put/acc, fence, counters, tasks, collectives, barrier) per rank "
       "and thread; empty = off",
       value_kind::text},
      {"GAEA_TRACE_EVENTS",
       "1M",
       "bound of each thread's trace buffers (K/M/G): at most this many region/counter events "
       "and as many wait-state samples per thread; later ones are dropped and counted (in the "
       "file and on stderr)",
       value_kind::size,
       {},
       1},
      {"GAEA_MAX_SLOWDOWN", "0.02",
       "fraction of run time the auto policy may add in wake-up latency; past it auto spins "
       "longer. The report says whether it held",
       value_kind::fraction},
      {"GAEA_COLL_ALGO", "",
       "algorithm per collective, overriding the estimator: comma-separated operation=algorithm "
       "(operations barrier|broadcast|reduce|allreduce|allgather|alltoall|gather|scatter; "
       "algorithms dissemination|binomial|linear|scatter_allgather|chain|recursive_doubling|ring|"
       "hierarchical|bruck|pairwise|send_recv|shm|hybrid_scatter_allgather|hybrid_chain), e.g. "
       "alltoall=bruck,broadcast=chain",
       value_kind::text},
      {"GAEA_COLL_CHUNK",
       "64K",
       "pipeline chunk of the chain broadcast in bytes (K/M/G)",
       value_kind::size,
       {},
       1},
      {"GAEA_COLL_SHM_BYTES",
       "128K",
       "collectives of groups within one node go through shared memory (algorithm shm): each "
       "member's two buffers of this many bytes (K/M/G; rounded down to 64); 0 = never (message "
       "algorithms only)",
       value_kind::size,
       {},
       0},
      {"GAEA_COLL_SHM_SINGLE_COPY",
       "32K",
       "shared-memory broadcasts, allgathers/gathers, alltoalls and allreduces (up to 2 MiB) "
       "of at least this many bytes per part copy straight between the members' buffers "
       "(process_vm_readv/writev, where the kernel allows it between the members) instead of "
       "through the region (K/M/G); 0 = never. Unless set, off where a node's ranks outnumber "
       "its hardware threads",
       value_kind::size,
       {},
       0},
      {"GAEA_COLL_ENERGY", "auto",
       "per-call energy strategy of the collectives (lowest frequency for the call, throttling "
       "by step): auto (on where a hardware DVFS or throttle actuator is writable, for calls whose "
       "transitions add at most GAEA_MAX_SLOWDOWN of their predicted time) | on | off",
       value_kind::choice, "auto|on|off"},
      {"GAEA_COLL_CHECK", "0",
       "1 = every collective first agrees on its arguments (one small allreduce), so that "
       "mismatched calls fail on every member; 0 = mismatches are found by the members that "
       "exchange data",
       value_kind::choice, "0|1"},
      {"GAEA_COLL_CALIBRATION", "",
       "calibration file (JSON, from gaea-coll-calibrate) of the collectives' time and power "
       "model; empty = documented defaults",
       value_kind::text},
      {"GAEA_COUNTER", "atomic",
       "default mode of shared counters and task pools: atomic (UCX 64-bit atomics: CPU atomics "
       "on a node, NIC atomics on InfiniBand, emulated by the owner's progress thread on tcp) | "
       "progress (an active message served by the owner's progress thread) | owner (served only "
       "when the owner's main thread calls into Gaea: the baseline without asynchronous "
       "progress)",
       value_kind::choice, "atomic|progress|owner"},
      {"GAEA_BLAS_THREADS",
       "1",
       "threads per rank of the BLAS under Gaea's dense kernels (OpenBLAS); 1 keeps ranks and "
       "task threads from oversubscribing the cores; raise it when one rank per node calls BLAS",
       value_kind::size,
       {},
       1},
      {"GAEA_HANG_TIMEOUT", "0",
       "seconds after which a Gaea wait (barrier, collective, remote operation) that has not "
       "completed becomes an error naming what it waited for, which ends the job; 0 = off",
       value_kind::seconds},
      {"GAEA_HANG_WARN", "60",
       "seconds after which a Gaea wait that has not completed prints one warning naming what it "
       "waits for and what the ranks it waits for are doing; the wait goes on (GAEA_HANG_TIMEOUT "
       "ends it); 0 = off",
       value_kind::seconds},
      {"GAEA_VERBOSE", "0",
       "1 = rank 0 prints the set-up at start (ranks, nodes, progress mode and placement, "
       "topology) "
       "to stderr; gaea-info prints every rank's",
       value_kind::choice, "0|1"},
  };
  return vars;
}

const std::vector<std::string_view>& tool_variables() {
  // Read by scripts/build.sh, scripts/cluster.sh, tests/package, the Catch2 MPI main and the
  // hostile harness; listed so that start-up does not warn about them (see docs/environment.md).
  static const std::vector<std::string_view> names = {
      "GAEA_BUILD_DIR",        "GAEA_BUILD_TYPE",
      "GAEA_SKIP_DEPS",        "GAEA_CMAKE_ARGS",
      "GAEA_CLUSTER_NAME",     "GAEA_CLUSTER_DIR",
      "GAEA_CLUSTER_SUBNET",   "GAEA_CLUSTER_SHARED_IDENTITY",
      "GAEA_KEEP_PACKAGE_TMP", "GAEA_TEST_NODES",
      "GAEA_SOURCE_DIR",       "GAEA_BINARY_DIR",
      "GAEA_MPIEXEC",          "GAEA_HOSTILE_ID",
      "GAEA_HOSTILE_IN_NS"};
  return names;
}

namespace {

const variable* find(std::string_view name) {
  for (const auto& v : table())
    if (v.name == name) return &v;
  return nullptr;
}

const variable& lookup(std::string_view name) {
  if (const variable* v = find(name)) return *v;
  throw error("gaea::env: variable '" + std::string(name) +
              "' is not documented in the environment table (framework/base/src/env.cpp)");
}

std::vector<std::string_view> split_choices(std::string_view list) {
  std::vector<std::string_view> out;
  while (!list.empty()) {
    const std::size_t bar = list.find('|');
    out.push_back(list.substr(0, bar));
    list = bar == std::string_view::npos ? std::string_view{} : list.substr(bar + 1);
  }
  return out;
}

// Why not a "size": nullopt and the value, or the reason.
struct size_parse {
  std::int64_t value = 0;
  std::optional<std::string> error;
};

size_parse parse_size(const std::string& text) {
  size_parse r;
  std::size_t pos = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &pos, 10);
  } catch (const std::exception&) {
    r.error = "is not an integer (K/M/G suffixes allowed)";
    return r;
  }
  std::int64_t mult = 1;
  if (pos < text.size()) {
    switch (text[pos]) {
      case 'k':
      case 'K':
        mult = 1LL << 10;
        break;
      case 'm':
      case 'M':
        mult = 1LL << 20;
        break;
      case 'g':
      case 'G':
        mult = 1LL << 30;
        break;
      default:
        r.error = "has an unknown suffix (use K, M or G)";
        return r;
    }
    if (pos + 1 != text.size()) {
      r.error = "has trailing text";
      return r;
    }
  }
  if (value > std::numeric_limits<std::int64_t>::max() / mult ||
      value < std::numeric_limits<std::int64_t>::min() / mult) {
    r.error = "is out of range";
    return r;
  }
  r.value = value * mult;
  return r;
}

// A whole-string decimal number, or nullopt.
std::optional<double> parse_number(const std::string& text) {
  try {
    std::size_t pos = 0;
    const double v = std::stod(text, &pos);
    if (pos == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {  // not a number (or out of range): nullopt
  }
  return std::nullopt;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::optional<std::string> invalid(const variable& v, std::string_view value) {
  const std::string text(value);
  switch (v.kind) {
    case value_kind::choice:
      for (auto c : split_choices(v.choices))
        if (c == value) return std::nullopt;
      return "must be one of " + std::string(v.choices);
    case value_kind::size: {
      const size_parse p = parse_size(text);
      if (p.error) return *p.error;
      if (p.value < v.min) return "must be at least " + std::to_string(v.min);
      return std::nullopt;
    }
    case value_kind::seconds: {
      const size_parse p = parse_size(text);
      const bool digits = !text.empty() && std::isdigit(static_cast<unsigned char>(text.back()));
      if (p.error || !digits || p.value < 0 || p.value > 1'000'000'000)
        return std::string("must be a whole number of seconds in [0, 1000000000] (0: off)");
      return std::nullopt;
    }
    case value_kind::fraction: {
      const auto x = parse_number(text);
      if (!x || !(*x > 0 && *x < 1))
        return std::string("must be a fraction in (0, 1), e.g. 0.02 for 2%");
      return std::nullopt;
    }
    case value_kind::report:
      if (value == "0" || value == "1" || (value.ends_with(".json") && value.size() > 5))
        return std::nullopt;
      return std::string("must be 0, 1 or a file name ending in .json");
    case value_kind::text:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string_view> closest(std::string_view name) {
  const std::string key = upper(name);
  std::optional<std::string_view> best;
  std::size_t best_d = std::numeric_limits<std::size_t>::max();
  auto consider = [&](std::string_view candidate) {
    const std::size_t d = edit_distance(key, candidate);
    if (d < best_d) best_d = d, best = candidate;
  };
  for (const auto& v : table())
    consider(v.name);
  for (auto t : tool_variables())
    consider(t);
  // A misspelling changes a few letters of the part after GAEA_; an unrelated name changes most.
  const std::size_t suffix = key.size() > 5 ? key.size() - 5 : 0;
  if (!best || best_d > std::max<std::size_t>(1, suffix / 3)) return std::nullopt;
  return best;
}

void check_all() {
  std::string errors;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    const std::size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = entry.substr(0, eq), value = entry.substr(eq + 1);
    if (upper(name).rfind("GAEA_", 0) != 0) continue;
    if (const variable* v = find(name)) {
      if (value.empty()) continue;  // empty means unset (the default)
      if (auto why = invalid(*v, value))
        errors += std::string(errors.empty() ? "" : "; ") + "environment variable " +
                  std::string(name) + "='" + std::string(value) + "' " + *why;
      continue;
    }
    const auto& tools = tool_variables();
    if (std::find(tools.begin(), tools.end(), name) != tools.end()) continue;
    const auto near = closest(name);
    std::fprintf(stderr,
                 "gaea: warning: unknown environment variable %s=%s (%s%s); it is ignored\n",
                 std::string(name).c_str(), std::string(value).c_str(),
                 near ? "did you mean " : "gaea-info --env lists the known ones",
                 near ? (std::string(*near) + "?").c_str() : "");
  }
  if (!errors.empty()) throw error(errors);
}

std::optional<std::string> raw(std::string_view name) {
  const variable& v = lookup(name);
  const char* s = std::getenv(std::string(v.name).c_str());
  if (!s || !*s) return std::nullopt;
  return std::string(s);
}

std::string get_string(std::string_view name) {
  auto r = raw(name);
  return r ? *r : std::string(lookup(name).default_str);
}

std::int64_t get_int(std::string_view name) {
  const std::string text = get_string(name);
  const size_parse p = parse_size(text);
  if (p.error)
    throw error("environment variable " + std::string(name) + "='" + text + "' " + *p.error);
  return p.value;
}

std::string get_choice(std::string_view name, const std::vector<std::string_view>& choices) {
  const variable& v = lookup(name);
  std::vector<std::string_view> mine = split_choices(v.choices), theirs = choices;
  std::sort(mine.begin(), mine.end());
  std::sort(theirs.begin(), theirs.end());
  if (v.kind != value_kind::choice || mine != theirs)
    throw error("gaea::env: the choices read for " + std::string(name) +
                " differ from the environment table's (framework/base/src/env.cpp): a bug");
  const std::string text = get_string(name);
  for (auto c : choices)
    if (c == text) return text;
  throw error("environment variable " + std::string(name) + "='" + text + "' must be one of " +
              join_names(choices));
}

}  // namespace gaea::env
