// sleep_accuracy: requested against actual clock_nanosleep durations ([AdaptivePolling Fig. 4]).
// For each requested duration of a sweep (0 and 1 us .. 10 ms, --min-ns .. --max-ns, --per-decade
// points per decade), the measuring thread, pinned to one core (--cpu), sleeps --samples times with
// clock_nanosleep(CLOCK_MONOTONIC, relative) and times each sleep with CLOCK_MONOTONIC. Four
// conditions, interleaved round by round (--rounds) so that drift in the machine's load falls on
// all of them alike:
//   idle       nothing else of this program runs;
//   busy       --busy-threads threads spin on the measuring thread's core (a loop on nothing);
//   and each of these with the default timer slack and with PR_SET_TIMERSLACK set to 1 ns.
// Output: per condition and requested duration the median, 10th and 90th percentile of the actual
// sleep (us) and the median overshoot; --json writes the same figures. No MPI, no Gaea runtime.
//   sleep_accuracy [--samples N] [--rounds R] [--cpu C] [--busy-threads K] [--json FILE]
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli.hpp"

namespace {

std::int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void pin_to(int cpu) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  pthread_setaffinity_np(pthread_self(), sizeof one, &one);
}

// One timed relative sleep of `ns`; returns the elapsed time.
std::int64_t timed_sleep(std::int64_t ns) {
  const timespec req{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
  const std::int64_t t0 = now_ns();
  clock_nanosleep(CLOCK_MONOTONIC, 0, &req, nullptr);
  return now_ns() - t0;
}

double quantile(std::vector<std::int64_t> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  const double f = pos - static_cast<double>(lo);
  return (1 - f) * static_cast<double>(v[lo]) + f * static_cast<double>(v[hi]);
}

// Threads spinning on one core for the scope (the "busy" condition).
class spinners {
 public:
  spinners(int count, int cpu) {
    for (int i = 0; i < count; ++i)
      threads_.emplace_back([this, cpu] {
        pin_to(cpu);
        while (!stop_.load(std::memory_order_relaxed)) {
        }
      });
    // Let them reach the core before the first sample.
    timed_sleep(20'000'000);
  }
  ~spinners() {
    stop_.store(true);
    for (std::thread& t : threads_)
      t.join();
  }
  spinners(const spinners&) = delete;
  spinners& operator=(const spinners&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

struct condition {
  std::string name;
  bool busy;
  bool tight_slack;
};

}  // namespace

int main(int argc, char** argv) {
  int samples = 200, rounds = 3, cpu = 0, busy_threads = 1, per_decade = 3;
  std::int64_t min_ns = 1000, max_ns = 10'000'000;
  std::string json_path;
  CLI::App app{
      "sleep_accuracy: requested vs actual clock_nanosleep, idle and busy, with and "
      "without PR_SET_TIMERSLACK=1 ns ([AdaptivePolling Fig. 4])"};
  apps::conventions(app, "sleep_accuracy");
  app.add_option("--samples", samples, "sleeps per requested duration, condition and round")
      ->check(CLI::Range(1, 100000));
  app.add_option("--rounds", rounds, "rounds over the conditions (interleaved)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--cpu", cpu, "core of the measuring thread and of the spinners")
      ->check(CLI::Range(0, CPU_SETSIZE - 1));
  app.add_option("--busy-threads", busy_threads, "spinning threads in the busy condition")
      ->check(CLI::Range(1, 64));
  app.add_option("--min-ns", min_ns, "smallest non-zero requested sleep (0 is always measured)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1000000000}));
  app.add_option("--max-ns", max_ns, "largest requested sleep")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1000000000}));
  app.add_option("--per-decade", per_decade, "requested durations per decade (1, 2, 3 or 10)")
      ->check(CLI::IsMember({1, 2, 3, 10}));
  app.add_option("--json", json_path, "also write the figures as JSON to this file");
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;
  if (max_ns < min_ns) {
    std::fprintf(stderr, "sleep_accuracy: error: --max-ns %lld is below --min-ns %lld\n",
                 static_cast<long long>(max_ns), static_cast<long long>(min_ns));
    return 1;
  }

  // The sweep: 0, then the 1-2-5 (or 1-3, 1, 1..9) series from min_ns to max_ns.
  std::vector<double> mantissas;
  if (per_decade == 1) mantissas = {1};
  if (per_decade == 2) mantissas = {1, 3};
  if (per_decade == 3) mantissas = {1, 2, 5};
  if (per_decade == 10) mantissas = {1, 1.3, 1.6, 2, 2.5, 3.2, 4, 5, 6.3, 8};
  std::vector<std::int64_t> requested{0};
  for (double decade = 1; decade <= 1e9; decade *= 10)
    for (double m : mantissas) {
      const auto ns = static_cast<std::int64_t>(std::llround(m * decade));
      if (ns >= min_ns && ns <= max_ns) requested.push_back(ns);
    }

  pin_to(cpu);
  const int default_slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  const std::vector<condition> conditions{{"idle", false, false},
                                          {"idle+slack1ns", false, true},
                                          {"busy", true, false},
                                          {"busy+slack1ns", true, true}};
  // [condition][requested] -> actual sleeps (ns), every round pooled
  std::vector<std::vector<std::vector<std::int64_t>>> actual(
      conditions.size(), std::vector<std::vector<std::int64_t>>(requested.size()));
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t k = 0; k < conditions.size(); ++k) {
      // Alternate the order of the conditions from round to round.
      const std::size_t c = r % 2 ? conditions.size() - 1 - k : k;
      const condition& cond = conditions[c];
      // 0 restores the thread's default slack; 1 is the finest the kernel accepts.
      if (prctl(PR_SET_TIMERSLACK, cond.tight_slack ? 1UL : 0UL, 0, 0, 0) != 0) {
        std::fprintf(stderr, "sleep_accuracy: error: PR_SET_TIMERSLACK refused (errno %d)\n",
                     errno);
        return 1;
      }
      std::optional<spinners> load;
      if (cond.busy) load.emplace(busy_threads, cpu);
      for (std::size_t i = 0; i < requested.size(); ++i)
        for (int s = 0; s < samples; ++s)
          actual[c][i].push_back(timed_sleep(requested[i]));
    }
  }

  std::printf(
      "# sleep_accuracy: %d samples x %d rounds per point, core %d, busy = %d spinning "
      "thread(s) on that core, default timer slack %d ns\n",
      samples, rounds, cpu, busy_threads, default_slack);
  std::printf("%-15s %12s %12s %12s %12s %14s\n", "condition", "requested_us", "median_us",
              "p10_us", "p90_us", "overshoot_us");
  nlohmann::json out;
  out["parameters"] = {{"samples", samples},
                       {"rounds", rounds},
                       {"cpu", cpu},
                       {"busy_threads", busy_threads},
                       {"default_slack_ns", default_slack}};
  out["points"] = nlohmann::json::array();
  for (std::size_t c = 0; c < conditions.size(); ++c)
    for (std::size_t i = 0; i < requested.size(); ++i) {
      const auto& v = actual[c][i];
      const double req = static_cast<double>(requested[i]) * 1e-3;
      const double med = quantile(v, 0.5) * 1e-3, p10 = quantile(v, 0.1) * 1e-3,
                   p90 = quantile(v, 0.9) * 1e-3;
      std::printf("%-15s %12.3f %12.3f %12.3f %12.3f %14.3f\n", conditions[c].name.c_str(), req,
                  med, p10, p90, med - req);
      out["points"].push_back({{"condition", conditions[c].name},
                               {"requested_us", req},
                               {"median_us", med},
                               {"p10_us", p10},
                               {"p90_us", p90}});
    }
  if (!json_path.empty()) {
    std::ofstream f(json_path);
    if (!f) {
      std::fprintf(stderr, "sleep_accuracy: error: cannot write %s\n", json_path.c_str());
      return 1;
    }
    f << out.dump(1) << "\n";
  }
  return 0;
}
