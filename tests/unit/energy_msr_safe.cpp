// gaea::energy through msr-safe (/dev/cpu/N/msr_safe and its allow-list) against fake trees:
// the throttle writes IA32_CLOCK_MODULATION only where the list allows its bits, a write refused
// while running is reported once and never retried, the RAPL meter reads MSR_PKG_ENERGY_STATUS
// in the unit of MSR_RAPL_POWER_UNIT across a wrap, and both work for a uid that is not root.

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "energy_fake_tree.hpp"
#include "gaea/energy/meter.hpp"
#include "gaea/energy/throttle.hpp"

using namespace gaea::energy;
using energy_test::add_msr_safe;
using energy_test::fake_root;
using energy_test::msr_safe_value;
using energy_test::set_msr_safe;

namespace {

constexpr std::int64_t clock_modulation = 0x19A, power_unit = 0x606, pkg_energy = 0x611;
// Energy status unit 14 (bits 12:8): 1/16384 J per count, as most Intel servers report.
constexpr std::uint64_t power_unit_esu14 = 0xA0E03;
constexpr double joule_counts = 16384;

const char* full_list =
    "# clock modulation and RAPL energy\n"
    "0x0000019A 0x000000000000001F\n"
    "0x00000606 0x0000000000000000\n"
    "0x00000611 0x0000000000000000\n";

throttle_config config_for(const fake_root& t, std::vector<int> cpus) {
  throttle_config cfg;
  cfg.kind = "auto";
  cfg.root = t.root();
  cfg.cpus = std::move(cpus);
  cfg.install_signal_handlers = false;
  return cfg;
}

void add_cpus(const fake_root& t, int n, std::uint64_t modulation = 0x300) {
  for (int c = 0; c < n; ++c)
    add_msr_safe(t, c,
                 {{clock_modulation, modulation}, {power_unit, power_unit_esu14}, {pkg_energy, 0}});
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("msr-safe throttle: used where the allow-list permits 0x19A, levels written, restored",
          "[energy][msr-safe]") {
  fake_root t;
  add_cpus(t, 2);
  t.write("/dev/cpu/msr_allowlist", full_list);
  throttle_choice c = make_throttle(config_for(t, {0, 1}));
  REQUIRE(c.thr);
  INFO(c.reason);
  CHECK(c.thr->name() == "msr-safe-clockmod");
  CHECK(c.thr->hardware());
  CHECK(contains(c.reason, "msr-safe-clockmod throttle on CPUs 0-1"));
  CHECK(contains(c.reason, "permits it"));
  REQUIRE(c.thr->set_level(1, 4));
  CHECK(msr_safe_value(t, 1, clock_modulation) == 0x318);  // enable + duty 4/8, bits 63:5 kept
  CHECK(msr_safe_value(t, 0, clock_modulation) == 0x300);
  CHECK(c.thr->transition_count() == 1);
  CHECK(c.thr->refusal().empty());
  c.thr->restore();
  CHECK(msr_safe_value(t, 1, clock_modulation) == 0x300);
}

TEST_CASE("msr-safe throttle: an allow-list without the bits refuses it and says what to allow",
          "[energy][msr-safe]") {
  for (const char* list : {"0x19A 0x0\n", "0x19A 0x10\n", "0x611 0x0\n"}) {
    fake_root t;
    add_cpus(t, 1);
    t.write("/dev/cpu/msr_allowlist", list);
    const throttle_choice c = make_throttle(config_for(t, {0}));
    INFO(list << " -> " << c.reason);
    CHECK_FALSE(c.thr->active());
    CHECK(contains(c.reason, "no MSR access (" + t.at("/dev/cpu/0/msr").string()));
    CHECK(contains(c.reason, "; msr-safe: 0x19A "));
    CHECK(contains(c.reason, "allow 0x19A with write mask 0x1F"));
    CHECK(msr_safe_value(t, 0, clock_modulation) == 0x300);  // not even the probe wrote
  }
}

TEST_CASE("msr-safe throttle: an unreadable or malformed allow-list leaves the probe to decide",
          "[energy][msr-safe]") {
  fake_root t;
  add_cpus(t, 1);
  // No list file: the device alone decides (a user outside msr-safe's admin group).
  throttle_choice c = make_throttle(config_for(t, {0}));
  REQUIRE(c.thr->active());
  CHECK(contains(c.reason, "allow-list not readable"));
  // A malformed list is named, line and all, and the device still decides.
  t.write("/dev/cpu/msr_allowlist", "0x19A 0x1F\nbogus\n");
  c = make_throttle(config_for(t, {0}));
  CHECK(c.thr->active());
  CHECK(contains(c.reason, "line 2 'bogus' is not '0x<address> 0x<write mask>'"));
  // No device at all: none, naming both paths and what a site must do.
  std::filesystem::remove(t.at("/dev/cpu/0/msr_safe"));
  c = make_throttle(config_for(t, {0}));
  CHECK_FALSE(c.thr->active());
  CHECK(contains(c.reason, t.at("/dev/cpu/0/msr_safe").string()));
  CHECK(contains(c.reason, "load msr-safe and allow 0x19A with write mask 0x1F"));
}

TEST_CASE("msr-safe throttle: a write refused while running is reported once and never retried",
          "[energy][msr-safe]") {
  fake_root t;
  add_cpus(t, 1);
  t.write("/dev/cpu/msr_allowlist", full_list);
  throttle_choice c = make_throttle(config_for(t, {0}));
  REQUIRE(c.thr->active());
  // A file-size limit below 0x19A makes the next pwrite fail (EFBIG), as a list changed under
  // the job makes msr-safe's fail (EPERM).
  ::signal(SIGXFSZ, SIG_IGN);
  rlimit old{};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
  rlimit low = old;
  low.rlim_cur = 0x100;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &low) == 0);
  const bool first = c.thr->set_level(0, 3);
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &old) == 0);
  ::signal(SIGXFSZ, SIG_DFL);
  CHECK_FALSE(first);
  const std::string refusal = c.thr->refusal();
  INFO(refusal);
  CHECK(contains(refusal, "msr-safe-clockmod: a write of 0x19A on CPU 0 was refused"));
  CHECK(contains(refusal, "not retried"));
  // The device would accept it now; Gaea does not try again.
  CHECK_FALSE(c.thr->set_level(0, 3));
  CHECK(msr_safe_value(t, 0, clock_modulation) == 0x300);
  CHECK(c.thr->transition_count() == 0);
  CHECK(c.thr->refusal() == refusal);
}

TEST_CASE("msr-safe RAPL meter: counts in the unit of 0x606, summed over packages, across a wrap",
          "[energy][msr-safe]") {
  fake_root t;
  add_cpus(t, 4);
  for (int c = 0; c < 4; ++c)
    t.write("/sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/physical_package_id",
            c < 2 ? "0" : "1");
  set_msr_safe(t, 2, pkg_energy, 0xFFFFFFF0ull | 0xABCD00000000ull);  // upper bits are reserved
  std::string why;
  std::unique_ptr<meter> m = make_msr_safe_meter(t.root(), why);
  REQUIRE(m);
  CHECK(m->name() == "msr-safe-rapl");
  CHECK(m->measured());
  CHECK(m->scope() == "packages 0-1 (whole node)");
  CHECK(*m->joules() == 0);
  set_msr_safe(t, 0, pkg_energy, 3 * 16384);  // package 0: 3 J
  set_msr_safe(t, 2, pkg_energy, 0x10);       // package 1: wrapped, 0x20 counts
  CHECK(std::abs(*m->joules() - (3.0 + 0x20 / joule_counts)) < 1e-12);
  set_msr_safe(t, 1, pkg_energy, 99 * 16384);  // not a package's first CPU: not read
  CHECK(std::abs(*m->joules() - (3.0 + 0x20 / joule_counts)) < 1e-12);
}

TEST_CASE("msr-safe RAPL meter: refused by the allow-list or absent, with what to allow",
          "[energy][msr-safe]") {
  fake_root t;
  std::string why;
  CHECK_FALSE(make_msr_safe_meter(t.root(), why));
  CHECK(contains(why, t.at("/dev/cpu/0/msr_safe").string()));
  CHECK(contains(why, "load msr-safe and allow 0x606 and 0x611 for reading"));
  add_cpus(t, 1);
  t.write("/dev/cpu/msr_allowlist", "0x19A 0x1F\n0x606 0x0\n");
  why.clear();
  CHECK_FALSE(make_msr_safe_meter(t.root(), why));
  CHECK(why == "0x611 not in the allow-list (allow 0x611)");
}

TEST_CASE("select_meter: auto takes msr-safe RAPL once it proved itself, after rapl and perf",
          "[energy][msr-safe]") {
  fake_root t;
  add_cpus(t, 1);
  t.write("/dev/cpu/msr_allowlist", full_list);
  std::uint64_t count = 0;
  const auto load = [&] {
    count += 2 * 16384;  // 2 J
    set_msr_safe(t, 0, pkg_energy, count);
  };
  meter_choice c = select_meter("auto", t.root(), model_params{}, {}, load);
  INFO(c.reason);
  REQUIRE(c.m);
  CHECK(c.m->name() == "msr-safe-rapl");
  CHECK(contains(c.reason, "msr-safe-rapl (measured, package 0 (whole node)): increased by 2.0"));
  REQUIRE(c.rejected.size() == 2);
  CHECK(c.rejected[0].rfind("rapl-powercap: ", 0) == 0);
  CHECK(c.rejected[1].rfind("perf-power: ", 0) == 0);
  // A counter that does not move loses to the model, and says so.
  c = select_meter("msr-safe", t.root(), model_params{}, {}, [] {});
  CHECK(c.m->name() == "model");
  CHECK(contains(c.rejected.back(), "msr-safe-rapl: read 0.000000 J"));
}

TEST_CASE("msr-safe as a uid that is not root: throttle and meter through the user's devices",
          "[energy][msr-safe][nonroot]") {
  if (::geteuid() != 0) {
    WARN("skipped: needs root to switch to a second uid");
    return;
  }
  constexpr unsigned user = energy_test::nobody_uid;
  fake_root t;
  add_cpus(t, 1);
  t.write("/dev/cpu/msr_allowlist", full_list);
  // The site's setup: msr_safe and the list readable and writable by the user; the kernel's msr
  // device root-only. The second CPU's msr_safe stays root's: the user may not open it.
  add_cpus(t, 2);
  add_msr_safe(t, 0, {{clock_modulation, 0x300}, {power_unit, power_unit_esu14}, {pkg_energy, 5}});
  std::filesystem::create_directories(t.at("/dev/cpu/0"));
  t.write("/dev/cpu/0/msr", "");
  ::chmod(t.at("/dev/cpu/0/msr").c_str(), 0600);
  for (const char* p : {"/", "/dev", "/dev/cpu", "/dev/cpu/0", "/dev/cpu/1"})
    ::chmod(t.at(p).c_str(), 0755);
  REQUIRE(::chown(t.at("/dev/cpu/0/msr_safe").c_str(), user, user) == 0);
  ::chmod(t.at("/dev/cpu/1/msr_safe").c_str(), 0600);
  const int rc = energy_test::run_as_user(user, [&] {
    throttle_choice c = make_throttle(config_for(t, {0}));
    if (!c.thr->active() || c.thr->name() != "msr-safe-clockmod") return 11;
    if (!c.thr->set_level(0, 2)) return 12;
    if (msr_safe_value(t, 0, clock_modulation) != 0x31C) return 13;  // enable + duty 6/8
    c.thr->restore();
    if (msr_safe_value(t, 0, clock_modulation) != 0x300) return 14;
    // CPU 1's device is root's: none, naming it.
    c = make_throttle(config_for(t, {0, 1}));
    if (c.thr->active() || !contains(c.reason, "/dev/cpu/1/msr_safe: Permission denied")) return 15;
    std::string why;
    std::unique_ptr<meter> m = make_msr_safe_meter(t.root(), why);
    if (!m) return 16;
    set_msr_safe(t, 0, pkg_energy, 5 + 16384);
    const auto j = m->joules();
    if (!j || std::abs(*j - 1.0) > 1e-12) return 17;
    return 0;
  });
  CHECK(rc == 0);
}
