// reaction: how fast a waiting rank reacts to a message, from burst to sparse traffic, per wait
// mode. Rank 0 sends small active messages (--bytes, 1 KiB) to rank 1, sleeping between sends
// with gaps that grow geometrically from --min-gap to --max-gap (x --factor per step,
// --per-gap messages per gap). Rank 1's handler (id 130, run by its progress thread) stamps
// CLOCK_MONOTONIC on arrival; rank 0 stamps it just before each send. reaction = handler time -
// send time. Both stamps come from CLOCK_MONOTONIC of one machine, which all processes of a node
// share, so the benchmark refuses to run across nodes.
//   per gap:  median reaction (us) per mode, and the median actual gap (the sender's sleep
//             overshoots tiny gaps)
//   per mode: rank 1's process CPU time over the run (% of one core), wake-ups, blocks, energy
// Rank 1's stamps are sent back to rank 0 with MPI after every pass. Table + JSON (--json).
// The sender's own wait mode (--sender-mode) is held the same in every measured mode by default
// (spin): a sender whose core idles between sends wakes cold, and its slower send would be charged
// to the receiver's mode. `--sender-mode same` runs both ranks in the measured mode (the JSON's
// parameters.sender_mode says which; figures and older results: bench/README.md, "Sender").
// The reaction drifts over a run, so --passes runs the modes in order, then reversed, and so on
// (every mode's passes at the same mean position; each mode's figures pool its passes); the
// measured drift and which stored results ran one pass: bench/README.md, "Passes".
#include <mpi.h>
#include <sys/prctl.h>
#include <time.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench_common.hpp"
#include "cli.hpp"
#include "gaea/base/clock.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/handler_ids.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/energy/actuator.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"

namespace {

namespace progress = gaea::progress;
using gaea_bench::wait_config;

// An id of the application range (gaea/comm/handler_ids.hpp); 130, as every stored run used.
constexpr gaea::comm::handler_id reaction_handler = gaea::comm::handler_ids::user_first + 2;

struct msg_header {
  std::uint64_t seq;
};

/// Receiver state, written by the handler (progress thread) and read by the main thread after
/// `received` reaches `expected` (acquire/release on `received`).
struct receiver {
  std::vector<std::int64_t> arrival_ns;
  std::atomic<std::uint64_t> received{0};
  std::uint64_t expected = 0;
};

/// Sleeps until CLOCK_MONOTONIC reaches `t_ns` (returns at once if it has passed).
void sleep_until(std::int64_t t_ns) {
  const timespec ts{static_cast<time_t>(t_ns / 1000000000), static_cast<long>(t_ns % 1000000000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

/// Rank 1's figures over one mode, in the order they are sent to rank 0.
enum field : std::size_t { f_wall_s, f_cpu_s, f_energy_j, f_wakeups, f_blocks, f_dvfs, f_count };

}  // namespace

int main(int argc, char** argv) {
  receiver rx;  // outlives the runtime, whose context holds the handler
  CLI::App app{"reaction: reaction time of a waiting rank from burst to sparse traffic"};
  apps::conventions(app, "reaction");
  std::string modes_text = "spin,adaptive,interrupt,auto";
  double min_gap_us = 1, max_gap_us = 100000, factor = 1.25;
  int per_gap = 5, warmup = 20, passes = 2;
  std::uint64_t bytes = 1024;
  std::string json_path;
  std::string sender_text = "spin";
  app.add_option("--modes", modes_text,
                 "wait modes: spin, adaptive, adaptive_fixed, interrupt, auto (auto = with DVFS), "
                 "<mode>+dvfs, <mode>-nodvfs")
      ->capture_default_str();
  app.add_option("--min-gap", min_gap_us, "smallest gap between sends, us")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--max-gap", max_gap_us, "largest gap between sends, us")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--factor", factor, "gap growth per step")
      ->check(CLI::Range(1.01, 100.0))
      ->capture_default_str();
  app.add_option("--per-gap", per_gap, "messages per gap (the median is reported)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--passes", passes,
                 "passes over the modes, alternately in the given and the reversed order (their "
                 "messages pooled per mode)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--warmup", warmup, "messages sent back to back before the measured ones")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--bytes", bytes, "payload of each message")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  app.add_option("--sender-mode", sender_text,
                 "the sender's (rank 0's) wait mode in every measured mode, as in --modes, or "
                 "'same' (the measured mode on both ranks)")
      ->capture_default_str();
  app.add_option("--json", json_path, "write the results as JSON to this file (rank 0)");
  std::vector<wait_config> modes;
  std::optional<wait_config> sender;  // nullopt: the measured mode
  app.callback([&] {
    modes = gaea_bench::parse_configs(modes_text);
    if (sender_text != "same") {
      sender = gaea_bench::parse_config(sender_text);
      if (!sender)
        throw gaea::error("unknown --sender-mode '" + sender_text +
                          "' (a wait mode as in --modes, or 'same')");
    }
    if (min_gap_us > max_gap_us) throw gaea::error("need --min-gap <= --max-gap");
  });
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;

  // An error on any rank ends the job with its message on every rank.
  return gaea::run_main("reaction", &argc, &argv, [&](gaea::runtime& rt) {
    try {
      if (rt.size() < 2) throw std::invalid_argument("needs at least 2 ranks");
      if (rt.nodes() != 1)
        throw std::invalid_argument(
            "ranks 0 and 1 must share a node: reaction times compare CLOCK_MONOTONIC stamps of two "
            "processes, which is meaningful on one machine only");
    } catch (const std::exception& e) {
      if (rt.rank() == 0) std::fprintf(stderr, "reaction: %s\n", e.what());
      return 2;
    }

    // The schedule: warm-up messages (gap 0), then per_gap messages at each gap.
    std::vector<double> gaps_us;
    for (double g = min_gap_us; g <= max_gap_us * (1 + 1e-9); g *= factor)
      gaps_us.push_back(g);
    std::vector<std::int64_t> gap_of;  // per message, ns
    for (int i = 0; i < warmup; ++i)
      gap_of.push_back(0);
    for (double g : gaps_us)
      for (int i = 0; i < per_gap; ++i)
        gap_of.push_back(std::llround(g * 1e3));
    const std::size_t n_msgs = gap_of.size();

    rx.arrival_ns.assign(n_msgs, 0);
    rx.expected = n_msgs;
    rt.comm().register_handler(reaction_handler, [&rx, &rt](const gaea::comm::am_message& m) {
      const std::int64_t now = gaea::monotonic_ns();  // first: the stamp is the point
      msg_header h;
      if (m.header.size() != sizeof h) return;
      std::memcpy(&h, m.header.data(), sizeof h);
      if (h.seq < rx.arrival_ns.size()) rx.arrival_ns[h.seq] = now;
      // Only the last message wakes the main thread: earlier wake-ups would add receiver CPU.
      if (rx.received.fetch_add(1, std::memory_order_acq_rel) + 1 == rx.expected)
        rt.progress().notify_waiters();
    });
    rt.barrier();  // every rank has registered the handler

    nlohmann::json out = gaea_bench::run_info(rt, "reaction");
    const gaea::energy_reading meter = rt.energy();
    out["parameters"] = {{"modes", modes_text},
                         {"min_gap_us", min_gap_us},
                         {"max_gap_us", max_gap_us},
                         {"factor", factor},
                         {"per_gap", per_gap},
                         {"warmup", warmup},
                         {"bytes", bytes},
                         {"handler_id", reaction_handler},
                         {"sender_mode", sender_text},
                         {"passes", passes}};
    out["clock_assumption"] =
        "send and handler times are CLOCK_MONOTONIC of two processes on one node (one shared "
        "clock); reaction = handler stamp - send stamp";
    if (rt.rank() == 0)
      prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);  // the sender's sleeps as exact as the kernel allows

    const std::vector<std::byte> payload(bytes, std::byte{0x5a});
    std::vector<std::int64_t> send_ns(n_msgs, 0), arrival(n_msgs, 0);
    // [mode] -> reactions per message (us) and actual gaps (us), pass after pass; rank 1's
    // figures summed over the mode's passes
    std::vector<std::vector<double>> reaction_us(modes.size()), actual_gap_us(modes.size());
    std::vector<std::vector<double>> rx_fields(modes.size(), std::vector<double>(f_count, 0));
    std::vector<std::size_t> order;  // the mode of each pass over the schedule, in run order
    for (int p = 0; p < passes; ++p)
      for (std::size_t k = 0; k < modes.size(); ++k)
        order.push_back(p % 2 ? modes.size() - 1 - k : k);
    for (const std::size_t m : order) {
      std::vector<double> mine(f_count, 0.0);
      if (rt.rank() == 1) {
        std::fill(rx.arrival_ns.begin(), rx.arrival_ns.end(), 0);
        rx.received.store(0, std::memory_order_release);
      }
      {
        const wait_config& rank_mode = rt.rank() == 0 && sender ? *sender : modes[m];
        progress::scoped_mode guard(rt.progress(), rank_mode.mode, rank_mode.dvfs);
        rt.barrier();
        if (rt.rank() == 0) {
          gaea::comm::worker& w = rt.worker();
          std::int64_t prev = gaea::monotonic_ns();
          for (std::size_t i = 0; i < n_msgs; ++i) {
            // Sleep (never spin) until the gap since the previous send has passed.
            if (gap_of[i] > 0) sleep_until(prev + gap_of[i]);
            const msg_header h{i};
            gaea::comm::completion sent;
            prev = gaea::monotonic_ns();
            send_ns[i] = prev;
            w.am_send(1, reaction_handler, std::as_bytes(std::span<const msg_header>(&h, 1)),
                      payload, sent, nullptr);
            rt.wait(sent);  // the buffers are reusable; delivery is not waited for
          }
        } else if (rt.rank() == 1) {
          const progress::telemetry_totals t0 = rt.progress().totals();
          const double e0 = rt.energy().joules;
          const std::int64_t cpu0 = gaea::process_cpu_ns();
          const std::int64_t w0 = gaea::monotonic_ns();
          gaea::comm::worker& w = rt.worker();
          rt.progress().wait_until(
              w, [&] { return rx.received.load(std::memory_order_acquire) >= rx.expected; },
              /*notified=*/true);
          const std::int64_t w1 = gaea::monotonic_ns();
          const std::int64_t cpu1 = gaea::process_cpu_ns();
          const double e1 = rt.energy().joules;
          const progress::telemetry_totals t1 = rt.progress().totals();
          mine[f_wall_s] = gaea_bench::seconds(w1 - w0);
          mine[f_cpu_s] = gaea_bench::seconds(cpu1 - cpu0);
          mine[f_energy_j] = e1 - e0;
          mine[f_wakeups] = static_cast<double>(t1.wakeups - t0.wakeups);
          mine[f_blocks] = static_cast<double>(t1.blocks - t0.blocks);
          mine[f_dvfs] = static_cast<double>(t1.dvfs_lowered - t0.dvfs_lowered);
        }
        rt.barrier();
      }
      // Rank 1's stamps and figures to rank 0, outside the measured region.
      if (rt.rank() == 1) {
        MPI_Send(rx.arrival_ns.data(), static_cast<int>(n_msgs), MPI_INT64_T, 0, 0, MPI_COMM_WORLD);
        MPI_Send(mine.data(), static_cast<int>(f_count), MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
      } else if (rt.rank() == 0) {
        MPI_Recv(arrival.data(), static_cast<int>(n_msgs), MPI_INT64_T, 1, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        MPI_Recv(mine.data(), static_cast<int>(f_count), MPI_DOUBLE, 1, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        for (std::size_t f = 0; f < f_count; ++f)
          rx_fields[m][f] += mine[f];
        for (std::size_t i = 0; i < n_msgs; ++i) {
          reaction_us[m].push_back(static_cast<double>(arrival[i] - send_ns[i]) * 1e-3);
          actual_gap_us[m].push_back(
              i == 0 ? 0.0 : static_cast<double>(send_ns[i] - send_ns[i - 1]) * 1e-3);
        }
      }
    }
    if (rt.rank() != 0) return 0;

    std::printf(
        "# reaction: rank 0 -> rank 1, %llu B active messages, %d per gap, UCX_TLS=%s, "
        "DVFS %s, progress %s core\n",
        static_cast<unsigned long long>(bytes), per_gap, out["ucx_tls"].get<std::string>().c_str(),
        std::string(rt.dvfs().name()).c_str(),
        rt.progress().share_core() ? "shares a" : "has its own");
    std::printf("# sender (rank 0): %s\n",
                sender ? ("mode " + sender->name + " in every measured mode").c_str()
                       : "in the measured mode, as the receiver");
    std::printf(
        "# assumption: both stamps are CLOCK_MONOTONIC on one node (a clock all its "
        "processes share); reaction = handler time - send time\n");
    std::printf("# modes in the order");
    for (const std::size_t m : order)
      std::printf(" %s", modes[m].name.c_str());
    std::printf(" (%d passes; each mode's messages pooled)\n", passes);
    std::printf(
        "# median reaction per gap, us (actual gap = median measured time between sends, "
        "from the first mode)\n");
    std::printf("%10s %10s", "gap_us", "actual_us");
    for (const wait_config& c : modes)
      std::printf(" %14s", c.name.c_str());
    std::printf("\n");
    const auto first = static_cast<std::size_t>(warmup);
    nlohmann::json gaps_json = nlohmann::json::array();
    for (std::size_t g = 0; g < gaps_us.size(); ++g) {
      // The gap's messages in every pass of the mode.
      auto slice = [&](const std::vector<double>& v) {
        std::vector<double> pooled;
        for (std::size_t base = 0; base < v.size(); base += n_msgs) {
          const auto lo =
              static_cast<std::ptrdiff_t>(base + first + g * static_cast<std::size_t>(per_gap));
          pooled.insert(pooled.end(), v.begin() + lo, v.begin() + lo + per_gap);
        }
        return pooled;
      };
      nlohmann::json row = {{"gap_us", gaps_us[g]}};
      std::printf("%10.1f %10.1f", gaps_us[g], gaea_bench::median(slice(actual_gap_us[0])));
      for (std::size_t m = 0; m < modes.size(); ++m) {
        const std::vector<double> r = slice(reaction_us[m]);
        const double med = gaea_bench::median(r);
        std::printf(" %14.1f", med);
        row["modes"][modes[m].name] = {{"median_reaction_us", med},
                                       {"reaction_us", r},
                                       {"actual_gap_us", slice(actual_gap_us[m])}};
      }
      std::printf("\n");
      gaps_json.push_back(row);
    }
    out["gaps"] = gaps_json;

    // Per mode: summary of burst (< 100 us) and sparse (>= 1 ms) reactions, receiver cost.
    std::printf("\n# receiver (rank 1) over the whole run; energy %s\n",
                gaea_bench::energy_label(meter).c_str());
    std::printf("%-15s %9s %9s %10s %12s %12s %9s %9s %9s\n", "mode", "wall_s", "cpu%",
                meter.measured ? "J(meas)" : "J(est)", "burst_us", "sparse_us", "wakeups", "blocks",
                "dvfs_low");
    out["modes"] = nlohmann::json::array();
    for (std::size_t m = 0; m < modes.size(); ++m) {
      std::vector<double> burst, sparse;
      for (std::size_t j = 0; j < reaction_us[m].size(); ++j) {
        const std::size_t i = j % n_msgs;
        if (i < first) continue;
        const double gap = static_cast<double>(gap_of[i]) * 1e-3;
        if (gap < 100) burst.push_back(reaction_us[m][j]);
        if (gap >= 1000) sparse.push_back(reaction_us[m][j]);
      }
      const std::vector<double>& f = rx_fields[m];
      const double pct = f[f_wall_s] > 0 ? 100.0 * f[f_cpu_s] / f[f_wall_s] : 0;
      std::printf("%-15s %9.3f %9.2f %10.4f %12.1f %12.1f %9.0f %9.0f %9.0f\n",
                  modes[m].name.c_str(), f[f_wall_s], pct, f[f_energy_j], gaea_bench::median(burst),
                  gaea_bench::median(sparse), f[f_wakeups], f[f_blocks], f[f_dvfs]);
      out["modes"].push_back(
          {{"mode", modes[m].name},
           {"progress_mode", std::string(progress::to_string(modes[m].mode))},
           {"dvfs", modes[m].dvfs},
           {"receiver_wall_s", f[f_wall_s]},
           {"receiver_cpu_s", f[f_cpu_s]},
           {"receiver_cpu_percent", pct},
           {"receiver_energy_j", f[f_energy_j]},
           {"energy_kind", meter.measured ? "measured" : "estimated"},
           {"burst_median_reaction_us", gaea_bench::median(burst)},
           {"sparse_median_reaction_us", gaea_bench::median(sparse)},
           {"receiver_wakeups", f[f_wakeups]},
           {"receiver_blocks", f[f_blocks]},
           {"receiver_dvfs_lowered", f[f_dvfs]},
           {"warmup_reaction_us",
            std::vector<double>(reaction_us[m].begin(),
                                reaction_us[m].begin() + static_cast<std::ptrdiff_t>(first))}});
    }
    std::printf("# burst = gaps < 100 us, sparse = gaps >= 1 ms (medians over their messages)\n");
    if (!json_path.empty() && !gaea_bench::write_json(json_path, out)) return 1;
    return 0;
  });
}
