// cpu_hog: an unrelated CPU-bound job for the colocation scenario of bench/app_energy.sh (a Gaea
// job sharing its cores with someone else's work). --threads threads each repeat a fixed unit of
// work (a dependent integer chain that stays in registers: no memory traffic, no system calls)
// until --seconds have passed or SIGTERM/SIGINT arrives, then one JSON line goes to stdout: units
// done, the lifetime, units per second (the hog's throughput; compare it with a run alone), the
// process CPU time, and per thread its units and core (with --pin).
//   cpu_hog [--threads N] [--seconds S] [--pin] [--unit-iters K]
// No MPI and no Gaea runtime; it follows the programs' command-line convention (apps/common).
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli.hpp"

namespace {

/// One unit of work: `iters` steps of xorshift64 mixed with a multiply, each depending on the
/// last, so the compiler can neither vectorise nor drop it. The result is returned (and summed by
/// the caller) to keep it live.
std::uint64_t work_unit(std::uint64_t x, std::int64_t iters) {
  for (std::int64_t i = 0; i < iters; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x = x * 0x9e3779b97f4a7c15ULL + 1;
  }
  return x;
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

/// The cores this process may run on, in order.
std::vector<int> allowed_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cores;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cores.push_back(c);
  return cores;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2;
  double seconds = 0;
  bool pin = false;
  std::int64_t unit_iters = 200000;
  CLI::App app{"CPU-bound hog: fixed work units per second over its lifetime"};
  apps::conventions(app, "cpu_hog");
  app.add_option("--threads", threads, "worker threads")->check(CLI::Range(1, 1024));
  app.add_option("--seconds", seconds, "run time; 0 (default): until SIGTERM or SIGINT")
      ->check(CLI::Range(0.0, 86400.0));
  app.add_flag("--pin", pin, "pin thread i to the i-th allowed core (round robin)");
  app.add_option("--unit-iters", unit_iters, "steps per work unit (fixed work)")
      ->check(CLI::Range(std::int64_t{1000}, std::int64_t{1} << 40));
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;

  // SIGTERM/SIGINT are taken by sigtimedwait in the main thread only: blocked before the workers
  // start, so they inherit the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  const std::vector<int> cores = allowed_cores();
  if (pin && cores.empty()) {
    std::fprintf(stderr, "cpu_hog: error: --pin: sched_getaffinity gave no core\n");
    return 1;
  }
  std::atomic<bool> stop{false};
  std::vector<std::int64_t> units(static_cast<std::size_t>(threads), 0);
  std::vector<int> core_of(static_cast<std::size_t>(threads), -1);
  std::vector<std::uint64_t> sinks(static_cast<std::size_t>(threads), 0);
  using clock = std::chrono::steady_clock;
  const double cpu0 = cpu_seconds();
  const auto t0 = clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    const auto k = static_cast<std::size_t>(t);
    if (pin) core_of[k] = cores[k % cores.size()];
    workers.emplace_back([&, k] {
      if (core_of[k] >= 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(core_of[k], &one);
        pthread_setaffinity_np(pthread_self(), sizeof one, &one);
      }
      std::uint64_t x = 0x2545f4914f6cdd1dULL + k;
      std::int64_t n = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        x = work_unit(x, unit_iters);
        ++n;
      }
      units[k] = n;
      sinks[k] = x;
    });
  }
  int signal_number = 0;
  if (seconds > 0) {
    const auto whole = static_cast<std::time_t>(seconds);
    timespec limit{whole, static_cast<long>((seconds - static_cast<double>(whole)) * 1e9)};
    const auto end = clock::now() + std::chrono::duration<double>(seconds);
    // sigtimedwait returns early on EINTR; wait again for what is left.
    while ((signal_number = sigtimedwait(&stop_signals, nullptr, &limit)) < 0 && errno == EINTR) {
      const double left = std::chrono::duration<double>(end - clock::now()).count();
      if (left <= 0) break;
      limit.tv_sec = static_cast<std::time_t>(left);
      limit.tv_nsec = static_cast<long>((left - static_cast<double>(limit.tv_sec)) * 1e9);
    }
    signal_number = std::max(signal_number, 0);
  } else {
    sigwait(&stop_signals, &signal_number);
  }
  stop.store(true, std::memory_order_relaxed);
  for (auto& w : workers)
    w.join();
  const double lifetime = std::chrono::duration<double>(clock::now() - t0).count();
  const double cpu = cpu_seconds() - cpu0;
  std::int64_t total = 0;
  std::uint64_t sink = 0;
  for (std::size_t k = 0; k < units.size(); ++k) {
    total += units[k];
    sink ^= sinks[k];
  }
  const nlohmann::json j = {
      {"bench", "cpu_hog"},
      {"threads", threads},
      {"pinned", pin},
      {"unit_iters", unit_iters},
      {"stopped_by",
       signal_number == 0 ? std::string("time") : std::string(strsignal(signal_number))},
      {"lifetime_s", lifetime},
      {"units", total},
      {"units_per_s", lifetime > 0 ? static_cast<double>(total) / lifetime : 0.0},
      {"cpu_s", cpu},
      {"per_thread_units", units},
      {"per_thread_core", core_of},
      {"checksum", sink}};
  std::printf("%s\n", j.dump().c_str());
  return 0;
}
