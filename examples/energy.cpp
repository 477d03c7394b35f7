// gaea::energy: the power model and meters behind Gaea's energy figures. The example asks what a
// rank that computes half of the time and waits the other half would spend with its core held at
// full clock while waiting, lowered by DVFS while waiting, or throttled; then it runs a short CPU
// load under a model meter fed with its own CPU time and checks that the meter agrees with the
// model. Hardware meters (RAPL, perf, msr-safe, GEOPM) are what select_meter tries first;
// gaea-info shows which one a machine has. Single process; no MPI.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "gaea/energy/meter.hpp"
#include "gaea/energy/model.hpp"

namespace {
double cpu_seconds() {
  return static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
}
}  // namespace

int main() {
  namespace en = gaea::energy;
  const en::model_params p;  // the documented defaults: 2.4 GHz, 1.2 GHz lowest, 10 W per core

  // 10 s of wall time: 5 s of computation at f_max, 5 s of spinning in waits.
  const double wall = 10;
  const std::vector<en::cpu_share> full{{10, p.f_max_khz}};
  const std::vector<en::cpu_share> dvfs{{5, p.f_max_khz}, {5, p.f_min_khz}};
  const std::vector<en::cpu_share> throttled{{5, p.f_max_khz}, {5, p.f_max_khz, 2.0 / 8}};
  const double e_full = en::model_energy_j(p, wall, full);
  const double e_dvfs = en::model_energy_j(p, wall, dvfs, /*transitions=*/2);
  const double e_thr = en::model_energy_j(p, wall, throttled, 0, /*throttle_transitions=*/2);

  // A model meter measuring this process: its CPU time, all at f_max.
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_seconds();
  auto usage = [&] {
    en::usage_snapshot u;
    u.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    u.shares.push_back({cpu_seconds() - cpu0, p.f_max_khz});
    return u;
  };
  const std::unique_ptr<en::meter> m = en::make_model_meter(p, usage);
  en::burn_cpu(std::chrono::milliseconds(100));
  const double joules = m->joules().value_or(-1);
  const en::usage_snapshot after = usage();
  const double expect = en::model_energy_j(p, after.wall_seconds, after.shares);

  // DVFS pays (1/2)^3 of the dynamic power in waits; the throttle pays the duty (linear).
  const bool ok = e_dvfs < e_thr && e_thr < e_full && joules > 0 && joules <= expect + 1e-9 &&
                  joules > 0.5 * expect;
  std::printf(
      "energy: 10 s half waiting: %.1f J at full clock, %.1f J throttled to T6, %.1f J "
      "with DVFS; model meter '%s' %.3f J over 100 ms of load (model %.3f J): %s\n",
      e_full, e_thr, e_dvfs, std::string(m->name()).c_str(), joules, expect, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
