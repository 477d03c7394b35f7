// Slurm's frequency request (SLURM_CPU_FREQ_REQ): every documented form parsed, bad input
// refused by name, and a cpufreq actuator that keeps within the job's limits or stays off.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "energy_fake_tree.hpp"
#include "gaea/base/error.hpp"
#include "gaea/energy/actuator.hpp"
#include "gaea/energy/slurm.hpp"

using namespace gaea::energy;
using energy_test::add_cpufreq;
using energy_test::cpufreq_files;
using energy_test::cpufreq_path;
using energy_test::fake_root;
using level = slurm_freq::level;

namespace {

// The fake tree's frequencies (energy_fake_tree.hpp's defaults).
const std::vector<std::int64_t> available{2400000, 2000000, 1600000, 1200000, 800000};

actuator_config config_for(const fake_root& t, std::string request) {
  actuator_config cfg;
  cfg.root = t.root();
  cfg.cpus = {0, 1};
  cfg.install_signal_handlers = false;
  cfg.cpu_freq_request = std::move(request);
  return cfg;
}

std::string refusal_of(const std::string& text) {
  std::string why;
  CHECK_FALSE(slurm_limits(parse_slurm_cpu_freq(text), available, why));
  return why;
}

}  // namespace

TEST_CASE("slurm request: one frequency, in kHz or as a level, in any case", "[energy][slurm]") {
  const slurm_cpu_freq khz = parse_slurm_cpu_freq("1800000");
  REQUIRE(khz.fixed());
  CHECK(khz.min->kind == level::khz);
  CHECK(khz.min->khz == 1800000);
  CHECK(khz.governor.empty());
  for (const auto& [text, kind] :
       std::vector<std::pair<std::string, level>>{{"low", level::low},
                                                  {"Medium", level::medium},
                                                  {"HIGH", level::high},
                                                  {"HighM1", level::highm1}}) {
    const slurm_cpu_freq r = parse_slurm_cpu_freq(text);
    INFO(text);
    REQUIRE(r.fixed());
    CHECK(r.min->kind == kind);
  }
}

TEST_CASE("slurm request: the levels resolve against the CPU's frequencies", "[energy][slurm]") {
  CHECK(resolve_slurm_freq({level::low, 0}, available) == 800000);
  CHECK(resolve_slurm_freq({level::medium, 0}, available) == 1600000);
  CHECK(resolve_slurm_freq({level::high, 0}, available) == 2400000);
  CHECK(resolve_slurm_freq({level::highm1, 0}, available) == 2000000);
  CHECK(resolve_slurm_freq({level::khz, 1234567}, available) == 1234567);
  CHECK(resolve_slurm_freq({level::highm1, 0}, {1000000}) == 1000000);
  CHECK_THROWS_AS(resolve_slurm_freq({level::low, 0}, {}), gaea::error);
}

TEST_CASE("slurm request: a governor alone, a range, a range with a governor", "[energy][slurm]") {
  for (const char* g :
       {"Conservative", "OnDemand", "Performance", "PowerSave", "SchedUtil", "UserSpace"}) {
    const slurm_cpu_freq r = parse_slurm_cpu_freq(g);
    INFO(g);
    CHECK_FALSE(r.min);
    CHECK_FALSE(r.max);
    CHECK(r.governor.size() == std::string(g).size());
    CHECK(r.governor.find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") == std::string::npos);
  }
  CHECK(parse_slurm_cpu_freq("PowerSave").governor == "powersave");
  const slurm_cpu_freq range = parse_slurm_cpu_freq("1200000-2000000");
  REQUIRE(range.min);
  REQUIRE(range.max);
  CHECK_FALSE(range.fixed());
  CHECK(range.min->khz == 1200000);
  CHECK(range.max->khz == 2000000);
  const slurm_cpu_freq symbolic = parse_slurm_cpu_freq("low-highm1:performance");
  CHECK(symbolic.min->kind == level::low);
  CHECK(symbolic.max->kind == level::highm1);
  CHECK(symbolic.governor == "performance");
  CHECK(parse_slurm_cpu_freq("medium-high:UserSpace").governor == "userspace");
}

TEST_CASE("slurm request: bad input is a gaea::error naming the variable and the text",
          "[energy][slurm]") {
  for (const char* bad : {"", "fast", "0", "-5", "12ab", "1200000-", "-2000000", "low-low",
                          "2000000-1200000", "1200000-2000000:turbo", "high:performance",
                          "1200000-2000000:", "99999999999999999", "1e6", "1200000--2000000"}) {
    INFO(bad);
    try {
      parse_slurm_cpu_freq(bad);
      FAIL("accepted");
    } catch (const gaea::error& e) {
      const std::string what = e.what();
      CHECK(what.find("SLURM_CPU_FREQ_REQ='" + std::string(bad) + "'") != std::string::npos);
      CHECK(what.find("accepted:") != std::string::npos);
    }
  }
}

TEST_CASE("slurm request: a fixed frequency or a governor alone keeps DVFS off",
          "[energy][slurm]") {
  CHECK(refusal_of("2000000").find("fixes the job's frequency") != std::string::npos);
  CHECK(refusal_of("low").find("SLURM_CPU_FREQ_REQ=low") != std::string::npos);
  CHECK(refusal_of("performance").find("performance governor") != std::string::npos);
  std::string why;
  const auto all = slurm_limits(parse_slurm_cpu_freq("userspace"), available, why);
  REQUIRE(all);
  CHECK(all->min_khz == 800000);
  CHECK(all->max_khz == 2400000);
  const auto range = slurm_limits(parse_slurm_cpu_freq("medium-highm1"), available, why);
  REQUIRE(range);
  CHECK(range->min_khz == 1600000);
  CHECK(range->max_khz == 2000000);
  CHECK_FALSE(slurm_limits(parse_slurm_cpu_freq("highm1-medium"), available, why));
  CHECK(why.find("above its maximum") != std::string::npos);
}

TEST_CASE("slurm request: cpufreq keeps its low and high levels within the job's range",
          "[energy][slurm][actuator]") {
  fake_root t;
  add_cpufreq(t, 0, {});
  add_cpufreq(t, 1, {});
  auto choice = make_actuator(config_for(t, "1200000-2000000"));
  INFO(choice.reason);
  REQUIRE(choice.act->active());
  actuator& a = *choice.act;
  CHECK(a.low_khz(0) == 1200000);
  CHECK(a.high_khz(1) == 2000000);
  CHECK(choice.reason.find("kept within the job's limits 1200000-2000000 kHz") !=
        std::string::npos);
  REQUIRE(a.set_low(0, true));
  CHECK(t.line(cpufreq_path(0, "scaling_setspeed")) == "1200000");
  REQUIRE(a.set_low(0, false));
  CHECK(t.line(cpufreq_path(0, "scaling_setspeed")) == "2000000");  // not 2400000
  a.restore();
}

TEST_CASE("slurm request: a range with a governor keeps the governor (scaling_max_freq only)",
          "[energy][slurm][actuator]") {
  fake_root t;
  cpufreq_files f;
  f.governor = "performance";
  f.available_governors = "userspace performance";
  f.setspeed = "<unsupported>";
  f.scaling_max = 2000000;
  add_cpufreq(t, 0, f);
  add_cpufreq(t, 1, f);
  auto choice = make_actuator(config_for(t, "low-2000000:Performance"));
  INFO(choice.reason);
  REQUIRE(choice.act->active());
  CHECK(choice.act->name() == "cpufreq-minmax");
  REQUIRE(choice.act->set_low(1, true));
  CHECK(t.line(cpufreq_path(1, "scaling_max_freq")) == "800000");
  CHECK(t.line(cpufreq_path(1, "scaling_governor")) == "performance");
  REQUIRE(choice.act->set_low(1, false));
  CHECK(t.line(cpufreq_path(1, "scaling_max_freq")) == "2000000");
  choice.act->restore();
}

TEST_CASE("slurm request: a fixed frequency, a governor or bad text leave the actuator off",
          "[energy][slurm][actuator]") {
  fake_root t;
  add_cpufreq(t, 0, {});
  add_cpufreq(t, 1, {});
  for (const auto& [request, says] :
       std::vector<std::pair<std::string, std::string>>{{"highm1", "fixes the job's frequency"},
                                                        {"OnDemand", "ondemand governor"},
                                                        {"2000000-2000000", "one frequency"},
                                                        {"warp9", "SLURM_CPU_FREQ_REQ='warp9'"}}) {
    auto choice = make_actuator(config_for(t, request));
    INFO(request << ": " << choice.reason);
    CHECK(choice.act->name() == "none");
    CHECK(choice.reason.find(says) != std::string::npos);
    CHECK(choice.reason.find("sleep-only, no DVFS") != std::string::npos);
    CHECK(t.line(cpufreq_path(0, "scaling_governor")) == "userspace");
    CHECK(t.line(cpufreq_path(0, "scaling_setspeed")) == "2000000");  // untouched
  }
}

TEST_CASE("slurm energy note says which figure is whose", "[energy][slurm]") {
  const std::string note = slurm_energy_note("4242");
  CHECK(note.find("Slurm job 4242") != std::string::npos);
  CHECK(note.find("ConsumedEnergy is the node's") != std::string::npos);
  CHECK(note.find("Gaea's figure is its own meter's") != std::string::npos);
}
