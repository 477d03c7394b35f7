#pragma once
// A fake RAPL package whose energy follows a known power law: a thread advances
// <root>/sys/class/powercap/intel-rapl:0/energy_uj every millisecond by
//     (p0_w + p1_w * u) * dt,   u = CPU time of the watched process over dt / dt
// (p1_w optionally scaled by the cube of a fake cpufreq's frequency),
// wrapping to 0 after max_energy_range_uj as the hardware counter does. The watched process is
// this one (CLOCK_PROCESS_CPUTIME_ID) or a child (its clock_getcpuclockid clock, for tests that
// run gaea-power as a program). Each update is a new file renamed over energy_uj, so a reader
// never sees half a number.

#include <sys/types.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "energy_fake_tree.hpp"

namespace energy_test {

class fake_rapl {
 public:
  struct law {
    law(double p0, double p1, std::uint64_t range = 262143328850ULL)
        : p0_w(p0), p1_w(p1), range_uj(range) {}
    double p0_w;             ///< power at no load
    double p1_w;             ///< power per busy core
    std::uint64_t range_uj;  ///< max_energy_range_uj
    /// When set, p1_w is scaled by (f / f_max)^3 with f = this file (cpu0's scaling_setspeed)
    /// and f_max = f_max_khz: the model's cube, as a cpufreq actuator changes it.
    std::filesystem::path setspeed;
    double f_max_khz = 0;
  };
  /// Creates the zone (energy_uj starting at `start_uj`) without advancing it.
  fake_rapl(const fake_root& t, law l, std::uint64_t start_uj = 1000)
      : law_(l), uj_(static_cast<double>(start_uj)) {
    const std::string dir = "/sys/class/powercap/intel-rapl:0";
    t.write(dir + "/name", "package-0");
    t.write(dir + "/max_energy_range_uj", std::to_string(l.range_uj));
    energy_ = t.at(dir + "/energy_uj");
    publish();
  }
  ~fake_rapl() { stop(); }
  fake_rapl(const fake_rapl&) = delete;
  fake_rapl& operator=(const fake_rapl&) = delete;

  /// Starts advancing with the CPU time of process `pid` (0: this process).
  void start(pid_t pid = 0) {
    clockid_t clk = CLOCK_PROCESS_CPUTIME_ID;
    if (pid != 0 && ::clock_getcpuclockid(pid, &clk) != 0)
      throw std::runtime_error("clock_getcpuclockid failed");
    stop();
    stop_.store(false);
    thread_ = std::thread([this, clk] { run(clk); });
  }
  /// Stops the thread (idempotent).
  void stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  /// Times energy_uj went past max_energy_range_uj back to 0.
  int wraps() const { return wraps_.load(); }

 private:
  static double seconds(clockid_t clk) {
    timespec ts{};
    if (::clock_gettime(clk, &ts) != 0) return -1;  // the child is gone
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  }
  void run(clockid_t clk) {
    double wall = seconds(CLOCK_MONOTONIC), cpu = seconds(clk);
    while (!stop_.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      const double w = seconds(CLOCK_MONOTONIC), c = seconds(clk);
      if (c < 0) break;
      // (p0 + p1 u) dt = p0 dt + p1 (CPU time over dt): exact whatever the thread's delays.
      double scale = 1;
      if (!law_.setspeed.empty()) {
        const double r =
            static_cast<double>(gaea::energy::read_int(law_.setspeed).value_or(0)) / law_.f_max_khz;
        scale = r * r * r;
      }
      uj_ += (law_.p0_w * (w - wall) + law_.p1_w * scale * (c - cpu)) * 1e6;
      const double span = static_cast<double>(law_.range_uj) + 1;
      while (uj_ >= span) {
        uj_ -= span;
        ++wraps_;
      }
      wall = w;
      cpu = c;
      publish();
    }
  }
  void publish() {
    const auto tmp = energy_.string() + ".new";
    std::ofstream(tmp, std::ios::trunc) << static_cast<std::uint64_t>(uj_) << '\n';
    std::filesystem::rename(tmp, energy_);
  }

  law law_;
  double uj_;
  std::filesystem::path energy_;
  std::atomic<bool> stop_{false};
  std::atomic<int> wraps_{0};
  std::thread thread_;
};

}  // namespace energy_test
