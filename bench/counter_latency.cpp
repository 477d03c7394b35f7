// counter_latency: the [PGAS-BGQ Fig. 10] experiment on Gaea's counters, plus task-pool throughput.
//
// Latency: a task_counter owned by rank 0 hands out K × (P−1) ids; ranks 1..P−1 call next()
// back to back and time every call. Rank 0 is either idle (waiting inside Gaea) or runs
// back-to-back compute kernels of --compute-us µs that make no library call, with one
// gaea::poll() between kernels (when a rank without asynchronous progress serves its peers, as
// in the "default" baseline of [PGAS-BGQ Fig. 10]). Reported per (mode, variant, rank-0 state): the
// average and maximum time per next() call seen by ranks 1..P−1 and the average time per task (a
// batched call returns several tasks). Medians over --reps repetitions. Across nodes, the same
// averages and maxima also split by requesting ranks on rank 0's node and on other nodes.
//
// Throughput: a task_pool runs tasks of a fixed length (busy loop of 1 µs – 1 ms) on every
// rank; reported: tasks/s and efficiency = busy time / (ranks × threads × wall).
//
// Output: tables, then one JSON line per section ("{"bench":"counter_latency",...}"), and the
// whole result as JSON with --json FILE (written to FILE.tmp, then renamed).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "bench_common.hpp"
#include "cli.hpp"
#include "gaea/base/clock.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/counters/task_counter.hpp"
#include "gaea/counters/task_pool.hpp"
#include "gaea/runtime/runtime.hpp"

namespace {
using gaea::monotonic_ns;

// A kernel that computes for `us` microseconds without calling any library.
double kernel(double us, double x = 1.0) {
  const std::int64_t until = monotonic_ns() + static_cast<std::int64_t>(us * 1e3);
  do {
    for (int i = 0; i < 64; ++i)
      x = x * 1.0000001 + 1e-9;
  } while (monotonic_ns() < until);
  return x;
}

struct latency_result {
  double avg_us = 0, max_us = 0, per_task_us = 0, calls_per_rank = 0;
  // The same split by where the requesting rank runs: on the counter owner's node or not
  // (-1 when no requesting rank is there).
  double on_node_avg_us = -1, on_node_max_us = -1, off_node_avg_us = -1, off_node_max_us = -1;
};

// One run on `c` (reset to K × (P−1) ids first). Idle rank 0 waits in the closing barrier, a
// notified Gaea wait; computing rank 0 polls once between kernels until every rank is done.
latency_result measure_latency(gaea::runtime& rt, gaea::counters::task_counter& c, bool compute,
                               double compute_us, std::int64_t per_rank, int owner_node) {
  const int p = rt.size();
  c.reset(per_rank * (p - 1));
  double sum_ns = 0, max_ns = 0, calls = 0, tasks = 0;
  if (rt.rank() == 0) {
    if (compute) {
      gaea::coll::request done = gaea::coll::barrier(gaea::coll::world(), gaea::coll::nonblocking);
      volatile double sink = 0;
      do {
        sink = kernel(compute_us, sink);
        gaea::poll();
      } while (!done.test());
    }
  } else {
    if (compute) std::this_thread::sleep_for(std::chrono::milliseconds(1));  // rank 0 is busy
    for (;;) {
      const std::int64_t t0 = monotonic_ns();
      const gaea::counters::task_range r = c.next();
      const double ns = static_cast<double>(monotonic_ns() - t0);
      if (r.empty()) break;
      sum_ns += ns;
      max_ns = std::max(max_ns, ns);
      calls += 1;
      tasks += static_cast<double>(r.size());
    }
    if (compute) gaea::coll::barrier(gaea::coll::world());  // a Gaea wait: it serves peers
  }
  rt.barrier();
  const double all_ns = gaea_bench::sum_over_ranks(sum_ns);
  const double all_calls = gaea_bench::sum_over_ranks(calls);
  const double all_tasks = gaea_bench::sum_over_ranks(tasks);
  latency_result res;
  res.avg_us = all_calls > 0 ? all_ns / all_calls * 1e-3 : 0;
  res.max_us = gaea_bench::max_over_ranks(max_ns) * 1e-3;
  res.per_task_us = all_tasks > 0 ? all_ns / all_tasks * 1e-3 : 0;
  res.calls_per_rank = all_calls / (p - 1);
  const bool on_node = rt.node_id() == owner_node;
  for (const bool side : {true, false}) {
    const bool mine = rt.rank() != 0 && on_node == side;
    const double n = gaea_bench::sum_over_ranks(mine ? calls : 0);
    const double ns = gaea_bench::sum_over_ranks(mine ? sum_ns : 0);
    const double mx = gaea_bench::max_over_ranks(mine ? max_ns : -1e3);
    (side ? res.on_node_avg_us : res.off_node_avg_us) = n > 0 ? ns / n * 1e-3 : -1;
    (side ? res.on_node_max_us : res.off_node_max_us) = n > 0 ? mx * 1e-3 : -1;
  }
  return res;
}

struct pool_result {
  double tasks_per_s = 0, efficiency = 0, wait_frac = 0;
  std::int64_t tasks = 0;
};

pool_result measure_pool(gaea::runtime& rt, gaea::counters::counter_mode m,
                         gaea::counters::dispense d, double task_us, double seconds, int threads) {
  gaea::counters::task_pool_options o;
  o.counter.mode = m;
  o.counter.variant = d;
  o.threads = threads;
  gaea::counters::task_pool pool("throughput", o);
  const double slots = static_cast<double>(rt.size()) * pool.threads();
  const auto n = static_cast<std::int64_t>(std::max(20.0 * slots, seconds * slots * 1e6 / task_us));
  const gaea::counters::task_stats s =
      gaea::counters::for_each_task(pool, n, [task_us](std::int64_t) {
        volatile double x = kernel(task_us);
        (void)x;
      });
  const double wall = gaea_bench::max_over_ranks(s.wall_s);
  pool_result r;
  r.tasks = n;
  r.tasks_per_s = static_cast<double>(n) / wall;
  r.efficiency = static_cast<double>(n) * task_us * 1e-6 / (slots * wall);
  r.wait_frac = gaea_bench::sum_over_ranks(s.wait_s) / (slots * wall);
  return r;
}

template <class T, class Parse>
std::vector<T> parse_list(const std::string& text, Parse parse, const char* what) {
  std::vector<T> out;
  for (const std::string& s : gaea_bench::split_list(text)) {
    const auto v = parse(s);
    if (!v) throw CLI::ValidationError(what, "unknown value '" + s + "'");
    out.push_back(*v);
  }
  return out;
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"counter_latency: Fig. 10 fetch-and-add latency and task-pool throughput"};
  apps::conventions(app, "counter_latency");
  std::string modes_text = "atomic,progress,owner", variants_text = "single,batched,hierarchical";
  std::string lengths_text = "1,10,100,1000", json_path;
  std::int64_t per_rank = 1000;
  double compute_us = 300, pool_seconds = 0.1;
  int reps = 3, threads = 1;
  bool no_pool = false, no_latency = false;
  app.add_option("--modes", modes_text, "counter modes");
  app.add_option("--variants", variants_text, "task_counter variants");
  app.add_option("--tasks-per-rank", per_rank, "ids per requesting rank (latency)")
      ->check(CLI::PositiveNumber);
  app.add_option("--compute-us", compute_us, "rank 0's kernel length")->check(CLI::PositiveNumber);
  app.add_option("--reps", reps, "repetitions (medians)")->check(CLI::PositiveNumber);
  app.add_option("--lengths", lengths_text, "task lengths in µs (throughput)");
  app.add_option("--pool-seconds", pool_seconds, "ideal duration of one throughput run")
      ->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "pool threads per rank")->check(CLI::PositiveNumber);
  app.add_flag("--no-pool", no_pool, "skip the throughput part");
  app.add_flag("--no-latency", no_latency, "skip the latency part");
  app.add_option("--json", json_path, "write all results to this JSON file");
  std::vector<gaea::counters::counter_mode> modes;
  std::vector<gaea::counters::dispense> variants;
  std::vector<double> lengths;
  app.callback([&] {
    modes = parse_list<gaea::counters::counter_mode>(modes_text, gaea::counters::parse_counter_mode,
                                                     "--modes");
    variants = parse_list<gaea::counters::dispense>(variants_text, gaea::counters::parse_dispense,
                                                    "--variants");
    for (const std::string& s : gaea_bench::split_list(lengths_text)) {
      try {
        lengths.push_back(std::stod(s));
      } catch (const std::exception&) {
        throw gaea::error("--lengths: '" + s + "' is not a number");
      }
    }
  });
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;

  // An error on any rank ends the job with its message on every rank.
  return gaea::run_main("counter_latency", &argc, &argv, [&](gaea::runtime& rt) {
    if (rt.size() < 2) {
      if (rt.rank() == 0) std::fprintf(stderr, "counter_latency: needs at least 2 ranks\n");
      return 2;
    }
    const bool root = rt.rank() == 0;
    nlohmann::json out = gaea_bench::run_info(rt, "counter_latency");
    out["compute_us"] = compute_us;
    out["tasks_per_rank"] = per_rank;
    out["reps"] = reps;

    // Across nodes, the latency is also split by where the requesting rank runs: on the node of
    // the counter's owner (rank 0) or on another node.
    int owner_node = rt.node_id();
    gaea::coll::broadcast(gaea::coll::world(), std::span<int>(&owner_node, 1), 0);
    const int on_node_ranks = static_cast<int>(
        gaea_bench::sum_over_ranks(rt.rank() != 0 && rt.node_id() == owner_node ? 1 : 0));
    const bool split = rt.nodes() > 1;
    if (split) {
      out["owner_node_requesters"] = on_node_ranks;
      out["other_node_requesters"] = rt.size() - 1 - on_node_ranks;
    }
    if (!no_latency) {
      if (root) {
        std::printf(
            "\nFig. 10: next() latency seen by ranks 1..%d, counter on rank 0 (%s, %d ranks on %d "
            "node(s), median of %d reps)\n%-9s %-13s %-8s %10s %10s %12s %10s",
            rt.size() - 1, out["ucx_tls"].get<std::string>().c_str(), rt.size(), rt.nodes(), reps,
            "mode", "variant", "rank0", "avg us", "max us", "us per task", "calls");
        if (split)
          std::printf(" %16s %16s  (requesters: %d on rank 0's node, %d elsewhere)",
                      "on-node avg(max)", "off-node avg(max)", on_node_ranks,
                      rt.size() - 1 - on_node_ranks);
        std::printf("\n");
      }
      for (gaea::counters::counter_mode m : modes)
        for (gaea::counters::dispense d : variants) {
          gaea::counters::task_counter_options o;
          o.mode = m;
          o.variant = d;
          o.owner = 0;
          gaea::counters::task_counter c("fig10", 0, o);
          for (bool compute : {false, true}) {
            std::vector<double> avg, mx, per, calls, on_avg, on_max, off_avg, off_max;
            // warm-up (keys, endpoints)
            measure_latency(rt, c, compute, compute_us, per_rank, owner_node);
            for (int r = 0; r < reps; ++r) {
              const latency_result x =
                  measure_latency(rt, c, compute, compute_us, per_rank, owner_node);
              avg.push_back(x.avg_us);
              mx.push_back(x.max_us);
              per.push_back(x.per_task_us);
              calls.push_back(x.calls_per_rank);
              on_avg.push_back(x.on_node_avg_us);
              on_max.push_back(x.on_node_max_us);
              off_avg.push_back(x.off_node_avg_us);
              off_max.push_back(x.off_node_max_us);
            }
            nlohmann::json row = {{"mode", std::string(gaea::counters::to_string(m))},
                                  {"variant", std::string(gaea::counters::to_string(d))},
                                  {"rank0", compute ? "compute" : "idle"},
                                  {"avg_us", gaea_bench::median(avg)},
                                  {"max_us", gaea_bench::median(mx)},
                                  {"per_task_us", gaea_bench::median(per)},
                                  {"calls_per_rank", gaea_bench::median(calls)}};
            if (root)
              std::printf("%-9s %-13s %-8s %10.2f %10.1f %12.3f %10.0f",
                          row["mode"].get<std::string>().c_str(),
                          row["variant"].get<std::string>().c_str(),
                          row["rank0"].get<std::string>().c_str(), row["avg_us"].get<double>(),
                          row["max_us"].get<double>(), row["per_task_us"].get<double>(),
                          row["calls_per_rank"].get<double>());
            if (split) {
              // -1: no requesting rank on that side.
              const auto cell = [](const std::vector<double>& a, const std::vector<double>& x) {
                const double va = gaea_bench::median(a), vm = gaea_bench::median(x);
                char text[40];
                if (va < 0)
                  std::snprintf(text, sizeof text, "%16s", "-");
                else
                  std::snprintf(text, sizeof text, "%9.2f (%4.0f)", va, vm);
                return std::string(text);
              };
              const auto value = [](const std::vector<double>& v) {
                const double x = gaea_bench::median(v);
                return x < 0 ? nlohmann::json() : nlohmann::json(x);
              };
              row["on_node_avg_us"] = value(on_avg);
              row["on_node_max_us"] = value(on_max);
              row["off_node_avg_us"] = value(off_avg);
              row["off_node_max_us"] = value(off_max);
              if (root)
                std::printf(" %16s %16s", cell(on_avg, on_max).c_str(),
                            cell(off_avg, off_max).c_str());
            }
            if (root) std::printf("\n");
            out["latency"].push_back(row);
          }
        }
    }
    if (!no_pool) {
      if (root)
        std::printf(
            "\nTask-pool throughput (%d ranks x %d threads, %s)\n%-9s %-13s %8s %12s %8s "
            "%8s\n",
            rt.size(), threads, out["ucx_tls"].get<std::string>().c_str(), "mode", "variant",
            "task us", "tasks/s", "eff", "wait");
      for (gaea::counters::counter_mode m : modes)
        for (gaea::counters::dispense d : variants)
          for (double len : lengths) {
            std::vector<double> tps, eff, wf;
            for (int r = 0; r < reps; ++r) {
              const pool_result x = measure_pool(rt, m, d, len, pool_seconds, threads);
              tps.push_back(x.tasks_per_s);
              eff.push_back(x.efficiency);
              wf.push_back(x.wait_frac);
            }
            nlohmann::json row = {{"mode", std::string(gaea::counters::to_string(m))},
                                  {"variant", std::string(gaea::counters::to_string(d))},
                                  {"task_us", len},
                                  {"tasks_per_s", gaea_bench::median(tps)},
                                  {"efficiency", gaea_bench::median(eff)},
                                  {"wait_fraction", gaea_bench::median(wf)}};
            if (root)
              std::printf(
                  "%-9s %-13s %8.0f %12.0f %8.2f %8.2f\n", row["mode"].get<std::string>().c_str(),
                  row["variant"].get<std::string>().c_str(), len, row["tasks_per_s"].get<double>(),
                  row["efficiency"].get<double>(), row["wait_fraction"].get<double>());
            out["pool"].push_back(row);
          }
    }
    if (root) {
      std::printf("%s\n", out.dump().c_str());
      if (!json_path.empty() && !gaea_bench::write_json(json_path, out)) return 1;
    }
    return 0;
  });
}
