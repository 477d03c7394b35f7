// The GEOPM backends (meter "geopm", DVFS "geopm") against a fake geopmread/geopmwrite
// (tests/energy_site/fake_geopm.sh): what is read and written, the proofs that refuse a backend
// the service does not allow, Slurm's limits, and the same as a uid that is not root.

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "energy_fake_tree.hpp"
#include "gaea/energy/actuator.hpp"
#include "gaea/energy/meter.hpp"

using namespace gaea::energy;
using energy_test::fake_root;

namespace {

bool contains(const std::string& s, std::string_view part) {
  return s.find(part) != std::string::npos;
}

// A fake GEOPM service: bin/geopmread and bin/geopmwrite (links to the script), its signals,
// the controls its access list allows, and the log of writes. Points GAEA_GEOPM_BIN_DIR and
// FAKE_GEOPM_DIR at itself while it lives.
class fake_geopm {
 public:
  fake_geopm() {
    namespace fs = std::filesystem;
    for (const char* d : {"bin", "signals", "controls"})
      fs::create_directories(t_.root() / d);
    for (const char* tool : {"geopmread", "geopmwrite"})
      fs::create_symlink(GAEA_FAKE_GEOPM, t_.root() / "bin" / tool);
    ::setenv("GAEA_GEOPM_BIN_DIR", (t_.root() / "bin").c_str(), 1);
    ::setenv("FAKE_GEOPM_DIR", t_.root().c_str(), 1);
  }
  ~fake_geopm() {
    ::unsetenv("GAEA_GEOPM_BIN_DIR");
    ::unsetenv("FAKE_GEOPM_DIR");
  }
  void signal(const std::string& name, const std::string& domain, int index, double value) const {
    std::ofstream(t_.root() / "signals" / key(name, domain, index)) << value << '\n';
  }
  void allow(const std::string& name, const std::string& domain, int index) const {
    std::ofstream(t_.root() / "controls" / key(name, domain, index));
  }
  double value(const std::string& name, const std::string& domain, int index) const {
    std::ifstream in(t_.root() / "signals" / key(name, domain, index));
    double v = -1;
    in >> v;
    return v;
  }
  std::string writes() const {
    std::ifstream in(t_.root() / "writes.log");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  /// A CPU whose frequency control the service lets users write (1-3 GHz, now at 3 GHz).
  void add_cpu(int cpu, bool allowed = true) const {
    signal("CPU_FREQUENCY_MIN_AVAIL", "cpu", cpu, 1e9);
    signal("CPU_FREQUENCY_MAX_AVAIL", "cpu", cpu, 3e9);
    signal("CPU_FREQUENCY_MAX_CONTROL", "cpu", cpu, 3e9);
    if (allowed) allow("CPU_FREQUENCY_MAX_CONTROL", "cpu", cpu);
  }
  const fake_root& tree() const { return t_; }

 private:
  static std::string key(const std::string& name, const std::string& domain, int index) {
    return name + "@" + domain + "@" + std::to_string(index);
  }
  fake_root t_;
};

actuator_config geopm_config(const fake_geopm& g, std::string kind = "geopm") {
  actuator_config cfg;
  cfg.kind = std::move(kind);
  cfg.root = g.tree().root();  // no cpufreq there
  cfg.cpus = {0, 1};
  cfg.install_signal_handlers = false;
  return cfg;
}

}  // namespace

TEST_CASE("geopm meter: CPU_ENERGY of the board through geopmread, proved under load",
          "[energy][geopm]") {
  fake_geopm g;
  g.signal("CPU_ENERGY", "board", 0, 100.0);
  std::string why;
  std::unique_ptr<meter> m = make_geopm_meter(why);
  INFO(why);
  REQUIRE(m);
  CHECK(m->name() == "geopm");
  CHECK(m->measured());
  const auto j1 = m->joules();
  const auto j2 = m->joules();
  REQUIRE(j1);
  REQUIRE(j2);
  CHECK(*j2 - *j1 == Approx(1.5));  // the fake's counter grows 1.5 J a read
  meter_choice c = select_meter("geopm", g.tree().root(), model_params{}, {}, {});
  INFO(c.reason);
  CHECK(c.m->name() == "geopm");
  CHECK(contains(c.reason, "geopm (measured, board 0 (whole node)"));
}

TEST_CASE("geopm meter: refused, saying why, without the signal or the tools", "[energy][geopm]") {
  fake_geopm g;
  std::string why;
  CHECK_FALSE(make_geopm_meter(why));
  CHECK(contains(why, "signal CPU_ENERGY not available"));
  CHECK(contains(why, "GEOPM service and CPU_ENERGY in its access list"));
  meter_choice c = select_meter("geopm", g.tree().root(), model_params{}, {}, {});
  CHECK(c.m->name() == "model");
  ::setenv("GAEA_GEOPM_BIN_DIR", "/nonexistent-geopm", 1);
  CHECK_FALSE(make_geopm_meter(why));
  CHECK(contains(why, "/nonexistent-geopm/geopmread not executable (GAEA_GEOPM_BIN_DIR)"));
}

TEST_CASE("geopm DVFS: CPU_FREQUENCY_MAX_CONTROL low and back, proved first, restored",
          "[energy][geopm][actuator]") {
  fake_geopm g;
  g.add_cpu(0);
  g.add_cpu(1);
  actuator_choice c = make_actuator(geopm_config(g));
  INFO(c.reason);
  REQUIRE(c.act->active());
  actuator& a = *c.act;
  CHECK(a.name() == "geopm");
  CHECK(a.hardware());
  CHECK(a.low_khz(0) == 1000000);
  CHECK(a.high_khz(1) == 3000000);
  // The proof: each CPU's high level (its value found) written and read back.
  CHECK(g.writes() ==
        "CPU_FREQUENCY_MAX_CONTROL cpu 0 3000000000\nCPU_FREQUENCY_MAX_CONTROL cpu 1 3000000000\n");
  REQUIRE(a.set_low(1, true));
  CHECK(g.value("CPU_FREQUENCY_MAX_CONTROL", "cpu", 1) == 1e9);
  CHECK(g.value("CPU_FREQUENCY_MAX_CONTROL", "cpu", 0) == 3e9);
  CHECK(a.current_khz(1) == 1000000);
  CHECK(a.transition_count() == 1);
  a.restore();
  CHECK(g.value("CPU_FREQUENCY_MAX_CONTROL", "cpu", 1) == 3e9);
  CHECK(a.current_khz(1) == 3000000);
}

TEST_CASE("geopm DVFS: a site's cap on the control is the high level, never raised",
          "[energy][geopm][actuator]") {
  fake_geopm g;
  g.add_cpu(0);
  g.signal("CPU_FREQUENCY_MAX_CONTROL", "cpu", 0, 2.2e9);
  actuator_config cfg = geopm_config(g);
  cfg.cpus = {0};
  actuator_choice c = make_actuator(cfg);
  INFO(c.reason);
  REQUIRE(c.act->name() == "geopm");
  CHECK(c.act->high_khz(0) == 2200000);
  REQUIRE(c.act->set_low(0, true));
  REQUIRE(c.act->set_low(0, false));
  CHECK(g.value("CPU_FREQUENCY_MAX_CONTROL", "cpu", 0) == 2.2e9);
  CHECK(g.writes().find("3000000000") == std::string::npos);
}

TEST_CASE("geopm DVFS: auto takes it where cpufreq is missing; refused by the access list",
          "[energy][geopm][actuator]") {
  fake_geopm g;
  g.add_cpu(0);
  g.add_cpu(1, false);  // the service's access list lacks CPU 1's control
  actuator_choice c = make_actuator(geopm_config(g, "auto"));
  INFO(c.reason);
  CHECK(c.act->name() == "none");
  CHECK(contains(c.reason, "no writable cpufreq"));
  CHECK(contains(c.reason, "GEOPM refused the probe write"));
  CHECK(contains(c.reason, "cpu 1: not in the access list"));
  CHECK(contains(c.reason, "sleep-only, no DVFS"));
  g.allow("CPU_FREQUENCY_MAX_CONTROL", "cpu", 1);
  c = make_actuator(geopm_config(g, "auto"));
  CHECK(c.act->name() == "geopm");
  // cpufreq only: GEOPM is not tried.
  c = make_actuator(geopm_config(g, "cpufreq"));
  CHECK(c.act->name() == "none");
  CHECK_FALSE(contains(c.reason, "GEOPM"));
}

TEST_CASE("geopm DVFS: Slurm's range bounds it, a fixed frequency keeps it off",
          "[energy][geopm][slurm]") {
  fake_geopm g;
  g.add_cpu(0);
  g.add_cpu(1);
  actuator_config cfg = geopm_config(g);
  cfg.cpu_freq_request = "1500000-2500000";
  actuator_choice c = make_actuator(cfg);
  INFO(c.reason);
  REQUIRE(c.act->name() == "geopm");
  CHECK(c.act->low_khz(0) == 1500000);
  CHECK(c.act->high_khz(0) == 2500000);
  REQUIRE(c.act->set_low(0, true));
  CHECK(g.value("CPU_FREQUENCY_MAX_CONTROL", "cpu", 0) == 1.5e9);
  c.act->restore();
  cfg.cpu_freq_request = "2000000";
  const std::string before = g.writes();
  c = make_actuator(cfg);
  CHECK(c.act->name() == "none");
  CHECK(contains(c.reason, "fixes the job's frequency"));
  CHECK(g.writes() == before);  // nothing written, not even a probe
}

TEST_CASE("geopm as a uid that is not root: meter and DVFS through the tools",
          "[energy][geopm][nonroot]") {
  if (::geteuid() != 0) {
    WARN("skipped: needs root to switch to a second uid");
    return;
  }
  constexpr unsigned user = energy_test::nobody_uid;
  fake_geopm g;
  g.signal("CPU_ENERGY", "board", 0, 10.0);
  g.add_cpu(0);
  g.add_cpu(1);
  // The service's state belongs to the service; here the user owns the fake's files.
  for (const auto& e : std::filesystem::recursive_directory_iterator(g.tree().root()))
    REQUIRE(::lchown(e.path().c_str(), user, user) == 0);
  REQUIRE(::chown(g.tree().root().c_str(), user, user) == 0);
  const int rc = energy_test::run_as_user(user, [&] {
    std::string why;
    std::unique_ptr<meter> m = make_geopm_meter(why);
    if (!m) return 11;
    const auto j = m->joules();
    if (!j || !(*j > 0)) return 12;
    actuator_choice c = make_actuator(geopm_config(g));
    if (c.act->name() != "geopm") return 13;
    if (!c.act->set_low(0, true)) return 14;
    if (g.value("CPU_FREQUENCY_MAX_CONTROL", "cpu", 0) != 1e9) return 15;
    c.act->restore();
    return g.value("CPU_FREQUENCY_MAX_CONTROL", "cpu", 0) == 3e9 ? 0 : 16;
  });
  CHECK(rc == 0);
}
