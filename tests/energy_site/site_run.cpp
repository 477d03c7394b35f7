// gaea-site-run: a small multi-rank run that drives the runtime's throttle and DVFS actuator
// through whatever backends the site offers, for the non-root end-to-end test (nonroot.sh).
//   gaea-site-run <expected throttle backend> <expected DVFS backend>   ("-": not checked)
// Every rank sets T5 and DVFS low on its CPUs, checks (for an msr-safe throttle) that the
// device's IA32_CLOCK_MODULATION now holds T5, goes back to T0 and high, and prints its counts.
// Exits 1 with the reason when a backend is not the expected one or a register is not as set.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "gaea/base/error.hpp"
#include "gaea/energy/actuator.hpp"
#include "gaea/energy/meter.hpp"
#include "gaea/energy/sysfs.hpp"
#include "gaea/energy/throttle.hpp"
#include "gaea/runtime/runtime.hpp"
#include "gaea/runtime/topology.hpp"

namespace {

// The 8 bytes at `reg` of the (fake) msr-safe device of `cpu` under GAEA_SYSFS_ROOT.
std::uint64_t msr_safe_register(int cpu, std::int64_t reg) {
  const auto path = gaea::energy::under(gaea::energy::sysfs_root(),
                                        "/dev/cpu/" + std::to_string(cpu) + "/msr_safe");
  std::ifstream in(path, std::ios::binary);
  in.seekg(reg);
  std::uint64_t v = 0;
  if (!in.read(reinterpret_cast<char*>(&v), sizeof v))
    throw gaea::error("cannot read " + path.string());
  return v;
}

// IA32_CLOCK_MODULATION's low 5 bits must be `bits` on every CPU of the throttle.
void check_modulation(const gaea::energy::throttle& thr, std::uint64_t bits, const char* when) {
  for (int cpu : thr.cpus()) {
    const std::uint64_t v = msr_safe_register(cpu, 0x19A) & 0x1F;
    if (v != bits) {
      char text[160];
      std::snprintf(text, sizeof text,
                    "after %s: 0x19A on CPU %d holds bits 0x%02llx, expected 0x%02llx: the "
                    "msr-safe device was not written",
                    when, cpu, static_cast<unsigned long long>(v),
                    static_cast<unsigned long long>(bits));
      throw gaea::error(text);
    }
  }
}

void expect_backend(const char* what, std::string_view got, const std::string& expected,
                    const std::string& reason) {
  if (expected != "-" && got != expected)
    throw gaea::error(std::string(what) + " backend is '" + std::string(got) + "', expected '" +
                      expected + "' (" + reason + ")");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string want_throttle = argc > 1 ? argv[1] : "-";
  const std::string want_dvfs = argc > 2 ? argv[2] : "-";
  return gaea::run_main("gaea-site-run", &argc, &argv, [&](gaea::runtime& rt) {
    gaea::energy::throttle& thr = rt.throttle();
    gaea::energy::actuator& dvfs = rt.dvfs();
    expect_backend("throttle", thr.name(), want_throttle, rt.throttle_reason());
    expect_backend("DVFS", dvfs.name(), want_dvfs, rt.dvfs_reason());
    const bool msr_safe = thr.name() == "msr-safe-clockmod";
    // Every rank asks for T5 (the arbiter applies the lowest level any rank asks for).
    if (thr.active()) thr.set_all(5);
    // set_low on a CPU the actuator does not manage is refused and changes nothing.
    const std::vector<int> pus = dvfs.active() ? rt.topo().allowed_pus() : std::vector<int>{};
    for (int cpu : pus)
      dvfs.set_low(cpu, true);
    rt.barrier();
    if (msr_safe) check_modulation(thr, 0x16, "T5");  // enable (bit 4), duty 3/8 (bits 3:1)
    rt.barrier();
    if (thr.active()) thr.set_all(0);
    for (int cpu : pus)
      dvfs.set_low(cpu, false);
    rt.barrier();
    if (msr_safe) check_modulation(thr, 0x00, "T0");
    std::printf(
        "rank %d: throttle %s, %llu transitions; DVFS %s, %llu transitions\n", rt.rank(),
        std::string(thr.name()).c_str(), static_cast<unsigned long long>(thr.transition_count()),
        std::string(dvfs.name()).c_str(), static_cast<unsigned long long>(dvfs.transition_count()));
    return 0;
  });
}
