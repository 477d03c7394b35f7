#include "gaea/base/env.hpp"

#include <cstdlib>

#include "gaea/base/error.hpp"

namespace gaea::env {

const std::vector<variable>& table() {
  static const std::vector<variable> vars = {
      {"GAEA_PROGRESS", "auto",
       "wait mode of the progress thread and of application-thread waits: "
       "auto|spin|adaptive|interrupt|off. spin polls with `pause`; adaptive spins while traffic "
       "is recent, then micro-sleeps with a growing step; interrupt blocks in epoll on the UCX "
       "event fd; auto spins while traffic is recent or a latency-critical wait is pending, "
       "micro-sleeps, then blocks once the idle time exceeds the calibrated wake-up cost; off = "
       "no progress thread (a rank serves its peers only inside Gaea calls)"},
      {"GAEA_PROGRESS_BIND", "auto",
       "placement of the progress thread: auto (SMT sibling, else a spare core, else unpinned) | "
       "none"},
      {"GAEA_RKEY_PTR", "1",
       "1 = use ucp_rkey_ptr direct load/store for get/put to peers on the node when UCX allows "
       "it; 0 = "
       "always go through UCX RMA"},
      {"GAEA_MAX_TRANSFER", "1G",
       "largest single UCX transfer in bytes (K/M/G suffixes); larger transfers are split. Lower "
       "it only "
       "to test the splitting"},
      {"GAEA_STRIDED", "auto",
       "strided get/put protocol: auto (per owner piece, whichever the calibrated cost model "
       "says is faster) | zero_copy (one RMA per contiguous chunk) | packed (one message per "
       "owner piece, packed and unpacked by the two sides)"},
      {"GAEA_ACC", "target",
       "accumulate protocol: target (an active message the owner applies) | source (lock the "
       "owner, get, add, put, unlock: the classic scheme, for comparison)"},
      {"GAEA_DVFS", "auto",
       "frequency actuator used around blocking sleeps and in collectives: auto (cpufreq if "
       "writable, else none) | cpufreq | simulated (records transitions for the energy model) | "
       "off (msr is accepted and gives none: clock modulation is GAEA_THROTTLE's)"},
      {"GAEA_THROTTLE", "auto",
       "clock-modulation throttle (T0..T7) used by the collectives' energy strategy: auto (MSR "
       "IA32_CLOCK_MODULATION if writable, else none) | msr | simulated (records transitions "
       "for the energy model) | off"},
      {"GAEA_SYSFS_ROOT", "/",
       "root under which /sys and /dev are looked up (tests point it at fake trees)"},
      {"GAEA_ENERGY_METER", "auto",
       "energy meter: auto (RAPL powercap, then perf power events, each used only after it proves "
       "it works, else the model) | rapl | perf | model"},
      {"GAEA_ENERGY_MODEL", "",
       "JSON file with the power-model parameters (see framework/energy/README.md); empty = "
       "documented defaults"},
      {"GAEA_REPORT", "0",
       "0 = no report; 1 = rank 0 prints a progress/energy summary over all ranks at finalize; "
       "a file name ending in .json = write that summary as JSON"},
      {"GAEA_TRACE", "",
       "HDF5 file for a time series per rank (wait state, frequency, modelled power); empty = "
       "off"},
      {"GAEA_MAX_SLOWDOWN", "0.02",
       "fraction of run time the auto policy may add in wake-up latency; past it auto spins "
       "longer. The report says whether it held"},
      {"GAEA_COLL_ALGO", "",
       "algorithm per collective, overriding the estimator: comma-separated operation=algorithm "
       "(operations barrier|broadcast|reduce|allreduce|allgather|alltoall; algorithms "
       "dissemination|binomial|scatter_allgather|chain|recursive_doubling|ring|hierarchical|"
       "bruck|pairwise|send_recv), e.g. alltoall=bruck,broadcast=chain"},
      {"GAEA_COLL_CHUNK", "64K", "pipeline chunk of the chain broadcast in bytes (K/M/G)"},
      {"GAEA_COLL_ENERGY", "auto",
       "per-call energy strategy of the collectives (lowest frequency for the call, throttling "
       "by step): auto (on where a hardware DVFS or throttle actuator is writable, for calls whose "
       "transitions add at most GAEA_MAX_SLOWDOWN of their predicted time) | on | off"},
      {"GAEA_COLL_CHECK", "0",
       "1 = every collective first agrees on its arguments (one small allreduce), so that "
       "mismatched calls fail on every member; 0 = mismatches are found by the members that "
       "exchange data"},
      {"GAEA_COLL_CALIBRATION", "",
       "calibration file (JSON, from gaea-coll-calibrate) of the collectives' time and power "
       "model; empty = documented defaults"},
      {"GAEA_COUNTER", "atomic",
       "default mode of shared counters and task pools: atomic (UCX 64-bit atomics: CPU atomics "
       "on a node, NIC atomics on InfiniBand, emulated by the owner's progress thread on tcp) | "
       "progress (an active message served by the owner's progress thread) | owner (served only "
       "when the owner's main thread calls into Gaea: the baseline without asynchronous "
       "progress)"},
      {"GAEA_HANG_TIMEOUT", "0",
       "seconds after which a Gaea wait (barrier, collective, remote operation) that has not "
       "completed becomes an error naming what it waited for, which ends the job; 0 = off"},
      {"GAEA_VERBOSE", "0",
       "1 = rank 0 prints the set-up at start (ranks, nodes, progress mode and placement, "
       "topology) "
       "to stderr; gaea-info prints every rank's"},
  };
  return vars;
}

static const variable& lookup(std::string_view name) {
  for (const auto& v : table())
    if (v.name == name) return v;
  throw Error("gaea::env: variable '" + std::string(name) +
              "' is not documented in the environment table (framework/base/src/env.cpp)");
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
  std::size_t pos = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &pos, 10);
  } catch (const std::exception&) {
    throw Error("environment variable " + std::string(name) + "='" + text +
                "' is not an integer (K/M/G suffixes allowed)");
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
        throw Error("environment variable " + std::string(name) + "='" + text +
                    "' has an unknown suffix (use K, M or G)");
    }
    if (pos + 1 != text.size())
      throw Error("environment variable " + std::string(name) + "='" + text +
                  "' has trailing text");
  }
  return value * mult;
}

std::string get_choice(std::string_view name, const std::vector<std::string_view>& choices) {
  const std::string text = get_string(name);
  for (auto c : choices)
    if (c == text) return text;
  std::string list;
  for (auto c : choices)
    list += (list.empty() ? "" : "|") + std::string(c);
  throw Error("environment variable " + std::string(name) + "='" + text + "' must be one of " +
              list);
}

}  // namespace gaea::env
