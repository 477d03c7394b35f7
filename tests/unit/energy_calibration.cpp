// Fitting the power model against a meter: the least squares on exact phases, and whole
// calibrations against a fake RAPL package whose energy follows a known law of this process's
// CPU time (with counter wraps during the phases, and with a fake cpufreq for the low-frequency
// phases).

#include <sched.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "energy_fake_rapl.hpp"
#include "energy_fake_tree.hpp"
#include "gaea/base/error.hpp"
#include "gaea/energy/calibration.hpp"
#include "gaea/energy/meter.hpp"

using namespace gaea::energy;
using energy_test::fake_rapl;
using energy_test::fake_root;

namespace {

std::string fit_error(const model_params& base, int cores, const std::vector<power_phase>& ph) {
  try {
    fit_power_model(base, cores, ph);
  } catch (const gaea::error& e) {
    return e.what();
  }
  return "";
}

power_phase synthetic(const model_params& p, int cores, double busy, double f_ratio, double duty) {
  power_phase ph;
  ph.name = "synthetic";
  ph.wall_s = 2;
  ph.cpu_s = busy * ph.wall_s;
  ph.f_ratio = f_ratio;
  ph.duty = duty;
  ph.joules = 1;  // placeholder so that phase_model_w accepts the phase
  ph.joules = phase_model_w(p, cores, ph) * ph.wall_s;
  return ph;
}

// A calibration as gaea-power runs one, on the fake tree: the meter chosen by select_meter
// exactly as the runtime does (it must prove itself), then the phases.
calibration_run calibrate_on(const fake_root& t, calibration_config cfg) {
  const meter_choice c = select_meter("auto", t.root(), model_params{}, {},
                                      [] { burn_cpu(std::chrono::milliseconds(30)); });
  REQUIRE(c.m->measured());
  REQUIRE(c.m->name() == "rapl-powercap");
  cfg.root = t.root();
  return run_power_phases(*c.m, cfg);
}

// The fake law: a node floor of 24 W on 2 core-shares (12 W each) and 9 W per busy core. Far
// enough apart that a fit swapping or dropping a term is off by far more than the tolerance.
constexpr double p0 = 24, p1 = 9;
constexpr int cores = 2;
// Tolerance: the law is exact in the process's CPU time, so the fit's error comes from the
// meter being read up to a few ms apart from the CPU clock at each phase's ends (under 1 % of an
// 800 ms phase) and from the integer microjoules; 15 % leaves room for a loaded machine
// delaying the fake meter's thread, and a swap of the terms (24 vs 9) or a lost floor cannot
// pass it.
constexpr double tolerance = 0.15;

void check_recovered(const model_params& fit) {
  CHECK(cores * (fit.p_static_w + fit.p_dyn_other_w) == Approx(p0).epsilon(tolerance));
  CHECK(fit.p_dyn_w == Approx(p1).epsilon(tolerance));
}

}  // namespace

TEST_CASE("power fit: exact phases give back the parameters that made them", "[energy][calib]") {
  model_params truth;
  truth.p_static_w = 3;
  truth.p_dyn_other_w = 1.5;
  truth.p_dyn_w = 11;
  std::vector<power_phase> ph{synthetic(truth, 4, 0.02, 1, 1), synthetic(truth, 4, 1, 1, 1),
                              synthetic(truth, 4, 3.7, 1, 1), synthetic(truth, 4, 2, 0.5, 1),
                              synthetic(truth, 4, 2, 1, 0.5)};
  model_params base;  // 4 W static, 1 W other: the fitted floor is split 4:1
  base.transition_j = 7e-5;
  const model_params fit = fit_power_model(base, 4, ph);
  CHECK(fit.p_static_w + fit.p_dyn_other_w == Approx(4.5).epsilon(1e-9));
  CHECK(fit.p_static_w == Approx(4.5 * 0.8).epsilon(1e-9));
  CHECK(fit.p_dyn_w == Approx(11).epsilon(1e-9));
  CHECK(fit.transition_j == base.transition_j);  // keys the fit does not touch
  const power_fit_error e = evaluate_power_model(fit, 4, ph);
  CHECK(e.rms_rel < 1e-9);
  CHECK(e.max_rel < 1e-9);
  // The parameters before the fit are off, and evaluate says by how much.
  const power_fit_error before = evaluate_power_model(base, 4, ph);
  CHECK(before.max_rel > 0.1);
  REQUIRE(before.rel_err.size() == ph.size());
  CHECK(before.rel_err[0] == Approx(before.modelled_w[0] / ph[0].measured_w() - 1));
}

TEST_CASE("power fit: one load, or a meter that falls with load, is an error naming the values",
          "[energy][calib]") {
  model_params truth;
  std::vector<power_phase> same{synthetic(truth, 2, 1, 1, 1), synthetic(truth, 2, 1, 1, 1)};
  CHECK(fit_error(truth, 2, same).find("need at least two phases whose loads differ") !=
        std::string::npos);
  CHECK(fit_error(truth, 2, {}).find("0 phases") != std::string::npos);
  std::vector<power_phase> falling{synthetic(truth, 2, 0, 1, 1), synthetic(truth, 2, 2, 1, 1)};
  std::swap(falling[0].joules, falling[1].joules);
  CHECK(fit_error(truth, 2, falling).find("not positive") != std::string::npos);
  std::vector<power_phase> empty{synthetic(truth, 2, 0, 1, 1), synthetic(truth, 2, 2, 1, 1)};
  empty[1].joules = 0;
  CHECK(fit_error(truth, 2, empty).find("'synthetic'") != std::string::npos);
  CHECK(fit_error(truth, 0, falling).find("cores = 0") != std::string::npos);
}

TEST_CASE("power calibration recovers a fake RAPL package's power law", "[energy][calib]") {
  fake_root t;
  fake_rapl rapl(t, fake_rapl::law(p0, p1));
  rapl.start();
  calibration_config cfg;
  cfg.threads = {1, 2};
  cfg.phase = std::chrono::milliseconds(800);
  cfg.sample = std::chrono::milliseconds(20);
  int reported = 0;
  cfg.on_phase = [&](const power_phase&) { ++reported; };
  const calibration_run run = calibrate_on(t, cfg);
  rapl.stop();
  REQUIRE(run.phases.size() == 3);
  CHECK(reported == 3);
  CHECK(run.phases[0].name == "idle");
  CHECK(run.phases[2].name == "2 busy");
  // No cpufreq and no MSR under the fake root: the phases at f_max only, and why.
  CHECK(run.dvfs.find("no low-frequency phases") != std::string::npos);
  CHECK(run.throttle.find("no throttled phases") != std::string::npos);
  const model_params fit = fit_power_model(model_params{}, cores, run.phases);
  check_recovered(fit);
  CHECK(evaluate_power_model(fit, cores, run.phases).max_rel < tolerance);
}

TEST_CASE("power calibration: energy_uj wrapping within the phases is counted", "[energy][calib]") {
  fake_root t;
  // 3 J range: wraps every 0.1-0.15 s at 24-42 W, at most one between two reads 20 ms apart.
  fake_rapl rapl(t, fake_rapl::law(p0, p1, 3000000));
  rapl.start();
  calibration_config cfg;
  cfg.threads = {1, 2};
  cfg.phase = std::chrono::milliseconds(800);
  cfg.sample = std::chrono::milliseconds(20);
  const calibration_run run = calibrate_on(t, cfg);
  rapl.stop();
  CHECK(rapl.wraps() >= 10);
  check_recovered(fit_power_model(model_params{}, cores, run.phases));
}

TEST_CASE("power calibration: a writable cpufreq adds low-frequency phases the cube describes",
          "[energy][calib]") {
  fake_root t;
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(::sched_getaffinity(0, sizeof set, &set) == 0);
  energy_test::cpufreq_files f;
  f.setspeed = "2400000";  // at f_max, as the actuator assumes a CPU starts
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) energy_test::add_cpufreq(t, c, f);
  fake_rapl::law law(p0, p1);
  law.setspeed = t.at(energy_test::cpufreq_path(0, "scaling_setspeed"));
  law.f_max_khz = 2400000;
  fake_rapl rapl(t, law);
  rapl.start();
  calibration_config cfg;
  cfg.threads = {2};
  cfg.phase = std::chrono::milliseconds(800);
  cfg.sample = std::chrono::milliseconds(20);
  cfg.dvfs_kind = "cpufreq";
  const calibration_run run = calibrate_on(t, cfg);
  rapl.stop();
  REQUIRE(run.phases.size() == 3);
  CHECK(run.phases[2].name == "2 busy @ 800000 kHz");
  CHECK(run.phases[2].f_ratio == Approx(1.0 / 3));
  // Put back as found.
  CHECK(t.line(energy_test::cpufreq_path(0, "scaling_setspeed")) == "2400000");
  // How much CPU the busy threads got depends on the machine's other load, so the phases are
  // not compared with each other: the fit below must describe the low phase (at a third of
  // f_max, 1/27 of the dynamic power) with the model's cube as well as the others.
  const model_params fit = fit_power_model(model_params{}, cores, run.phases);
  check_recovered(fit);
  CHECK(evaluate_power_model(fit, cores, run.phases).max_rel < tolerance);
}

TEST_CASE("power calibration: bad settings are errors naming the value", "[energy][calib]") {
  fake_root t;
  fake_rapl rapl(t, fake_rapl::law(p0, p1));
  std::string why;
  auto m = make_rapl_meter(t.root(), why);
  REQUIRE(m);
  calibration_config cfg;
  cfg.root = t.root();
  cfg.threads = {0};
  CHECK_THROWS_WITH(run_power_phases(*m, cfg), Catch::Contains("0 busy threads"));
  cfg.threads = {1};
  cfg.dvfs_kind = "simulated";
  CHECK_THROWS_WITH(run_power_phases(*m, cfg), Catch::Contains("simulated"));
  cfg.dvfs_kind = "off";
  cfg.throttle_levels = {8};
  CHECK_THROWS_WITH(run_power_phases(*m, cfg), Catch::Contains("throttle level 8"));
  cfg.throttle_levels = {4};
  cfg.phase = std::chrono::milliseconds(0);
  CHECK_THROWS_WITH(run_power_phases(*m, cfg), Catch::Contains("phase 0 ms"));
  CHECK(default_thread_counts(2) == std::vector<int>{1, 2});
  CHECK(default_thread_counts(64) == std::vector<int>{8, 16, 24, 32, 40, 48, 56, 64});
  CHECK(default_thread_counts(9).back() == 9);
}
