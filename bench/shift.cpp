// shift: the one-sided shift pattern of [PASCoL §4.2], run under several wait configurations
// side by side in one process, so that latency, CPU time and energy per byte can be compared.
//
// For every primitive (put, get, acc, strided_put) and message size, every rank runs
//   for it in 1..iters: for i in 1..P-1: dest = (me + i) mod P; op(patch owned by dest); fence
// (a get completes by itself). A block runs --iters iterations, or by default each rank iterates
// until --block-ms has passed and counts its own operations (the operations are one-sided, so
// ranks need not do the same number; time-bounded blocks keep the run time predictable when a
// configuration is 10x slower than another). One global array per primitive; each rank owns at
// least the largest message: 1-D blocks for put/get/acc; for strided_put a 2-D [P*rows x cols]
// array whose patch is a column slab of `rows` rows, so every row is a separate chunk.
//
// Configurations (all in one process, switched with progress::scoped_mode and interleaved: for
// every size, each repetition runs every configuration once) — polling = (spin, no DVFS),
// polling+dvfs, interrupt, interrupt+dvfs, adaptive, auto = (automatic, DVFS). Each timed block is
// enclosed by barriers. Reported per (primitive, size, configuration), medians over repetitions:
//   latency      max over ranks of (time of the operations / operations), in us
//   ratio        latency / latency of polling
//   power        average power over the block (joules / wall time) / polling's: [PASCoL]'s
//                normalised power
//   CPU-s/MB     process CPU time (all threads) of all ranks over the block, per MB (1e6 B) moved
//                by all ranks; the block includes its closing barrier
//   J/MB         energy-meter delta summed over ranks (one rank per node if the meter is a
//                hardware counter) per MB; the caption says measured or estimated
//   blocks/op, wakeups/op   progress-telemetry deltas of all ranks per operation
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench_common.hpp"
#include "cli.hpp"
#include "gaea/base/clock.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/energy/actuator.hpp"
#include "gaea/ga/global_array.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"

namespace {

using gaea::ga::index_t;
using gaea::ga::patch;
using gaea_bench::size_label;
using gaea_bench::wait_config;
namespace progress = gaea::progress;

enum class prim { put, get, acc, strided_put };

std::optional<prim> parse_prim(const std::string& s) {
  if (s == "put") return prim::put;
  if (s == "get") return prim::get;
  if (s == "acc") return prim::acc;
  if (s == "strided_put") return prim::strided_put;
  return std::nullopt;
}

const char* prim_name(prim p) {
  switch (p) {
    case prim::put:
      return "put";
    case prim::get:
      return "get";
    case prim::acc:
      return "acc";
    case prim::strided_put:
      return "strided_put";
  }
  return "?";
}

/// One timed block, already reduced over ranks.
struct sample {
  double latency_us = 0;  // max over ranks of op time / ops
  double wall_s = 0;      // max over ranks of the block (operations + closing barrier)
  double cpu_s = 0;       // summed over ranks
  double energy_j = 0;    // summed over ranks (one per node when measured)
  double mb = 0;          // MB (1e6 B) moved by all ranks
  double ops = 0;         // operations of all ranks
  double blocks = 0, wakeups = 0, dvfs_lowered = 0;
  std::array<double, progress::wait_states> state_wall_s{}, state_cpu_s{};
};

/// The arrays and the patches each rank targets.
class shift_arrays {
 public:
  shift_arrays(gaea::runtime& rt, const std::vector<prim>& prims, std::size_t max_bytes,
               index_t rows)
      : rt_(rt), rows_(rows) {
    const index_t p = rt.size();
    const auto n = static_cast<index_t>(max_bytes / sizeof(double));
    auto wants = [&](prim x) { return std::find(prims.begin(), prims.end(), x) != prims.end(); };
    // Every array is created in the same order on every rank (construction is collective).
    for (prim x : {prim::put, prim::get, prim::acc}) {
      if (!wants(x)) continue;
      arrays_[x] = std::make_unique<gaea::global_array<double>>(
          std::string("shift_") + prim_name(x), gaea::ga::index{p * n}, gaea::ga::index{n});
    }
    if (wants(prim::strided_put)) {
      // The chunk hint keeps whole rows of `cols` on one rank: the grid is P x 1.
      const index_t cols = n / rows;
      arrays_[prim::strided_put] = std::make_unique<gaea::global_array<double>>(
          "shift_strided_put", gaea::ga::index{p * rows, cols}, gaea::ga::index{rows, cols});
    }
    for (auto& [x, a] : arrays_) {
      a->zero();
      for (int r = 0; r < rt.size(); ++r) {
        const patch b = a->distribution(r);
        const bool ok = x == prim::strided_put ? b.extent(0) == rows && b.extent(1) * rows >= n
                                               : b.extent(0) >= n;
        if (!ok)
          throw gaea::error("shift: array " + a->name() + " gives rank " + std::to_string(r) +
                            " the block " + b.str() + ", smaller than the largest message");
      }
    }
    buf_.assign(static_cast<std::size_t>(n), 1.0);
  }

  /// Patches on every destination for a message of `bytes` (empty for this rank).
  std::vector<patch> patches(prim x, std::size_t bytes) const {
    const auto elems = static_cast<index_t>(bytes / sizeof(double));
    std::vector<patch> out(static_cast<std::size_t>(rt_.size()));
    for (int r = 0; r < rt_.size(); ++r) {
      const patch b = arrays_.at(x)->distribution(r);
      if (x == prim::strided_put)
        out[static_cast<std::size_t>(r)] = {{b.lo[0], b.lo[1]},
                                            {b.lo[0] + rows_ - 1, b.lo[1] + elems / rows_ - 1}};
      else
        out[static_cast<std::size_t>(r)] = {{b.lo[0]}, {b.lo[0] + elems - 1}};
    }
    return out;
  }

  /// The shift loop of one block: iterations of (P-1) operations, each completed before the
  /// next. `fixed_iters` > 0: exactly that many; else until `block_ns` has passed (and at least
  /// `min_iters`). Returns the iterations done.
  std::int64_t run(prim x, std::size_t bytes, std::int64_t fixed_iters, std::int64_t min_iters,
                   std::int64_t block_ns, const std::vector<patch>& dest_patch) {
    gaea::global_array<double>& a = *arrays_.at(x);
    const int me = rt_.rank(), np = rt_.size();
    const std::span<double> buf(buf_.data(), bytes / sizeof(double));
    auto iteration = [&] {
      for (int i = 1; i < np; ++i) {
        const patch& p = dest_patch[static_cast<std::size_t>((me + i) % np)];
        switch (x) {
          case prim::put:
          case prim::strided_put:
            a.put(p, buf);
            a.fence();
            break;
          case prim::get:
            a.get(p, buf);  // complete on return
            break;
          case prim::acc:
            a.acc(p, buf, 1.0);
            a.fence();
            break;
        }
      }
    };
    if (fixed_iters > 0) {
      for (std::int64_t it = 0; it < fixed_iters; ++it)
        iteration();
      return fixed_iters;
    }
    // Time-bounded: the clock is read every `stride` iterations, the stride doubling while
    // checks come less than 20 us apart, so sub-microsecond operations pay almost nothing for it
    // and the block overshoots by at most ~40 us plus one iteration.
    const std::int64_t start = gaea::monotonic_ns();
    std::int64_t iters = 0, stride = 1, next_check = 1, last_check = start;
    for (;;) {
      iteration();
      if (++iters < next_check) continue;
      const std::int64_t now = gaea::monotonic_ns();
      if (now - start >= block_ns && iters >= min_iters) return iters;
      if (now - last_check < 20000) stride *= 2;
      last_check = now;
      next_check = iters + stride;
    }
  }

 private:
  gaea::runtime& rt_;
  index_t rows_;
  std::map<prim, std::unique_ptr<gaea::global_array<double>>> arrays_;
  std::vector<double> buf_;
};

/// How long a block runs.
struct block_params {
  std::int64_t fixed_iters = 0;  // > 0: exactly this many iterations
  std::int64_t min_iters = 4;    // time-bounded blocks: at least this many
  std::int64_t block_ns = 40000000;
};

/// Runs one block under `c` and reduces its figures over the ranks (collective).
sample timed_block(gaea::runtime& rt, shift_arrays& arrays, prim x, std::size_t bytes,
                   const block_params& bp, const std::vector<patch>& dest_patch,
                   const wait_config& c) {
  progress::telemetry_totals t0, t1;
  double e0 = 0, e1 = 0;
  std::int64_t cpu0 = 0, cpu1 = 0, w0 = 0, w1 = 0, w2 = 0;
  bool measured = false;
  std::int64_t iters = 0;
  {
    progress::scoped_mode guard(rt.progress(), c.mode, c.dvfs);
    rt.barrier();  // every rank has switched before the clock starts
    t0 = rt.progress().totals();
    e0 = rt.energy().joules;
    cpu0 = gaea::process_cpu_ns();
    w0 = gaea::monotonic_ns();
    iters = arrays.run(x, bytes, bp.fixed_iters, bp.min_iters, bp.block_ns, dest_patch);
    w1 = gaea::monotonic_ns();
    rt.barrier();
    w2 = gaea::monotonic_ns();
    cpu1 = gaea::process_cpu_ns();
    const gaea::energy_reading e = rt.energy();
    e1 = e.joules;
    measured = e.measured;
    t1 = rt.progress().totals();
  }
  const double ops = static_cast<double>(iters) * (rt.size() - 1);
  // Reductions outside the timed region.
  const gaea::coll::group& world = gaea::coll::world();
  std::array<double, 2> mx{gaea_bench::seconds(w1 - w0) / ops * 1e6, gaea_bench::seconds(w2 - w0)};
  gaea::coll::allreduce(world, std::span<double>(mx), gaea::coll::reduce_op::max);
  // Sums over ranks, reduced in place.
  std::vector<double> sum{gaea_bench::seconds(cpu1 - cpu0),
                          ops * static_cast<double>(bytes) * 1e-6,
                          ops,
                          static_cast<double>(t1.blocks - t0.blocks),
                          static_cast<double>(t1.wakeups - t0.wakeups),
                          static_cast<double>(t1.dvfs_lowered - t0.dvfs_lowered)};
  for (std::size_t s = 0; s < progress::wait_states; ++s)
    sum.push_back(gaea_bench::seconds(t1.wall_ns[s] - t0.wall_ns[s]));
  for (std::size_t s = 0; s < progress::wait_states; ++s)
    sum.push_back(gaea_bench::seconds(t1.cpu_ns[s] - t0.cpu_ns[s]));
  gaea::coll::allreduce(world, std::span<double>(sum), gaea::coll::reduce_op::sum);
  sample s;
  s.latency_us = mx[0];
  s.wall_s = mx[1];
  s.cpu_s = sum[0];
  s.mb = sum[1];
  s.ops = sum[2];
  s.blocks = sum[3];
  s.wakeups = sum[4];
  s.dvfs_lowered = sum[5];
  for (std::size_t k = 0; k < progress::wait_states; ++k) {
    s.state_wall_s[k] = sum[6 + k];
    s.state_cpu_s[k] = sum[6 + progress::wait_states + k];
  }
  s.energy_j = gaea_bench::sum_energy(rt, e1 - e0, measured);
  return s;
}

/// Medians over repetitions of one (primitive, size, configuration).
struct summary {
  double latency_us, ratio, cpu_s_per_mb, energy_j_per_mb, blocks_per_op, wakeups_per_op,
      dvfs_lowered_per_op, wall_s, ops, power_w, power_ratio;
};

// Average power of a block: the meter's joules over the block's wall time.
double block_power_w(const sample& x) {
  return x.wall_s > 0 ? x.energy_j / x.wall_s : 0;
}

template <class F>
double median_of(const std::vector<sample>& v, F f) {
  std::vector<double> x;
  x.reserve(v.size());
  for (const sample& s : v)
    x.push_back(f(s));
  return gaea_bench::median(x);
}

summary summarize(const std::vector<sample>& v, double polling_latency_us, double polling_power_w) {
  summary s{};
  s.latency_us = median_of(v, [](const sample& x) { return x.latency_us; });
  s.ratio = polling_latency_us > 0 ? s.latency_us / polling_latency_us : 0;
  s.power_w = median_of(v, block_power_w);
  s.power_ratio = polling_power_w > 0 ? s.power_w / polling_power_w : 0;
  s.cpu_s_per_mb = median_of(v, [](const sample& x) { return x.cpu_s / x.mb; });
  s.energy_j_per_mb = median_of(v, [](const sample& x) { return x.energy_j / x.mb; });
  s.blocks_per_op = median_of(v, [](const sample& x) { return x.blocks / x.ops; });
  s.wakeups_per_op = median_of(v, [](const sample& x) { return x.wakeups / x.ops; });
  s.dvfs_lowered_per_op = median_of(v, [](const sample& x) { return x.dvfs_lowered / x.ops; });
  s.wall_s = median_of(v, [](const sample& x) { return x.wall_s; });
  s.ops = median_of(v, [](const sample& x) { return x.ops; });
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"shift: one-sided shift benchmark under several wait configurations"};
  apps::conventions(app, "shift");
  std::string prims_text = "put,get,acc,strided_put";
  std::string configs_text = "polling,polling+dvfs,interrupt,interrupt+dvfs,adaptive,auto";
  std::uint64_t min_bytes = 1024, max_bytes = 4u << 20;
  std::uint64_t factor = 4;
  std::int64_t iters_opt = 0, rows = 16;
  int reps = 5;
  double block_ms = 40;
  std::int64_t min_iters = 4;
  std::string json_path;
  app.add_option("--prims", prims_text, "primitives: put,get,acc,strided_put")
      ->capture_default_str();
  app.add_option("--configs", configs_text,
                 "wait configurations: polling, polling+dvfs, interrupt, interrupt+dvfs, "
                 "adaptive, auto, or <mode>[+dvfs|-nodvfs]")
      ->capture_default_str();
  app.add_option("--min", min_bytes, "smallest message (e.g. 1KiB)")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  app.add_option("--max", max_bytes, "largest message (e.g. 4MiB)")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  app.add_option("--factor", factor, "size step (multiplier)")
      ->check(CLI::Range(2, 1024))
      ->capture_default_str();
  app.add_option("--iters", iters_opt,
                 "iterations per block (0: each rank iterates until --block-ms has passed)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--block-ms", block_ms, "duration of a time-bounded block")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--min-iters", min_iters, "fewest iterations of a time-bounded block")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--reps", reps, "repetitions per (size, configuration); medians are reported")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--rows", rows, "rows of the strided_put patch (each row is one chunk)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--json", json_path, "write the results as JSON to this file (rank 0)");
  std::vector<prim> prims;
  std::vector<wait_config> configs;
  app.callback([&] {
    for (const std::string& s : gaea_bench::split_list(prims_text)) {
      const auto p = parse_prim(s);
      if (!p) throw gaea::error("unknown primitive '" + s + "'");
      prims.push_back(*p);
    }
    configs = gaea_bench::parse_configs(configs_text);
    if (prims.empty()) throw gaea::error("no primitive given");
    if (min_bytes < sizeof(double) || min_bytes > max_bytes)
      throw gaea::error("need 8 <= --min <= --max");
  });
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;

  // An error on any rank ends the job with its message on every rank.
  return gaea::run_main("shift", &argc, &argv, [&](gaea::runtime& rt) {
    if (rt.size() < 2) {
      if (rt.rank() == 0) std::fprintf(stderr, "shift: needs at least 2 ranks\n");
      return 2;
    }
    std::vector<std::size_t> sizes;
    for (std::uint64_t s = min_bytes; s <= max_bytes; s *= factor)
      sizes.push_back(static_cast<std::size_t>(s));
    // Messages are whole doubles; strided ones whole rows of doubles.
    const auto unit = static_cast<std::size_t>(
        std::find(prims.begin(), prims.end(), prim::strided_put) != prims.end() ? rows * 8 : 8);
    for (std::size_t s : sizes)
      if (s % unit != 0) {
        if (rt.rank() == 0)
          std::fprintf(stderr, "shift: size %zu is not a multiple of %zu B (rows x 8 B)\n", s,
                       unit);
        return 2;
      }
    // The polling reference for the ratio column: (spin, no DVFS) if present, else the first.
    std::size_t ref = 0;
    for (std::size_t i = 0; i < configs.size(); ++i)
      if (configs[i].mode == progress::mode::spin && !configs[i].dvfs) {
        ref = i;
        break;
      }

    shift_arrays arrays(rt, prims, sizes.back(), rows);
    nlohmann::json out = gaea_bench::run_info(rt, "shift");  // also chooses the meter, once
    const gaea::energy_reading meter = rt.energy();
    out["parameters"] = {{"prims", prims_text},    {"configs", configs_text},
                         {"sizes", sizes},         {"reps", reps},
                         {"iters", iters_opt},     {"block_ms", block_ms},
                         {"min_iters", min_iters}, {"rows", rows},
                         {"mb", "1e6 bytes"},      {"ratio_reference", configs[ref].name}};
    out["results"] = nlohmann::json::array();
    if (rt.rank() == 0) {
      std::printf("# shift: %d ranks on %d node(s), UCX_TLS=%s, DVFS %s (%s), progress %s core\n",
                  rt.size(), rt.nodes(), out["ucx_tls"].get<std::string>().c_str(),
                  std::string(rt.dvfs().name()).c_str(),
                  rt.dvfs().hardware() ? "hardware" : "not hardware",
                  rt.progress().share_core() ? "shares a" : "has its own");
      std::printf("# energy: %s\n", gaea_bench::energy_label(meter).c_str());
      if (iters_opt > 0)
        std::printf("# blocks of %lld iterations", static_cast<long long>(iters_opt));
      else
        std::printf("# time-bounded blocks of %.0f ms (>= %lld iterations)", block_ms,
                    static_cast<long long>(min_iters));
      std::printf(
          "; medians of %d reps; latency = max over ranks of time/ops; ratio vs %s; "
          "MB = 1e6 B\n",
          reps, configs[ref].name.c_str());
      std::fflush(stdout);
    }

    block_params bp;
    bp.fixed_iters = iters_opt;
    bp.min_iters = min_iters;
    bp.block_ns = std::llround(block_ms * 1e6);
    block_params warm = bp;  // a short warm-up block
    warm.block_ns = std::min<std::int64_t>(bp.block_ns, 5000000);
    warm.min_iters = 2;
    if (warm.fixed_iters > 0) warm.fixed_iters = std::min<std::int64_t>(warm.fixed_iters, 8);
    for (prim x : prims) {
      if (rt.rank() == 0)
        std::printf("\n== %s ==\n%-9s %-15s %7s %10s %7s %7s %10s %10s %9s %9s %8s\n", prim_name(x),
                    "size", "config", "ops/rk", "lat_us", "ratio", "power", "CPU-s/MB",
                    meter.measured ? "J/MB(meas)" : "J/MB(est)", "blocks/op", "wakeup/op",
                    "dvfs/op");
      for (std::size_t bytes : sizes) {
        const std::vector<patch> dest_patch = arrays.patches(x, bytes);
        // Warm-up: first touch, remote keys, protocol set-up.
        timed_block(rt, arrays, x, bytes, warm, dest_patch, configs[ref]);
        std::vector<std::vector<sample>> samples(configs.size());
        for (int r = 0; r < reps; ++r)
          for (std::size_t c = 0; c < configs.size(); ++c)
            samples[c].push_back(timed_block(rt, arrays, x, bytes, bp, dest_patch, configs[c]));
        const double ref_lat =
            median_of(samples[ref], [](const sample& s) { return s.latency_us; });
        const double ref_power = median_of(samples[ref], block_power_w);
        for (std::size_t c = 0; c < configs.size(); ++c) {
          const summary m = summarize(samples[c], ref_lat, ref_power);
          if (rt.rank() == 0)
            std::printf("%-9s %-15s %7lld %10.2f %7.2f %7.2f %10.3g %10.3g %9.3f %9.3f %8.3f\n",
                        size_label(bytes).c_str(), configs[c].name.c_str(),
                        std::llround(m.ops / rt.size()), m.latency_us, m.ratio, m.power_ratio,
                        m.cpu_s_per_mb, m.energy_j_per_mb, m.blocks_per_op, m.wakeups_per_op,
                        m.dvfs_lowered_per_op);
          nlohmann::json reps_json = nlohmann::json::array();
          for (const sample& s : samples[c]) {
            nlohmann::json st_wall, st_cpu;
            for (std::size_t k = 0; k < progress::wait_states; ++k) {
              const std::string name(progress::to_string(static_cast<progress::wait_state>(k)));
              st_wall[name] = s.state_wall_s[k];
              st_cpu[name] = s.state_cpu_s[k];
            }
            reps_json.push_back({{"latency_us", s.latency_us},
                                 {"block_wall_s", s.wall_s},
                                 {"cpu_s", s.cpu_s},
                                 {"energy_j", s.energy_j},
                                 {"mb", s.mb},
                                 {"ops", s.ops},
                                 {"blocks", s.blocks},
                                 {"wakeups", s.wakeups},
                                 {"dvfs_lowered", s.dvfs_lowered},
                                 {"state_wall_s", st_wall},
                                 {"state_cpu_s", st_cpu}});
          }
          out["results"].push_back({{"prim", prim_name(x)},
                                    {"bytes", bytes},
                                    {"config", configs[c].name},
                                    {"mode", std::string(progress::to_string(configs[c].mode))},
                                    {"dvfs", configs[c].dvfs},
                                    {"ops_per_rank", m.ops / rt.size()},
                                    {"latency_us", m.latency_us},
                                    {"latency_ratio", m.ratio},
                                    {"power_w", m.power_w},
                                    {"power_ratio", m.power_ratio},
                                    {"cpu_s_per_mb", m.cpu_s_per_mb},
                                    {"energy_j_per_mb", m.energy_j_per_mb},
                                    {"energy_kind", meter.measured ? "measured" : "estimated"},
                                    {"blocks_per_op", m.blocks_per_op},
                                    {"wakeups_per_op", m.wakeups_per_op},
                                    {"dvfs_lowered_per_op", m.dvfs_lowered_per_op},
                                    {"block_wall_s", m.wall_s},
                                    {"reps", reps_json}});
        }
        if (rt.rank() == 0) std::fflush(stdout);
      }
    }
    if (rt.rank() == 0 && !json_path.empty() && !gaea_bench::write_json(json_path, out)) return 1;
    return 0;
  });
}
