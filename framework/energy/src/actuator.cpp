// make_actuator: the DVFS backend GAEA_DVFS and the job allow (cpufreq, GEOPM, simulated),
// else the actuator that changes nothing, with the reason why.

#include "gaea/energy/actuator.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include "detail/actuator_base.hpp"
#include "detail/backends.hpp"
#include "detail/restore_registry.hpp"
#include "gaea/base/enum_names.hpp"
#include "gaea/base/error.hpp"

namespace gaea::energy {

namespace {

// "none": nothing to change; the governor never calls it (active() is false).
class none_actuator final : public detail::actuator_base {
 public:
  none_actuator() : actuator_base({}, 0) {}
  std::string_view name() const noexcept override { return "none"; }
  bool active() const noexcept override { return false; }
  bool hardware() const noexcept override { return false; }
  std::int64_t high_khz(int) const override { return 0; }
  std::int64_t low_khz(int) const override { return 0; }
  std::int64_t current_khz(int) const override { return 0; }
  // No CPU is managed: set_low() is false before it gets here.
  bool write_low(std::size_t, int, bool) override { return false; }
  void write_originals(bool) noexcept override {}
};

std::unique_ptr<actuator> make_none() {
  return std::make_unique<none_actuator>();
}

constexpr std::string_view sleep_only = ": sleep-only, no DVFS";
}  // namespace

actuator_choice make_actuator(const actuator_config& cfg) {
  if (std::find(actuator_kinds.begin(), actuator_kinds.end(), cfg.kind) == actuator_kinds.end())
    throw error("GAEA_DVFS='" + cfg.kind +
                "' is not an actuator kind; accepted: " + join_names(actuator_kinds));
  if (cfg.kind == "off") return {make_none(), "GAEA_DVFS=off" + std::string(sleep_only)};
  // Clock modulation changes the duty, not the frequency: it belongs to the throttle, which owns
  // IA32_CLOCK_MODULATION alone (two writers of one register would undo each other).
  if (cfg.kind == "msr")
    return {make_none(),
            "GAEA_DVFS=msr: MSR clock modulation is the throttle's (GAEA_THROTTLE=msr), DVFS "
            "changes the frequency only" +
                std::string(sleep_only)};
  if (cfg.kind == "simulated") return detail::make_simulated(cfg);
  if (cfg.cpus.empty())
    return {make_none(), "no CPUs assigned to this process" + std::string(sleep_only)};

  // The job's frequency request is Slurm's to make: one Gaea cannot read is not overridden.
  std::optional<slurm_cpu_freq> slurm;
  if (!cfg.cpu_freq_request.empty()) {
    try {
      slurm = parse_slurm_cpu_freq(cfg.cpu_freq_request);
    } catch (const error& e) {
      return {make_none(), std::string(e.what()) + ": Gaea does not change the frequency" +
                               std::string(sleep_only)};
    }
  }
  const slurm_cpu_freq* req = slurm ? &*slurm : nullptr;
  actuator_choice c;
  if (cfg.kind != "geopm") {
    c = detail::try_cpufreq(cfg, req);
    if (!c.act && slurm && c.reason.starts_with("Slurm"))
      return {make_none(), c.reason + std::string(sleep_only)};
    if (c.act) {
      if (cfg.install_signal_handlers) detail::install_fatal_signal_handlers();
      return c;
    }
    // What a site must enable, so that the line is the decision table's row (gaea-info).
    c.reason +=
        " (a site enables DVFS with the cpufreq userspace governor, or scaling_max_freq "
        "writable by the job's user)";
  }
  if (cfg.kind != "cpufreq") {
    actuator_choice g = detail::try_geopm(cfg, req);
    if (g.act) return g;
    c.reason = c.reason.empty() ? std::move(g.reason) : c.reason + "; " + g.reason;
  }
  std::string why = std::move(c.reason);
  if (cfg.kind != "auto") why = "GAEA_DVFS=" + cfg.kind + ": " + why;
  return {make_none(), why + std::string(sleep_only)};
}

}  // namespace gaea::energy
