// gaea-coll-energy-bench: the per-call energy strategy of gaea::coll ([A2A-Energy]: lowest DVFS
// frequency for the call, clock-modulation throttling by step) against the same collective at
// full power.
//
// For every operation (alltoall, broadcast), algorithm and size there are three variants:
// coll::options::energy = off ("full power"), on ("strategy") and Open MPI's MPI_Alltoall /
// MPI_Bcast on MPI_COMM_WORLD ("mpi", charged by the same model as full power). Each repetition
// runs a timed batch of K calls of each variant, the two in alternating order (off/on, then on/off,
// ...), so both see the same machine state. Per batch and rank:
//   - time per call: the calls alone, K calls / K; the table takes the maximum over ranks;
//   - energy: runtime::energy() before the batch and after a closing barrier (so that a rank done
//     early is charged while it waits for the others), summed over ranks (one rank per node when
//     a hardware meter measures the whole node); nothing subtracted: both variants carry the
//     same static and idle terms per second;
//   - DVFS and throttle transitions (rt.dvfs(), rt.throttle()), and the time those transitions
//     took as their actuators logged it (the simulated ones busy-wait their configured cost);
//   - "attributed" energy (model meter only): the same deltas with the throttle's removed cycles
//     charged at f_min, where the strategy throttles; the meter spreads them over all CPU time
//     in proportion (see throttle_attribution), which flatters the strategy.
// Reported per (operation, algorithm, size): medians over the repetitions, time cost % (strategy
// time / full-power time - 1) and energy saving % (1 - strategy energy / full-power energy).
//
// With simulated actuators (GAEA_DVFS=simulated GAEA_THROTTLE=simulated, the only ones on a
// machine without cpufreq or MSRs) the saving is the one the energy *model* computes: the CPU
// time of a call is charged at f_min and the throttled share at its duty, but the CPU keeps
// running at full speed. A real CPU at f_min would also execute the call's copies and protocol
// work more slowly, which this run cannot show. What it does measure is the transitions' cost in
// time (busy-waited per transition) and the strategy's own bookkeeping per call.
//
// Run under GAEA_PROGRESS=spin: in the sleeping modes the progress governor also moves the DVFS
// actuator, and its transitions would mix with the collectives'.
//
//   GAEA_DVFS=simulated GAEA_THROTTLE=simulated GAEA_PROGRESS=spin mpirun -np 4
//       build/bench/gaea-coll-energy-bench --min 64 --max 1MiB --reps 5 --json out.json
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <mpi.h>

#include "bench_common.hpp"
#include "cli.hpp"
#include "gaea/base/clock.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/energy/actuator.hpp"
#include "gaea/energy/model.hpp"
#include "gaea/energy/throttle.hpp"
#include "gaea/runtime/runtime.hpp"

namespace {

namespace coll = gaea::coll;
using gaea::monotonic_ns;
using gaea::process_cpu_ns;
using nlohmann::json;

constexpr const char* model_caveat =
    "energy saving as the model measures it, with simulated DVFS/throttle transitions: CPU time "
    "inside a strategy call is charged at f_min and throttled time at its duty, but the CPU "
    "really ran at full speed; a real CPU at f_min would also run the call's copies and protocol "
    "work more slowly, which this run cannot show. The transitions' time cost is measured (each "
    "simulated transition busy-waits its configured cost).";

// One variant of a call: which energy mode and its name in the output.
struct variant {
  coll::energy_mode mode;
  const char* name;
  bool mpi;  // Open MPI's call on MPI_COMM_WORLD (defaults), charged like full power
};
constexpr std::array<variant, 3> variants{{{coll::energy_mode::off, "full_power", false},
                                           {coll::energy_mode::on, "strategy", false},
                                           {coll::energy_mode::off, "mpi", true}}};

// What one rank reads before and after a batch.
struct snapshot {
  std::int64_t t_ns = 0;
  std::int64_t cpu_ns = 0;
  double elapsed_s = 0;
  double joules = 0;
  std::uint64_t dvfs = 0, thr = 0;
  gaea::energy::level_times by_level{};
};

snapshot take_snapshot(gaea::runtime& rt) {
  snapshot s;
  s.joules = rt.energy().joules;  // the model meter's inputs, read again right after it
  s.elapsed_s = rt.elapsed();
  s.cpu_ns = process_cpu_ns();
  s.by_level = rt.throttle().cpu_ns_by_level();
  s.dvfs = rt.dvfs().transition_count();
  s.thr = rt.throttle().transition_count();
  s.t_ns = monotonic_ns();
  return s;
}

// The model meter charges a rank's CPU time as P_dyn * A * D, where A = CPU time weighted by
// (f / f_max)^3 over its two frequencies and D the mean duty of *all* its CPU time
// (energy::rank_usage: throttled time taken to be spread over both frequencies in proportion).
// The strategy throttles only while its CPUs are at f_min, so the exact charge is
// P_dyn * (A - r^3 R), R the removed cycles' CPU time and r = f_min / f_max: the meter credits
// throttling at the running mix A / C instead of r^3, and since D multiplies the whole history,
// a batch's delta also moves with earlier batches' throttling. attributed() returns the meter's
// reading with that one term re-charged exactly; A comes from inverting the reading (the meter's
// zero is fixed at construction, before any strategy call, when nothing ran at f_min).
class throttle_attribution {
 public:
  explicit throttle_attribution(gaea::runtime& rt) : p_(rt.model()) {
    if (rt.dvfs().active() && !rt.throttle().cpus().empty()) {
      const int cpu = rt.throttle().cpus().front();
      const double hi = static_cast<double>(rt.dvfs().high_khz(cpu)),
                   lo = static_cast<double>(rt.dvfs().low_khz(cpu));
      if (hi > 0 && lo > 0) r3_ = std::pow(lo / hi, 3);
    }
    const snapshot s = take_snapshot(rt);
    const double c = gaea_bench::seconds(s.cpu_ns);
    const std::array<gaea::energy::cpu_share, 1> all{
        {{c, p_.f_max_khz, gaea::energy::mean_duty(s.by_level, s.cpu_ns)}}};
    zero_j_ = gaea::energy::model_energy_j(p_, s.elapsed_s, all, s.dvfs, s.thr) - s.joules;
  }
  double attributed(const snapshot& s) const {
    const double c = gaea_bench::seconds(s.cpu_ns);
    const double d = gaea::energy::mean_duty(s.by_level, s.cpu_ns);
    if (c <= 0 || d >= 1 || p_.p_dyn_w <= 0) return s.joules;
    const double fixed = (p_.p_static_w + p_.p_dyn_other_w) * s.elapsed_s +
                         static_cast<double>(s.dvfs) * p_.transition_j +
                         static_cast<double>(s.thr) * p_.throttle_transition_j;
    // A lies between r^3 C (all at f_min) and C (all at f_max); the clamp absorbs read skew.
    const double a = std::clamp((s.joules + zero_j_ - fixed) / (p_.p_dyn_w * d), r3_ * c, c);
    return s.joules + p_.p_dyn_w * (1 - d) * c * (a / c - r3_);
  }

 private:
  gaea::energy::model_params p_;
  double r3_ = 1;
  double zero_j_ = 0;
};

// Sum of the logged cost of the newest `n` transitions (the ring may have dropped older ones:
// then the mean of those kept, times n).
template <class Log>
double newest_cost_ns(const Log& log, std::uint64_t n) {
  if (n == 0 || log.empty()) return 0;
  const std::size_t kept = std::min<std::size_t>(log.size(), static_cast<std::size_t>(n));
  double sum = 0;
  for (std::size_t i = log.size() - kept; i < log.size(); ++i)
    sum += static_cast<double>(log[i].cost_ns);
  return sum * static_cast<double>(n) / static_cast<double>(kept);
}

// One batch's figures, already reduced over ranks.
struct batch_result {
  double call_us = 0;          // max over ranks of the per-call time
  double joules = 0;           // meter, per call, summed over ranks
  double attr_joules = 0;      // the same with throttled time charged at f_min (model meter)
  double dvfs = 0, thr = 0;    // transitions per call, summed over ranks
  double transition_us = 0;    // logged transition time per call, max over ranks
  double cpu_us = 0;           // process CPU time per call, summed over ranks
  double throttled_share = 0;  // removed cycles / CPU time inside the calls, mean over ranks
};

json to_json(const batch_result& b) {
  return {{"call_us", b.call_us},
          {"joules_per_call", b.joules},
          {"attributed_joules_per_call", b.attr_joules},
          {"dvfs_per_call", b.dvfs},
          {"throttle_per_call", b.thr},
          {"transition_us", b.transition_us},
          {"cpu_us", b.cpu_us},
          {"throttled_share", b.throttled_share}};
}

// Runs one timed batch of `iters` calls with energy mode `m` (collective).
batch_result run_batch(gaea::runtime& rt, const coll::group& w, std::size_t iters,
                       coll::energy_mode m, const std::function<void(const coll::options&)>& call,
                       coll::algorithm algo, const throttle_attribution* attr) {
  coll::options quiet;
  quiet.energy = coll::energy_mode::off;
  coll::options o;
  o.algo = algo;
  o.energy = m;
  coll::barrier(w, quiet);
  const snapshot s0 = take_snapshot(rt);
  for (std::size_t i = 0; i < iters; ++i)
    call(o);
  const std::int64_t calls_end = monotonic_ns(), calls_cpu_end = process_cpu_ns();
  coll::barrier(w, quiet);
  const snapshot s1 = take_snapshot(rt);

  const double n = static_cast<double>(iters);
  const std::uint64_t d_dvfs = s1.dvfs - s0.dvfs, d_thr = s1.thr - s0.thr;
  const double trans_ns = (d_dvfs ? newest_cost_ns(rt.dvfs().transitions(), d_dvfs) : 0.0) +
                          (d_thr ? newest_cost_ns(rt.throttle().transitions(), d_thr) : 0.0);
  const std::int64_t calls_cpu = calls_cpu_end - s0.cpu_ns;
  gaea::energy::level_times d_level{};
  for (std::size_t j = 0; j < d_level.size(); ++j)
    d_level[j] = s1.by_level[j] - s0.by_level[j];
  const double duty = gaea::energy::mean_duty(d_level, calls_cpu);
  const double attr_j = attr ? attr->attributed(s1) - attr->attributed(s0) : s1.joules - s0.joules;

  // Two reductions per batch: sums (energy one rank per node for a hardware meter) and maxima.
  const bool counted = !rt.energy().measured || rt.node_rank() == 0;
  std::array<double, 6> sums{counted ? s1.joules - s0.joules : 0.0, counted ? attr_j : 0.0,
                             static_cast<double>(d_dvfs),           static_cast<double>(d_thr),
                             static_cast<double>(calls_cpu) * 1e-3, 1.0 - duty};
  std::array<double, 2> maxima{static_cast<double>(calls_end - s0.t_ns) * 1e-3, trans_ns * 1e-3};
  coll::allreduce(w, std::span<double>(sums), coll::reduce_op::sum);
  coll::allreduce(w, std::span<double>(maxima), coll::reduce_op::max);
  batch_result b;
  b.call_us = maxima[0] / n;
  b.transition_us = maxima[1] / n;
  b.joules = sums[0] / n;
  b.attr_joules = sums[1] / n;
  b.dvfs = sums[2] / n;
  b.thr = sums[3] / n;
  b.cpu_us = sums[4] / n;
  b.throttled_share = sums[5] / w.size();
  return b;
}

// The buffers and the call of one (operation, size), with a per-repetition data check.
class workload {
 public:
  workload(const coll::group& w, std::string op, std::size_t bytes)
      : w_(w), op_(std::move(op)), bytes_(bytes) {
    const auto p = static_cast<std::size_t>(w.size());
    if (op_ == "alltoall") {
      send_.resize(bytes * p);
      recv_.resize(bytes * p);
    } else {
      send_.resize(bytes);
    }
  }
  // Fresh data for repetition `tag` (so that a stale buffer cannot pass the check).
  void prepare(int tag) {
    const int me = w_.rank();
    if (op_ == "alltoall") {
      for (std::size_t j = 0; j < static_cast<std::size_t>(w_.size()); ++j)
        std::memset(send_.data() + j * bytes_, pattern(me, static_cast<int>(j), tag), bytes_);
      std::fill(recv_.begin(), recv_.end(), std::byte{0});
    } else {
      std::memset(send_.data(), me == 0 ? pattern(0, 0, tag) : 0, bytes_);
    }
  }
  void call(const coll::options& o, bool mpi = false) {
    const int n = static_cast<int>(bytes_);
    if (mpi && op_ == "alltoall")
      MPI_Alltoall(send_.data(), n, MPI_BYTE, recv_.data(), n, MPI_BYTE, MPI_COMM_WORLD);
    else if (mpi)
      MPI_Bcast(send_.data(), n, MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (op_ == "alltoall")
      coll::alltoall(w_, std::span<const std::byte>(send_), std::span<std::byte>(recv_), o);
    else
      coll::broadcast(w_, std::span<std::byte>(send_), 0, o);
  }
  // Empty when the buffers hold what the collective should have delivered for `tag`.
  std::string check(int tag) const {
    const int me = w_.rank();
    const std::size_t members = op_ == "alltoall" ? static_cast<std::size_t>(w_.size()) : 1;
    const std::vector<std::byte>& got = op_ == "alltoall" ? recv_ : send_;
    for (std::size_t i = 0; i < members; ++i) {
      const int want =
          op_ == "alltoall" ? pattern(static_cast<int>(i), me, tag) : pattern(0, 0, tag);
      for (std::size_t k = 0; k < bytes_; ++k)
        if (std::to_integer<int>(got[i * bytes_ + k]) != want)
          return "rank " + std::to_string(me) + ": " + op_ + " of " + std::to_string(bytes_) +
                 " B: byte " + std::to_string(i * bytes_ + k) + " is " +
                 std::to_string(std::to_integer<int>(got[i * bytes_ + k])) + ", expected " +
                 std::to_string(want);
    }
    return {};
  }

 private:
  static int pattern(int from, int to, int tag) {
    return (from * 37 + to * 11 + tag * 5 + 1) & 0xff;
  }
  const coll::group& w_;
  std::string op_;
  std::size_t bytes_;
  std::vector<std::byte> send_, recv_;
};

std::vector<coll::algorithm> algorithms_for(const std::string& op, int size,
                                            const std::vector<std::string>& wanted) {
  std::vector<coll::algorithm> all;
  if (op == "alltoall") {
    all = {coll::algorithm::bruck, coll::algorithm::send_recv};
    if ((size & (size - 1)) == 0) all.push_back(coll::algorithm::pairwise);
  } else {
    all = {coll::algorithm::binomial, coll::algorithm::scatter_allgather};
  }
  if (wanted.empty()) return all;
  std::vector<coll::algorithm> out;
  for (coll::algorithm a : all)
    if (std::find(wanted.begin(), wanted.end(), std::string(coll::to_string(a))) != wanted.end())
      out.push_back(a);
  return out;
}

double pct(double ratio) {
  return 100.0 * ratio;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "gaea-coll-energy-bench: gaea::coll's per-call energy strategy ([A2A-Energy]) "
      "against full power"};
  apps::conventions(app, "gaea-coll-energy-bench");
  std::string ops_text = "alltoall,broadcast", algos_text;
  std::size_t min_bytes = 64, max_bytes = 1 << 20, factor = 4;
  int reps = 5, warmup = 3;
  std::size_t min_iters = 3, max_iters = 2000;
  double batch_ms = 25;
  std::string json_path;
  app.add_option("--ops", ops_text, "operations: alltoall,broadcast")->capture_default_str();
  app.add_option("--algos", algos_text,
                 "algorithms to run (default: bruck,send_recv,pairwise for alltoall — pairwise "
                 "only on power-of-two rank counts — and binomial,scatter_allgather for "
                 "broadcast)");
  app.add_option("--min", min_bytes, "smallest size (alltoall: the block per member)")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  app.add_option("--max", max_bytes, "largest size (always measured)")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  app.add_option("--factor", factor, "size step")
      ->check(CLI::Range(2, 1 << 20))
      ->capture_default_str();
  app.add_option("--reps", reps, "repetitions (each runs a batch of both variants)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--warmup", warmup, "warm-up calls per variant, per algorithm and size")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--batch-ms", batch_ms, "target length of a batch (sets its call count)")
      ->check(CLI::Range(0.1, 10000.0))
      ->capture_default_str();
  app.add_option("--min-iters", min_iters, "fewest calls per batch")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--max-iters", max_iters, "most calls per batch")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--json", json_path, "write the results here (temporary file, then rename)");
  std::vector<std::string> ops, wanted_algos;
  app.callback([&] {
    if (min_bytes < 1 || max_bytes < min_bytes) throw gaea::error("need 1 <= --min <= --max");
    if (max_iters < min_iters) throw gaea::error("need --min-iters <= --max-iters");
    ops = gaea_bench::split_list(ops_text);
    wanted_algos = gaea_bench::split_list(algos_text);
    for (const std::string& op : ops)
      if (op != "alltoall" && op != "broadcast")
        throw gaea::error("unknown operation '" + op + "' (alltoall, broadcast)");
    for (const std::string& a : wanted_algos)
      if (!coll::parse_algorithm(a)) throw gaea::error("unknown algorithm '" + a + "'");
  });
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;

  // An error on any rank ends the job with its message on every rank.
  return gaea::run_main("gaea-coll-energy-bench", &argc, &argv, [&](gaea::runtime& rt) {
    const coll::group& w = coll::world();  // collective on first use
    // Every collective of the bench's own bookkeeping runs without the strategy.
    coll::scoped_energy quiet(coll::energy_mode::off);
    const bool root = rt.rank() == 0;
    int status = 0;

    if (w.size() < 2) {
      if (root) std::fprintf(stderr, "gaea-coll-energy-bench needs 2 or more ranks\n");
      return 2;
    }
    if (!rt.dvfs().active() && !rt.throttle().active()) {
      if (root)
        std::fprintf(stderr,
                     "no DVFS actuator or throttle is active (%s; %s): the strategy would change "
                     "nothing. Set GAEA_DVFS=simulated GAEA_THROTTLE=simulated on a machine "
                     "without cpufreq and MSRs.\n",
                     rt.dvfs_reason().c_str(), rt.throttle_reason().c_str());
      return 2;
    }
    const std::string mode(gaea::progress::to_string(rt.progress().current_mode()));
    if (root && mode != "spin")
      std::fprintf(stderr,
                   "warning: GAEA_PROGRESS=%s: the progress governor may move the DVFS actuator "
                   "too; run under GAEA_PROGRESS=spin for the collectives' transitions alone\n",
                   mode.c_str());

    std::array<char, 64> host{};
    gethostname(host.data(), host.size() - 1);
    const std::vector<std::array<char, 64>> hosts = coll::gather(w, host, 0);  // root writes

    json out = gaea_bench::run_info(rt, "coll_energy");
    const gaea::energy::model_params& p = rt.model();
    out["progress_mode"] = mode;
    out["throttle"] = {{"actuator", std::string(rt.throttle().name())},
                       {"hardware", rt.throttle().hardware()},
                       {"cpus", rt.throttle().cpus()},
                       {"transition_cost_ns", rt.throttle().transition_cost_ns()},
                       {"reason", rt.throttle_reason()}};
    out["dvfs"]["transition_cost_ns"] = rt.dvfs().transition_cost_ns();
    out["model"] = {{"source", p.source},
                    {"p_static_w", p.p_static_w},
                    {"p_dyn_w", p.p_dyn_w},
                    {"p_dyn_other_w", p.p_dyn_other_w},
                    {"f_max_khz", p.f_max_khz},
                    {"f_min_khz", p.f_min_khz},
                    {"transition_ns", p.transition_ns},
                    {"transition_j", p.transition_j},
                    {"throttle_transition_ns", p.throttle_transition_ns},
                    {"throttle_transition_j", p.throttle_transition_j}};
    const bool simulated = !rt.dvfs().hardware() && !rt.throttle().hardware();
    out["simulated_actuators"] = simulated;
    if (simulated) out["caveat"] = model_caveat;
    out["hosts"] = json::array();
    for (const auto& h : hosts)
      out["hosts"].push_back(std::string(h.data()));
    out["node_size"] = rt.node_size();
    out["block_placement"] = w.block_placement();
    out["load_start"] = gaea_bench::load_average();
    out["args"] = {{"ops", ops},           {"min", min_bytes},       {"max", max_bytes},
                   {"factor", factor},     {"reps", reps},           {"warmup", warmup},
                   {"batch_ms", batch_ms}, {"min_iters", min_iters}, {"max_iters", max_iters}};
    out["results"] = json::array();
    out["failures"] = json::array();
    out["complete"] = false;

    const gaea::energy_reading e0 = rt.energy();
    // Fixed before any strategy call (see throttle_attribution); the model meter only.
    std::optional<throttle_attribution> attr;
    if (!e0.measured) attr.emplace(rt);
    const throttle_attribution* attr_ptr = attr ? &*attr : nullptr;
    out["attributed_energy"] =
        attr ? "the meter's reading with the throttle's removed cycles charged at f_min, where the "
               "strategy throttles, instead of spread over both frequencies (energy::rank_usage)"
             : "not computed (a hardware meter)";
    if (root) {
      std::printf(
          "gaea-coll-energy-bench: %d ranks on %d node(s), %d per node, %s placement; "
          "GAEA_PROGRESS=%s\n",
          rt.size(), rt.nodes(), rt.node_size(), w.block_placement() ? "block" : "cyclic",
          mode.c_str());
      std::printf("DVFS: %s\nthrottle: %s\nenergy: %s\n", rt.dvfs_reason().c_str(),
                  rt.throttle_reason().c_str(), gaea_bench::energy_label(e0).c_str());
      if (simulated) std::printf("NOTE: %s\n", model_caveat);
      std::printf(
          "full = energy off (full power), strat = energy on (the strategy), mpi = Open MPI's "
          "call (MPI_COMM_WORLD, defaults; same model, full power); vsMPI = strategy vs mpi. "
          "Per call: time "
          "= max over ranks, median of %d reps; energy summed over ranks; transitions "
          "per rank; trans = logged transition time per call (max over ranks).\n",
          reps);
    }

    std::vector<std::size_t> sizes;
    for (std::size_t b = min_bytes; b < max_bytes; b *= factor)
      sizes.push_back(b);
    sizes.push_back(max_bytes);

    int tag = 0;
    for (const std::string& op : ops) {
      const std::vector<coll::algorithm> algos = algorithms_for(op, w.size(), wanted_algos);
      if (root) {
        std::printf(
            "\n%s\n%-17s %8s %5s %10s %10s %7s %10s %10s %7s %7s %6s %6s %8s %7s %10s %8s %8s\n",
            op.c_str(), "algorithm", "size", "iters", "full us", "strat us", "time%", "full uJ",
            "strat uJ", "save%", "attr%", "dvfs", "thr", "trans us", "thr%", "mpi us", "vsMPI t%",
            "vsMPI e%");
      }
      for (std::size_t bytes : sizes) {
        workload wl(w, op, bytes);
        for (coll::algorithm algo : algos) {
          // Warm-up of both variants; its slower per-call time sets the batch's call count (the
          // same on every rank: the maximum over ranks).
          double warm_us = 0;
          for (const variant& v : variants) {
            coll::options o;
            o.algo = algo;
            o.energy = v.mode;
            coll::barrier(w);
            const std::int64_t t0 = monotonic_ns();
            for (int i = 0; i < warmup; ++i)
              wl.call(o, v.mpi);
            warm_us = std::max(warm_us, static_cast<double>(monotonic_ns() - t0) * 1e-3 / warmup);
          }
          warm_us = gaea_bench::max_over_ranks(warm_us);
          const auto iters = std::clamp(
              static_cast<std::size_t>(std::ceil(batch_ms * 1e3 / std::max(warm_us, 1e-3))),
              min_iters, max_iters);

          std::array<std::vector<batch_result>, variants.size()> by_variant;
          std::string problem;
          for (int r = 0; r < reps; ++r) {
            for (std::size_t k = 0; k < variants.size(); ++k) {
              const std::size_t vi = r % 2 == 0 ? k : variants.size() - 1 - k;  // alternate order
              wl.prepare(++tag);
              const auto call = [&wl, mpi = variants[vi].mpi](const coll::options& o) {
                wl.call(o, mpi);
              };
              by_variant[vi].push_back(
                  run_batch(rt, w, iters, variants[vi].mode, call, algo, attr_ptr));
              if (problem.empty()) problem = wl.check(tag);
            }
          }
          try {
            coll::agree(w, problem);
          } catch (const std::exception& e) {
            status = 1;
            out["failures"].push_back({{"op", op},
                                       {"algo", std::string(coll::to_string(algo))},
                                       {"bytes", bytes},
                                       {"error", e.what()}});
            if (root) std::fprintf(stderr, "wrong data: %s\n", e.what());
          }

          // Medians over the repetitions, and paired ratios (each repetition's strategy batch
          // against its full-power neighbour).
          const auto med = [&](std::size_t vi, double batch_result::*f) {
            std::vector<double> v;
            for (const batch_result& b : by_variant[vi])
              v.push_back(b.*f);
            return gaea_bench::median(v);
          };
          const auto paired = [&](double batch_result::*f) {
            std::vector<double> v;
            for (int r = 0; r < reps; ++r)
              if (by_variant[0][r].*f > 0) v.push_back(by_variant[1][r].*f / by_variant[0][r].*f);
            return gaea_bench::median(v);
          };
          const double t_full = med(0, &batch_result::call_us),
                       t_on = med(1, &batch_result::call_us);
          const double e_full = med(0, &batch_result::joules), e_on = med(1, &batch_result::joules);
          const double a_full = med(0, &batch_result::attr_joules),
                       a_on = med(1, &batch_result::attr_joules);
          // The same model charges MPI's call (full power, its measured time): one footing.
          const double t_mpi = med(2, &batch_result::call_us),
                       e_mpi = med(2, &batch_result::joules);
          const double time_vs_mpi = pct(t_on / t_mpi - 1), saving_vs_mpi = pct(1 - e_on / e_mpi);
          const double time_cost = pct(t_on / t_full - 1), saving = pct(1 - e_on / e_full),
                       attr_saving = pct(1 - a_on / a_full);
          const double ranks = w.size();
          json row = {{"op", op},
                      {"algo", std::string(coll::to_string(algo))},
                      {"bytes", bytes},
                      {"iters", iters},
                      {"warmup_call_us", warm_us},
                      {"time_cost_pct", time_cost},
                      {"energy_saving_pct", saving},
                      {"time_cost_vs_mpi_pct", time_vs_mpi},
                      {"energy_saving_vs_mpi_pct", saving_vs_mpi},
                      {"attributed_energy_saving_pct", attr_saving},
                      {"paired_time_ratio", paired(&batch_result::call_us)},
                      {"paired_energy_ratio", paired(&batch_result::joules)},
                      {"paired_attributed_energy_ratio", paired(&batch_result::attr_joules)}};
          for (std::size_t vi = 0; vi < variants.size(); ++vi) {
            json reps_json = json::array();
            for (const batch_result& b : by_variant[vi])
              reps_json.push_back(to_json(b));
            row[variants[vi].name] = {
                {"call_us", med(vi, &batch_result::call_us)},
                {"joules_per_call", med(vi, &batch_result::joules)},
                {"attributed_joules_per_call", med(vi, &batch_result::attr_joules)},
                {"dvfs_per_call_per_rank", med(vi, &batch_result::dvfs) / ranks},
                {"throttle_per_call_per_rank", med(vi, &batch_result::thr) / ranks},
                {"transition_us_per_call", med(vi, &batch_result::transition_us)},
                {"cpu_us_per_call", med(vi, &batch_result::cpu_us)},
                {"throttled_share", med(vi, &batch_result::throttled_share)},
                {"reps", std::move(reps_json)}};
          }
          out["results"].push_back(row);
          if (root) {
            std::printf(
                "%-17s %8s %5zu %10.1f %10.1f %+7.1f %10.1f %10.1f %7.1f %7.1f %6.2f %6.2f "
                "%8.1f %7.1f %10.1f %+8.1f %8.1f\n",
                std::string(coll::to_string(algo)).c_str(), gaea_bench::size_label(bytes).c_str(),
                iters, t_full, t_on, time_cost, e_full * 1e6, e_on * 1e6, saving, attr_saving,
                med(1, &batch_result::dvfs) / ranks, med(1, &batch_result::thr) / ranks,
                med(1, &batch_result::transition_us), pct(med(1, &batch_result::throttled_share)),
                t_mpi, time_vs_mpi, saving_vs_mpi);
            std::fflush(stdout);
          }
        }
        if (root && !json_path.empty()) {
          out["load_now"] = gaea_bench::load_average();
          gaea_bench::write_json(json_path, out);
        }
      }
    }
    if (root) {
      std::printf(
          "\ntime%% = strategy/full - 1 (medians); save%% = 1 - strategy/full energy "
          "(runtime::energy() deltas); attr%% = the same with the throttle's removed cycles "
          "charged at f_min, where the strategy throttles (the model meter spreads them over "
          "both frequencies in proportion); dvfs, thr = transitions per call "
          "per rank (strategy); thr%% = share of the calls' CPU cycles the throttle "
          "removed.\n");
      if (simulated) std::printf("NOTE: %s\n", model_caveat);
      if (!json_path.empty()) {
        out["load_end"] = gaea_bench::load_average();
        out["complete"] = true;
        if (!gaea_bench::write_json(json_path, out)) status = 1;
      }
    }
    return status;
    return 0;
  });
}
