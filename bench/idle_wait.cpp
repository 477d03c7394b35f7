// idle_wait: what waiting costs while another rank computes. Rank 0 runs a busy loop (no library
// calls) for --seconds while ranks 1..P-1 wait for it in rt.barrier() (a "sync"), once per wait
// mode, all in one process (progress::scoped_mode). Run it with more ranks than cores (e.g. 4 on
// 2) to see starvation.
//   waiting ranks: process CPU time (main + progress thread) over the wait, % of one core, plus
//                  the wake-ups and blocks of their waits and their energy (meter delta)
//   rank 0:        loop iterations per second, compared with a solo run of the same loop just
//                  before (every rank parked: progress threads blocked, other ranks asleep
//                  outside the library)
// Results: medians over --reps (3); a table on rank 0 and JSON with --json.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench_common.hpp"
#include "cli.hpp"
#include "gaea/base/clock.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/energy/actuator.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"

namespace {

namespace progress = gaea::progress;
using gaea_bench::wait_config;

/// A dependent floating-point chain the compiler cannot drop; returns iterations done.
std::uint64_t compute_for(double seconds) {
  constexpr std::uint64_t chunk = 20000;  // ~tens of us between clock reads
  const std::int64_t end = gaea::monotonic_ns() + static_cast<std::int64_t>(seconds * 1e9);
  // Operands from volatiles: with constants the compiler folds the chain (1.0 is its fixed point).
  volatile double seed = 1.0, mul = 0.9999999, add = 1e-7;
  double x = seed;
  const double a = mul, c = add;
  std::uint64_t n = 0;
  while (gaea::monotonic_ns() < end) {
    for (std::uint64_t k = 0; k < chunk; ++k)
      x = x * a + c;
    n += chunk;
  }
  volatile double sink = x;
  static_cast<void>(sink);
  return n;
}

/// Per-rank figures of one waiting period, in the order they are gathered.
enum field : std::size_t {
  f_wall_s,
  f_cpu_s,
  f_energy_j,
  f_wakeups,
  f_blocks,
  f_dvfs_lowered,
  f_spin_s,
  f_sleep_s,
  f_block_s,
  f_rate,  // rank 0 only: iterations / s
  f_count
};

/// Solo rate of rank 0's loop: every progress thread blocked, the other ranks asleep.
double solo_rate(gaea::runtime& rt, double seconds) {
  progress::scoped_mode guard(rt.progress(), progress::mode::interrupt, false);
  rt.barrier();
  double rate = 0;
  if (rt.rank() == 0) {
    const std::int64_t t0 = gaea::monotonic_ns();
    const std::uint64_t n = compute_for(seconds);
    rate = static_cast<double>(n) / gaea_bench::seconds(gaea::monotonic_ns() - t0);
  } else {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  }
  rt.barrier();
  return rate;
}

/// One waiting period under `c`; returns every rank's figures on rank 0 (row-major by rank),
/// nothing on the others.
std::vector<double> waiting_period(gaea::runtime& rt, const wait_config& c, double seconds) {
  std::vector<double> mine(f_count, 0.0);
  {
    progress::scoped_mode guard(rt.progress(), c.mode, c.dvfs);
    rt.barrier();
    const progress::telemetry_totals t0 = rt.progress().totals();
    const double e0 = rt.energy().joules;
    const std::int64_t cpu0 = gaea::process_cpu_ns();
    const std::int64_t w0 = gaea::monotonic_ns();
    if (rt.rank() == 0) {
      const std::uint64_t n = compute_for(seconds);
      mine[f_rate] = static_cast<double>(n) / gaea_bench::seconds(gaea::monotonic_ns() - w0);
    }
    rt.barrier();  // ranks 1..P-1 wait here for rank 0
    const std::int64_t w1 = gaea::monotonic_ns();
    const std::int64_t cpu1 = gaea::process_cpu_ns();
    const double e1 = rt.energy().joules;
    const progress::telemetry_totals t1 = rt.progress().totals();
    mine[f_wall_s] = gaea_bench::seconds(w1 - w0);
    mine[f_cpu_s] = gaea_bench::seconds(cpu1 - cpu0);
    mine[f_energy_j] = e1 - e0;
    mine[f_wakeups] = static_cast<double>(t1.wakeups - t0.wakeups);
    mine[f_blocks] = static_cast<double>(t1.blocks - t0.blocks);
    mine[f_dvfs_lowered] = static_cast<double>(t1.dvfs_lowered - t0.dvfs_lowered);
    auto state_s = [&](progress::wait_state s) {
      const auto k = static_cast<std::size_t>(s);
      return gaea_bench::seconds(t1.wall_ns[k] - t0.wall_ns[k]);
    };
    mine[f_spin_s] = state_s(progress::wait_state::spin);
    mine[f_sleep_s] = state_s(progress::wait_state::sleep);
    mine[f_block_s] = state_s(progress::wait_state::block);
  }
  // Only rank 0 reports.
  std::vector<double> all(rt.rank() == 0 ? f_count * static_cast<std::size_t>(rt.size()) : 0);
  gaea::coll::gather(gaea::coll::world(), std::span<const double>(mine), std::span<double>(all), 0);
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"idle_wait: CPU cost of waiting in a sync while rank 0 computes, per wait mode"};
  apps::conventions(app, "idle_wait");
  double seconds = 2.0, solo_seconds = 0;
  std::string modes_text = "spin,adaptive,interrupt,auto";
  int reps = 3;
  std::string json_path;
  app.add_option("--seconds", seconds, "rank 0's compute time per mode")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--solo-seconds", solo_seconds, "length of the solo run (0: --seconds)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--modes", modes_text,
                 "wait modes: spin, adaptive, interrupt, auto (auto = with DVFS), "
                 "<mode>+dvfs, <mode>-nodvfs")
      ->capture_default_str();
  app.add_option("--reps", reps, "repetitions (solo + every mode each time); medians reported")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--json", json_path, "write the results as JSON to this file (rank 0)");
  std::vector<wait_config> modes;
  app.callback([&] { modes = gaea_bench::parse_configs(modes_text); });
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;

  // An error on any rank ends the job with its message on every rank.
  return gaea::run_main("idle_wait", &argc, &argv, [&](gaea::runtime& rt) {
    if (rt.size() < 2) {
      if (rt.rank() == 0)
        std::fprintf(stderr, "idle_wait: needs at least 2 ranks (4 recommended)\n");
      return 2;
    }
    if (solo_seconds <= 0) solo_seconds = seconds;

    nlohmann::json out = gaea_bench::run_info(rt, "idle_wait");
    const gaea::energy_reading meter = rt.energy();
    out["parameters"] = {{"seconds", seconds},
                         {"solo_seconds", solo_seconds},
                         {"modes", modes_text},
                         {"reps", reps},
                         {"cpu_percent", "process CPU time / wall time x 100 (one core = 100)"}};
    const auto np = static_cast<std::size_t>(rt.size());
    std::vector<double> solo;
    // [mode][rep] -> all ranks' fields
    std::vector<std::vector<std::vector<double>>> runs(modes.size());
    for (int r = 0; r < reps; ++r) {
      solo.push_back(solo_rate(rt, solo_seconds));
      for (std::size_t m = 0; m < modes.size(); ++m)
        runs[m].push_back(waiting_period(rt, modes[m], seconds));
    }
    if (rt.rank() != 0) return 0;

    const double solo_med = gaea_bench::median(solo);
    std::printf("# idle_wait: %d ranks on %d node(s), UCX_TLS=%s, DVFS %s, progress %s core\n",
                rt.size(), rt.nodes(), out["ucx_tls"].get<std::string>().c_str(),
                std::string(rt.dvfs().name()).c_str(),
                rt.progress().share_core() ? "shares a" : "has its own");
    std::printf(
        "# rank 0 computes %.1f s; ranks 1..%d wait in rt.barrier(); medians of %d rep(s)\n",
        seconds, rt.size() - 1, reps);
    std::printf("# energy: %s; W = J per waiting rank / wall s\n",
                gaea_bench::energy_label(meter).c_str());
    std::printf("# solo compute rate: %.2f M iterations/s\n", solo_med * 1e-6);
    std::printf("%-15s %9s %9s %9s %10s %10s %9s %8s %8s %8s\n", "mode", "cpu%_mean", "cpu%_max",
                "r0_cpu%", "rate_Mit/s", "vs_solo%", "wakeup/s", "blocks/s",
                meter.measured ? "W(meas)" : "W(est)", "dvfs/s");
    out["solo_rate_its_per_s"] = solo_med;
    out["solo_rate_reps"] = solo;
    out["results"] = nlohmann::json::array();
    for (std::size_t m = 0; m < modes.size(); ++m) {
      std::vector<double> cpu_mean, cpu_max, r0_cpu, rate, wake, blocks, watts, dvfs;
      nlohmann::json per_rep = nlohmann::json::array();
      for (const std::vector<double>& all : runs[m]) {
        auto at = [&](std::size_t rank, field f) { return all[rank * f_count + f]; };
        double sum = 0, mx = 0, w = 0, b = 0, j = 0, d = 0, wall = 0;
        nlohmann::json ranks = nlohmann::json::array();
        for (std::size_t k = 1; k < np; ++k) {
          const double pct = 100.0 * at(k, f_cpu_s) / at(k, f_wall_s);
          sum += pct;
          mx = std::max(mx, pct);
          w += at(k, f_wakeups);
          b += at(k, f_blocks);
          d += at(k, f_dvfs_lowered);
          wall = std::max(wall, at(k, f_wall_s));
          // A node-wide hardware meter is read by one rank per node only (see sum_energy).
          j += meter.measured ? 0.0 : at(k, f_energy_j);
          ranks.push_back({{"rank", k},
                           {"wall_s", at(k, f_wall_s)},
                           {"cpu_s", at(k, f_cpu_s)},
                           {"cpu_percent", pct},
                           {"energy_j", at(k, f_energy_j)},
                           {"wakeups", at(k, f_wakeups)},
                           {"blocks", at(k, f_blocks)},
                           {"dvfs_lowered", at(k, f_dvfs_lowered)},
                           {"spin_wall_s", at(k, f_spin_s)},
                           {"sleep_wall_s", at(k, f_sleep_s)},
                           {"block_wall_s", at(k, f_block_s)}});
        }
        const double waiters = static_cast<double>(np - 1);
        cpu_mean.push_back(sum / waiters);
        cpu_max.push_back(mx);
        r0_cpu.push_back(100.0 * at(0, f_cpu_s) / at(0, f_wall_s));
        rate.push_back(at(0, f_rate));
        wake.push_back(w / waiters / wall);
        blocks.push_back(b / waiters / wall);
        dvfs.push_back(d / waiters / wall);
        watts.push_back(j / waiters / wall);
        per_rep.push_back({{"waiting_ranks", ranks},
                           {"rank0_rate_its_per_s", at(0, f_rate)},
                           {"rank0_cpu_percent", r0_cpu.back()},
                           {"rank0_energy_j", at(0, f_energy_j)}});
      }
      const double rate_med = gaea_bench::median(rate);
      const double vs_solo = 100.0 * rate_med / solo_med;
      std::printf("%-15s %9.2f %9.2f %9.1f %10.2f %10.1f %9.1f %8.1f %8.3f %8.1f\n",
                  modes[m].name.c_str(), gaea_bench::median(cpu_mean), gaea_bench::median(cpu_max),
                  gaea_bench::median(r0_cpu), rate_med * 1e-6, vs_solo, gaea_bench::median(wake),
                  gaea_bench::median(blocks), meter.measured ? 0.0 : gaea_bench::median(watts),
                  gaea_bench::median(dvfs));
      out["results"].push_back(
          {{"mode", modes[m].name},
           {"progress_mode", std::string(progress::to_string(modes[m].mode))},
           {"dvfs", modes[m].dvfs},
           {"waiting_cpu_percent_mean", gaea_bench::median(cpu_mean)},
           {"waiting_cpu_percent_max", gaea_bench::median(cpu_max)},
           {"rank0_cpu_percent", gaea_bench::median(r0_cpu)},
           {"rank0_rate_its_per_s", rate_med},
           {"rank0_rate_vs_solo_percent", vs_solo},
           {"waiting_wakeups_per_s", gaea_bench::median(wake)},
           {"waiting_blocks_per_s", gaea_bench::median(blocks)},
           {"waiting_dvfs_lowered_per_s", gaea_bench::median(dvfs)},
           {"waiting_watts_per_rank",
            meter.measured ? nlohmann::json() : nlohmann::json(gaea_bench::median(watts))},
           {"energy_kind", meter.measured ? "measured" : "estimated"},
           {"reps", per_rep}});
    }
    if (meter.measured)
      std::printf(
          "# (a node-wide hardware meter cannot split waiting ranks from rank 0: W omitted; "
          "per-rank joules are in the JSON)\n");
    if (!json_path.empty() && !gaea_bench::write_json(json_path, out)) return 1;
    return 0;
    return 0;
  });
}
