// gaea::energy meters: RAPL powercap on fake trees (packages only, wrap-around), perf power events
// that open but never count, prove(), and select_meter's fall-back to the model.

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <string>

#include "energy_fake_tree.hpp"
#include "gaea/base/error.hpp"
#include "gaea/energy/meter.hpp"

using namespace gaea::energy;
using energy_test::fake_root;

namespace {

const auto short_burn = [] { burn_cpu(std::chrono::milliseconds(20)); };

void add_zone(const fake_root& t, const std::string& zone, const std::string& name,
              std::uint64_t energy_uj, std::uint64_t range_uj) {
  const std::string dir = "/sys/class/powercap/" + zone;
  t.write(dir + "/name", name);
  t.write(dir + "/energy_uj", std::to_string(energy_uj));
  t.write(dir + "/max_energy_range_uj", std::to_string(range_uj));
}

void set_energy(const fake_root& t, const std::string& zone, std::uint64_t energy_uj) {
  t.write("/sys/class/powercap/" + zone + "/energy_uj", std::to_string(energy_uj));
}

// A perf "power" PMU whose energy-pkg event is really the software dummy event
// (PERF_TYPE_SOFTWARE = 1, PERF_COUNT_SW_DUMMY = 9): it opens where perf is allowed and always
// reads 0, like the RAPL event of a machine that exposes it without counting.
void add_dead_perf_pmu(const fake_root& t) {
  t.write("/sys/bus/event_source/devices/power/type", "1");
  t.write("/sys/bus/event_source/devices/power/events/energy-pkg", "event=0x09");
  t.write("/sys/bus/event_source/devices/power/events/energy-pkg.scale",
          "2.3283064365386962890625e-10");
  t.write("/sys/devices/system/cpu/cpu0/topology/physical_package_id", "0");
}

class constant_meter final : public meter {
 public:
  std::string_view name() const noexcept override { return "constant"; }
  bool measured() const noexcept override { return true; }
  std::optional<double> joules() override { return 5.0; }
  std::string scope() const override { return "test"; }
};

class growing_meter final : public meter {
 public:
  std::string_view name() const noexcept override { return "growing"; }
  bool measured() const noexcept override { return true; }
  std::optional<double> joules() override { return j_ += 0.25; }
  std::string scope() const override { return "test"; }

 private:
  double j_ = 0;
};

class broken_meter final : public meter {
 public:
  std::string_view name() const noexcept override { return "broken"; }
  bool measured() const noexcept override { return true; }
  std::optional<double> joules() override { return std::nullopt; }
  std::string scope() const override { return "test"; }
};

}  // namespace

TEST_CASE("RAPL powercap: packages summed, subzones ignored, wrap-around handled",
          "[energy][meter]") {
  fake_root t;
  add_zone(t, "intel-rapl:0", "package-0", 1000000, 2000000);
  add_zone(t, "intel-rapl:1", "package-1", 5000000, 262143328850ULL);
  add_zone(t, "intel-rapl:0:0", "core", 300, 262143328850ULL);  // inside package 0
  add_zone(t, "intel-rapl-mmio:0", "package-0", 700, 262143328850ULL);
  add_zone(t, "intel-rapl:2", "psys", 900, 262143328850ULL);  // platform: overlaps packages

  std::string why;
  auto m = make_rapl_meter(t.root(), why);
  INFO(why);
  REQUIRE(m);
  CHECK(m->name() == "rapl-powercap");
  CHECK(m->measured());
  CHECK(m->scope() == "packages 0-1 (whole node)");
  REQUIRE(m->joules());
  CHECK(*m->joules() == Approx(0.0).margin(1e-9));

  set_energy(t, "intel-rapl:0", 1500000);    // +0.5 J
  set_energy(t, "intel-rapl:1", 5250000);    // +0.25 J
  set_energy(t, "intel-rapl:0:0", 9000000);  // ignored
  set_energy(t, "intel-rapl-mmio:0", 9000000);
  set_energy(t, "intel-rapl:2", 9000000);
  CHECK(*m->joules() == Approx(0.75).margin(1e-9));

  // Package 0 wraps: 1500000 -> (range 2000000) -> 200000 is 200000 + 2000001 - 1500000 uJ.
  set_energy(t, "intel-rapl:0", 200000);
  const double expected = 0.75 + (200000.0 + 2000001.0 - 1500000.0) * 1e-6;
  CHECK(*m->joules() == Approx(expected).margin(1e-9));
  set_energy(t, "intel-rapl:1", 5250001);
  CHECK(*m->joules() == Approx(expected + 1e-6).margin(1e-9));

  // A read that fails leaves the total alone and says so.
  std::filesystem::remove(t.at("/sys/class/powercap/intel-rapl:1/energy_uj"));
  CHECK_FALSE(m->joules());
  set_energy(t, "intel-rapl:1", 5250001);
  CHECK(*m->joules() == Approx(expected + 1e-6).margin(1e-9));
}

TEST_CASE("RAPL powercap: absent or unreadable gives no meter and a reason", "[energy][meter]") {
  fake_root t;
  std::string why;
  CHECK_FALSE(make_rapl_meter(t.root(), why));
  CHECK(why.find("no powercap zones under") != std::string::npos);

  add_zone(t, "intel-rapl:0", "package-0", 1000, 2000000);
  // Root reads anything whatever its mode, so make energy_uj unreadable for root too: a
  // directory (read() fails with EISDIR).
  std::filesystem::remove(t.at("/sys/class/powercap/intel-rapl:0/energy_uj"));
  std::filesystem::create_directories(t.at("/sys/class/powercap/intel-rapl:0/energy_uj"));
  why.clear();
  CHECK_FALSE(make_rapl_meter(t.root(), why));
  INFO(why);
  CHECK(why.find("energy_uj not readable") != std::string::npos);
  CHECK(why.find("root-only since Linux 5.10") != std::string::npos);
}

TEST_CASE("prove() accepts a growing meter and rejects constant or failing ones",
          "[energy][meter]") {
  constant_meter c;
  const proof pc = prove(c, short_burn);
  CHECK_FALSE(pc.ok);
  CHECK(pc.why.find("read 0.000000 J over") != std::string::npos);
  CHECK(pc.why.find("ms of load") != std::string::npos);

  growing_meter g;
  const proof pg = prove(g, short_burn);
  CHECK(pg.ok);
  CHECK(pg.why.find("increased by 0.250000 J") != std::string::npos);

  broken_meter b;
  const proof pb = prove(b, short_burn);
  CHECK_FALSE(pb.ok);
  CHECK(pb.why.find("read failed") != std::string::npos);
}

TEST_CASE("burn_cpu keeps the thread busy for the requested time", "[energy][meter]") {
  const auto t0 = std::chrono::steady_clock::now();
  burn_cpu(std::chrono::milliseconds(15));
  CHECK(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(15));
}

TEST_CASE("a perf power event that reads 0 J is never chosen", "[energy][meter]") {
  fake_root t;
  add_dead_perf_pmu(t);
  std::string why;
  auto perf = make_perf_meter(t.root(), why);
  if (perf) {
    // perf_event_open allowed here: the event opens and reads, but never grows.
    CHECK(perf->name() == "perf-power");
    CHECK(perf->scope() == "package 0 (whole node)");
    const proof p = prove(*perf, short_burn);
    CHECK_FALSE(p.ok);
    CHECK(p.why.find("read 0.000000 J") != std::string::npos);
  } else {
    CHECK(why.find("perf_event_open") != std::string::npos);
  }

  for (const char* kind : {"auto", "perf"}) {
    const auto choice = select_meter(kind, t.root(), model_params{}, {}, short_burn);
    INFO(choice.reason);
    REQUIRE(choice.m);
    CHECK(choice.m->name() == "model");
    CHECK_FALSE(choice.m->measured());
    bool perf_rejected = false;
    for (const auto& r : choice.rejected)
      perf_rejected = perf_rejected || r.rfind("perf-power: ", 0) == 0;
    CHECK(perf_rejected);
    if (std::string(kind) == "perf") {
      CHECK(choice.rejected.size() == 1);
      CHECK(choice.reason.find("GAEA_ENERGY_METER=perf but perf-power") != std::string::npos);
    } else {
      CHECK(choice.rejected.size() == 4);  // RAPL: no zones; msr-safe: no device; no GEOPM
      CHECK(choice.rejected[0].rfind("rapl-powercap: no powercap zones", 0) == 0);
      CHECK(choice.rejected[2].rfind("msr-safe-rapl: ", 0) == 0);
      CHECK(choice.rejected[3].rfind("geopm: ", 0) == 0);
    }
  }
}

TEST_CASE("a perf event that counts proves itself and is chosen", "[energy][meter]") {
  // PERF_COUNT_SW_CPU_CLOCK (type 1, config 0) counts nanoseconds: with a scale of 1e-9 the
  // "energy" is seconds of CPU clock, which grows under any load.
  fake_root t;
  t.write("/sys/bus/event_source/devices/power/type", "1");
  t.write("/sys/bus/event_source/devices/power/events/energy-pkg", "event=0x0");
  t.write("/sys/bus/event_source/devices/power/events/energy-pkg.scale", "1e-9");
  std::string why;
  if (!make_perf_meter(t.root(), why)) {
    WARN("perf_event_open not permitted here, skipped: " << why);
    return;
  }
  const auto choice = select_meter("auto", t.root(), model_params{}, {}, short_burn);
  INFO(choice.reason);
  REQUIRE(choice.m);
  CHECK(choice.m->name() == "perf-power");
  CHECK(choice.m->measured());
  CHECK(choice.reason.find("measured") != std::string::npos);
  CHECK(choice.rejected.size() == 1);  // RAPL: no zones
}

TEST_CASE("select_meter on this machine picks a meter that proved itself, or the model",
          "[energy][meter]") {
  const auto choice = select_meter("auto", "/", model_params{}, {},
                                   [] { burn_cpu(std::chrono::milliseconds(30)); });
  INFO(choice.reason);
  for (const auto& r : choice.rejected)
    INFO("rejected: " << r);
  REQUIRE(choice.m);
  if (choice.m->measured()) {
    CHECK(choice.reason.find("increased by") != std::string::npos);
  } else {
    CHECK(choice.m->name() == "model");
    CHECK(choice.rejected.size() == 4);  // every hardware meter was tried and said why not
    for (const auto& r : choice.rejected)
      CHECK(r.find(": ") != std::string::npos);
  }
}

TEST_CASE("the model meter reports the model's energy since its creation", "[energy][meter]") {
  model_params p;
  usage_snapshot u;
  u.wall_seconds = 1;
  u.shares = {{0.5, 0}};
  const auto m = make_model_meter(p, [&u] { return u; });
  CHECK(m->name() == "model");
  CHECK_FALSE(m->measured());
  CHECK(m->scope() == "model of this rank");
  CHECK(*m->joules() == Approx(0.0).margin(1e-12));
  u.wall_seconds = 3;
  u.shares = {{1.5, 0}, {1.0, p.f_max_khz / 2}};
  u.transitions = 4;
  const std::vector<cpu_share> at_start = {{0.5, 0}};
  const double expected = model_energy_j(p, 3, u.shares, 4) - model_energy_j(p, 1, at_start, 0);
  CHECK(*m->joules() == Approx(expected).epsilon(1e-12));
}

TEST_CASE("select_meter: model on request, unknown kind names GAEA_ENERGY_METER",
          "[energy][meter]") {
  fake_root t;
  const auto choice = select_meter("model", t.root(), model_params{}, {}, short_burn);
  CHECK(choice.m->name() == "model");
  CHECK(choice.rejected.empty());
  CHECK(choice.reason.find("estimated") != std::string::npos);
  const auto rapl = select_meter("rapl", t.root(), model_params{}, {}, short_burn);
  CHECK(rapl.m->name() == "model");
  CHECK(rapl.reason.find("GAEA_ENERGY_METER=rapl but rapl-powercap") != std::string::npos);
  try {
    select_meter("joulemeter", t.root(), model_params{}, {}, short_burn);
    FAIL("no exception");
  } catch (const gaea::error& e) {
    CHECK(std::string(e.what()).find("GAEA_ENERGY_METER") != std::string::npos);
  }
}

TEST_CASE("perf power events: a refusal names perf_event_paranoid and what a user needs",
          "[energy][meter][nonroot]") {
  // The real value decides whether the kernel lets a user open a CPU-wide event; the fake tree
  // carries it so that the reason can name it.
  const auto real = read_int("/proc/sys/kernel/perf_event_paranoid");
  if (!real) {
    WARN("skipped: /proc/sys/kernel/perf_event_paranoid not readable");
    return;
  }
  fake_root t;
  t.write("/sys/bus/event_source/devices/power/type", "1");  // software: cpu-clock
  t.write("/sys/bus/event_source/devices/power/events/energy-pkg", "event=0x0");
  t.write("/sys/bus/event_source/devices/power/events/energy-pkg.scale", "1e-9");
  t.write("/proc/sys/kernel/perf_event_paranoid", std::to_string(*real));
  for (const char* p : {"/", "/sys", "/proc", "/proc/sys", "/proc/sys/kernel"})
    ::chmod(t.at(p).c_str(), 0755);
  const int rc = energy_test::run_as_user(energy_test::nobody_uid, [&] {
    std::string why;
    const bool opened = make_perf_meter(t.root(), why) != nullptr;
    if (*real <= 0) return opened ? 0 : 20;  // allowed: the user's event opens
    if (opened) return 21;
    return why.find("perf_event_paranoid is " + std::to_string(*real) +
                    ": a CPU-wide power event needs <= 0 for a user who is not root") !=
                   std::string::npos
               ? 0
               : 22;
  });
  if (rc < 0) {
    WARN("skipped: needs root to switch to a second uid");
    return;
  }
  CHECK(rc == 0);
  // An event the kernel does not know fails for everyone; a paranoid of -1 is then not the cause.
  t.write("/sys/bus/event_source/devices/power/type", "2147483000");
  t.write("/proc/sys/kernel/perf_event_paranoid", "-1");
  std::string why;
  CHECK_FALSE(make_perf_meter(t.root(), why));
  CHECK(why.find("perf_event_paranoid is -1: not the cause") != std::string::npos);
}
