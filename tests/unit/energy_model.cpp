// gaea::energy power model: the formula by hand, the calibration file (errors name the key),
// save/load round trip, and from_env.

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <vector>

#include "energy_fake_tree.hpp"
#include "gaea/base/error.hpp"
#include "gaea/energy/model.hpp"
#include "gaea/energy/throttle.hpp"

using namespace gaea::energy;
using energy_test::fake_root;

namespace {

std::filesystem::path write_json(const fake_root& t, const std::string& text) {
  const auto p = t.root() / "model.json";
  std::ofstream(p, std::ios::trunc) << text;
  return p;
}

// Runs load(file) and returns the gaea::error message ("" when it did not throw).
std::string load_error(const std::filesystem::path& file) {
  try {
    model_params::load(file);
  } catch (const gaea::error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("model energy: static share, cubic dynamic power, transitions", "[energy][model]") {
  model_params p;  // 4 W static, 1 W non-CPU dynamic, 10 W CPU dynamic at 2.4 GHz, 20 uJ per DVFS
                   // transition, 2 uJ per throttle transition
  const std::vector<cpu_share> shares = {{1.0, 0}, {2.0, p.f_max_khz / 2}};
  // (4 + 1) W x 3 s + 10 W x 1 s x 1 + 10 W x 2 s x (1/2)^3 + 5 x 20 uJ
  const double by_hand = 5.0 * 3 + 10.0 * 1.0 + 10.0 * 2.0 * 0.125 + 5 * 20e-6;
  CHECK(model_energy_j(p, 3.0, shares, 5) == Approx(by_hand).epsilon(1e-12));
  CHECK(by_hand == Approx(27.5001));
  CHECK(model_energy_j(p, 3.0, shares) == Approx(by_hand - 5 * 20e-6).epsilon(1e-12));
  CHECK(model_energy_j(p, 3.0, shares, 5, 7) == Approx(by_hand + 7 * 2e-6).epsilon(1e-12));
  // khz 0 means f_max.
  const std::vector<cpu_share> at_max = {{1.0, p.f_max_khz}};
  const std::vector<cpu_share> unset = {{1.0, 0}};
  CHECK(model_energy_j(p, 1.0, at_max) == Approx(model_energy_j(p, 1.0, unset)));

  CHECK(model_power_w(p, 0.0, 0) == Approx(5.0));
  CHECK(model_power_w(p, 1.0, 0) == Approx(15.0));
  CHECK(model_power_w(p, 0.5, p.f_max_khz / 2) == Approx(5.0 + 0.5 * 10.0 * 0.125));
  CHECK(model_power_w(p, 2.0, p.f_max_khz) == Approx(25.0));
  CHECK(cpu_dynamic_power_w(p, 2.0, p.f_max_khz) == Approx(20.0));
  // The non-CPU term may be switched off.
  p.p_dyn_other_w = 0;
  CHECK(model_power_w(p, 1.0, 0) == Approx(14.0));
}

TEST_CASE("model: throttling removes dynamic CPU power linearly in the duty", "[energy][model]") {
  const model_params p;
  // A 50% duty (T4) charges half the dynamic power; an effective frequency of f_max / 2, cubed,
  // would charge an eighth.
  const std::vector<cpu_share> half = {{2.0, p.f_max_khz, 0.5}};
  const std::vector<cpu_share> full = {{2.0, p.f_max_khz}};
  CHECK(model_energy_j(p, 0.0, half) == Approx(0.5 * model_energy_j(p, 0.0, full)));
  CHECK(model_energy_j(p, 0.0, half) == Approx(10.0 * 2.0 * 0.5));
  CHECK(cpu_dynamic_power_w(p, 1.0, 0, 0.5) == Approx(5.0));
  CHECK(model_power_w(p, 1.0, 0, 0.5) == Approx(4.0 + 1.0 + 5.0));
  // Duty and frequency combine: T6 (duty 1/4) at f_max / 2 is 1/4 x 1/8 of the dynamic power.
  const std::vector<cpu_share> both = {{1.0, p.f_max_khz / 2, throttle_duty(6)}};
  CHECK(model_energy_j(p, 0.0, both) == Approx(10.0 * 0.25 * 0.125));
  CHECK(model_power_w(p, 1.0, p.f_max_khz / 2, 0.25) == Approx(5.0 + 10.0 / 32));
  // Static and non-CPU dynamic power do not depend on the duty.
  CHECK(model_energy_j(p, 3.0, half) - model_energy_j(p, 0.0, half) == Approx(3.0 * 5.0));
}

TEST_CASE("node power at (frequency, T-state) reproduces [A2A-Energy] eq. 8", "[energy][model]") {
  // The node of [A2A-Energy §3]: 8 cores (two quad-core Xeon E5450, 2.0-3.0 GHz), P_s = 150 W
  // static, P_d = 20 W memory dynamic, and P_10 = 222 W at the lowest frequency f_1 = 2.0 GHz
  // without throttling, so c * P_1 = 222 - 170 = 52 W. Per-core parameters that say the same:
  const int cores = 8;
  model_params p;
  p.f_max_khz = 3000000;
  p.f_min_khz = 2000000;
  p.p_static_w = 150.0 / cores;
  p.p_dyn_other_w = 20.0 / cores;
  const double r = 2.0 / 3.0;
  p.p_dyn_w = 52.0 / cores / (r * r * r);  // P_1 = p_dyn_w (f_1 / f_max)^3 = 6.5 W
  CHECK(node_power_w(p, cores, p.f_min_khz, 0) == Approx(222.0));
  // Eq. 8: P_15 = (5 (150 + 20) + 3 x 222) / 8 = 189.5 W.
  CHECK(node_power_w(p, cores, p.f_min_khz, 5) == Approx(189.5));
  CHECK((5 * (150.0 + 20.0) + 3 * 222.0) / 8 == 189.5);
  // Eq. 1 at the extremes: T7 leaves one period in eight at P_i0; the floor is P_s + P_d.
  CHECK(node_power_w(p, cores, p.f_min_khz, 7) == Approx((7 * 170.0 + 222.0) / 8));
  // The same as c ranks of the per-rank model, each busy, at duty (8 - j)/8.
  for (int j = 0; j < throttle_levels; ++j)
    CHECK(node_power_w(p, cores, p.f_max_khz, j) ==
          Approx(cores * model_power_w(p, 1.0, p.f_max_khz, throttle_duty(j))));
  // At f_max, P_i0 = c p_dyn_w + 170 W.
  CHECK(node_power_w(p, cores, p.f_max_khz, 0) == Approx(8 * p.p_dyn_w + 170.0));

  std::string e;
  try {
    node_power_w(p, cores, p.f_min_khz, 8);
  } catch (const gaea::error& err) {
    e = err.what();
  }
  CHECK(e.find("level = 8") != std::string::npos);
  e.clear();
  try {
    node_power_w(p, 0, p.f_min_khz, 5);
  } catch (const gaea::error& err) {
    e = err.what();
  }
  CHECK(e.find("cores = 0") != std::string::npos);
}

TEST_CASE("model file: unknown keys, wrong types and non-positive values name the key",
          "[energy][model]") {
  fake_root t;
  auto f = write_json(t, R"({"p_static_w": 3.5, "p_dyn": 12})");
  std::string e = load_error(f);
  CHECK(e.find(f.string()) != std::string::npos);
  CHECK(e.find("'p_dyn'") != std::string::npos);
  CHECK(e.find("unknown") != std::string::npos);

  f = write_json(t, R"({"p_dyn_w": -2.0})");
  e = load_error(f);
  CHECK(e.find("'p_dyn_w'") != std::string::npos);
  CHECK(e.find("positive") != std::string::npos);

  f = write_json(t, R"({"transition_ns": 0})");
  CHECK(load_error(f).find("'transition_ns'") != std::string::npos);

  // The non-CPU dynamic power may be 0 (no such term), not negative.
  f = write_json(t, R"({"p_dyn_other_w": -1})");
  e = load_error(f);
  CHECK(e.find("'p_dyn_other_w'") != std::string::npos);
  CHECK(e.find("0 or positive") != std::string::npos);
  f = write_json(t, R"({"p_dyn_other_w": 0})");
  CHECK(model_params::load(f).p_dyn_other_w == 0);
  f = write_json(t, R"({"throttle_transition_ns": 1.5})");
  e = load_error(f);
  CHECK(e.find("'throttle_transition_ns'") != std::string::npos);
  CHECK(e.find("integer") != std::string::npos);
  f = write_json(t, R"({"throttle_transition_j": 0})");
  CHECK(load_error(f).find("'throttle_transition_j'") != std::string::npos);

  f = write_json(t, R"({"f_max_khz": "fast"})");
  e = load_error(f);
  CHECK(e.find("'f_max_khz'") != std::string::npos);
  CHECK(e.find("integer") != std::string::npos);

  f = write_json(t, R"({"f_max_khz": 1000000, "f_min_khz": 2000000})");
  CHECK(load_error(f).find("'f_min_khz'") != std::string::npos);

  f = write_json(t, R"([1, 2])");
  CHECK(load_error(f).find("JSON object") != std::string::npos);
  f = write_json(t, R"({"p_dyn_w": )");
  CHECK(load_error(f).find("not valid JSON") != std::string::npos);
  CHECK(load_error(t.root() / "absent.json").find("no such file") != std::string::npos);

  // A partial file keeps the defaults for the other keys.
  f = write_json(t, R"({"p_dyn_w": 12.5})");
  const model_params p = model_params::load(f);
  CHECK(p.p_dyn_w == 12.5);
  CHECK(p.p_static_w == model_params{}.p_static_w);
  CHECK(p.source == f.string());
}

TEST_CASE("model file: save then load gives the same parameters", "[energy][model]") {
  fake_root t;
  model_params p;
  p.p_static_w = 3.3;
  p.p_dyn_w = 7.25;
  p.f_max_khz = 3100000;
  p.f_min_khz = 900000;
  p.transition_ns = 12345;
  p.transition_j = 1.5e-5;
  p.p_dyn_other_w = 2.25;
  p.throttle_transition_ns = 3456;
  p.throttle_transition_j = 4.5e-6;
  const auto file = t.root() / "calibrated.json";
  p.save(file);
  // Only the file itself: the temporary was renamed.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(t.root()))
    ++files;
  CHECK(files == 1);
  const model_params q = model_params::load(file);
  CHECK(q.p_static_w == p.p_static_w);
  CHECK(q.p_dyn_w == p.p_dyn_w);
  CHECK(q.f_max_khz == p.f_max_khz);
  CHECK(q.f_min_khz == p.f_min_khz);
  CHECK(q.transition_ns == p.transition_ns);
  CHECK(q.transition_j == p.transition_j);
  CHECK(q.p_dyn_other_w == p.p_dyn_other_w);
  CHECK(q.throttle_transition_ns == p.throttle_transition_ns);
  CHECK(q.throttle_transition_j == p.throttle_transition_j);
  CHECK(q.source == file.string());
  // Saving over an existing file replaces it.
  p.p_dyn_w = 8;
  p.save(file);
  CHECK(model_params::load(file).p_dyn_w == 8);
}

TEST_CASE("model file: a 'source' note is kept, shown after the file name, and must be text",
          "[energy][model]") {
  fake_root t;
  model_params p;
  p.note = "fitted by a test";
  const auto file = t.root() / "noted.json";
  p.save(file);
  const model_params q = model_params::load(file);
  CHECK(q.note == p.note);
  CHECK(q.source == file.string() + " (fitted by a test)");
  // Saved again, the note does not grow: the file name is not part of it.
  q.save(file);
  CHECK(model_params::load(file).note == "fitted by a test");
  // No note: no "source" key at all.
  model_params{}.save(file);
  CHECK(model_params::load(file).source == file.string());
  const auto bad = t.root() / "bad.json";
  std::ofstream(bad) << R"({"source": 3})";
  CHECK(load_error(bad).find("'source' must be a string") != std::string::npos);
}

TEST_CASE("model from_env: file when GAEA_ENERGY_MODEL is set, else defaults with cpufreq",
          "[energy][model]") {
  fake_root t;
  ::unsetenv("GAEA_ENERGY_MODEL");
  CHECK(model_params::from_env(t.root()).source == "defaults");
  CHECK(model_params::from_env(t.root()).f_max_khz == 2400000);

  t.write("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "3500000");
  t.write("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_min_freq", "1000000");
  const model_params hw = model_params::from_env(t.root());
  CHECK(hw.f_max_khz == 3500000);
  CHECK(hw.f_min_khz == 1000000);
  CHECK(hw.source.find("cpuinfo") != std::string::npos);
  CHECK(hw.p_dyn_w == model_params{}.p_dyn_w);

  const auto f = write_json(t, R"({"p_static_w": 2.5})");
  ::setenv("GAEA_ENERGY_MODEL", f.c_str(), 1);
  const model_params fromfile = model_params::from_env(t.root());
  ::unsetenv("GAEA_ENERGY_MODEL");
  CHECK(fromfile.p_static_w == 2.5);
  CHECK(fromfile.source == f.string());
}
