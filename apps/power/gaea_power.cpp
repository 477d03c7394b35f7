// gaea-power: the power model against a hardware energy meter.
//   gaea-power calibrate --output model.json   fit the model here (RAPL or perf must prove itself)
//   gaea-power check                         the current parameters (GAEA_ENERGY_MODEL) vs the
//   meter
// Exit status 3 when no meter proved itself: nothing measured, nothing written.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli.hpp"
#include "gaea/energy/meter.hpp"
#include "power_commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"gaea-power: fit the power model against a hardware energy meter, or check it"};
  apps::conventions(app, "gaea-power");
  app.require_subcommand(1);
  gaea_power::options o;
  std::string root, out, json;
  const auto common = [&](CLI::App* c, bool throttle) {
    c->add_option("--root", root, "root of /sys, /dev and /proc (default: GAEA_SYSFS_ROOT)");
    c->add_option("--meter", o.meter, "meter kind (default: GAEA_ENERGY_METER)")
        ->check(CLI::IsMember(std::vector<std::string>(gaea::energy::meter_kinds.begin(),
                                                       gaea::energy::meter_kinds.end())));
    c->add_option("--phase-ms", o.phase_ms, "length of each phase (ms)")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{3600000}));
    c->add_option("--sample-ms", o.sample_ms,
                  "meter read interval within a phase (ms; counter wraps are seen only if read "
                  "at least once per wrap)")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{60000}));
    c->add_option("--threads", o.threads,
                  "busy-thread counts, comma-separated (default: 1..n for n hardware threads, "
                  "8 counts up to n above 8)")
        ->delimiter(',')
        ->check(CLI::Range(1, 4096));
    c->add_option("--cores", o.cores,
                  "core-shares the node's wall-time power is divided by (default: hardware "
                  "threads, one rank each)")
        ->check(CLI::Range(1, 1 << 20));
    c->add_option("--json", json, "also write the per-phase table as JSON");
    if (!throttle) return;
    c->add_option("--dvfs", o.dvfs, "DVFS actuator for the low-frequency phases")
        ->check(CLI::IsMember({"auto", "cpufreq", "off"}));
    c->add_option("--throttle", o.throttle, "clock-modulation throttle for the throttled phases")
        ->check(CLI::IsMember({"auto", "msr", "off"}));
    c->add_option("--throttle-levels", o.throttle_levels,
                  "throttle levels Tj to run, comma-separated (default 4)")
        ->delimiter(',')
        ->check(CLI::Range(1, 7));
  };
  auto* cal =
      app.add_subcommand("calibrate",
                         "fit p_static_w + p_dyn_other_w and p_dyn_w against the meter and write a "
                         "GAEA_ENERGY_MODEL file (exit 3 without a meter)");
  common(cal, true);
  cal->add_option("--output", out, "model file to write (JSON)")->required();
  auto* chk = app.add_subcommand(
      "check",
      "an idle and a busy phase: measured vs modelled energy with the current parameters "
      "(exit 3 without a meter)");
  common(chk, false);
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;
  o.root = root;
  o.out = out;
  o.json = json;
  try {
    return *cal ? gaea_power::calibrate(o) : gaea_power::check(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gaea-power: error: %s\n", e.what());
    return 1;
  }
}
