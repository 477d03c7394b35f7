// make_throttle, the "none" throttle, and the level arithmetic shared by the throttle and the
// power model.

#include "gaea/energy/throttle.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>

#include "detail/backends.hpp"
#include "detail/restore_registry.hpp"
#include "detail/settings.hpp"
#include "detail/throttle_base.hpp"
#include "gaea/base/enum_names.hpp"
#include "gaea/base/error.hpp"

namespace gaea::energy {

namespace {

// "none": nothing to change (active() is false); levels are still validated.
class none_throttle final : public throttle {
 public:
  std::string_view name() const noexcept override { return "none"; }
  bool active() const noexcept override { return false; }
  bool hardware() const noexcept override { return false; }
  const std::vector<int>& cpus() const noexcept override { return no_cpus_; }
  bool set_level(int cpu, int level) override {
    detail::check_level(name(), cpu, level);
    return false;
  }
  int level(int) const noexcept override { return 0; }
  void restore() noexcept override {}
  std::vector<throttle_transition> transitions() const override { return {}; }
  std::uint64_t transition_count() const noexcept override { return 0; }
  std::int64_t transition_cost_ns() const noexcept override { return 0; }
  level_times cpu_ns_by_level() const override { return {}; }

 private:
  std::vector<int> no_cpus_;
};

constexpr std::string_view no_throttling = ": no throttling";

void check_kind(const std::string& kind) {
  if (std::find(throttle_kinds.begin(), throttle_kinds.end(), kind) == throttle_kinds.end())
    throw error("GAEA_THROTTLE='" + kind +
                "' is not a throttle kind; accepted: " + join_names(throttle_kinds));
}

throttle_choice none(std::string reason) {
  return {std::make_unique<none_throttle>(), std::move(reason) + std::string(no_throttling)};
}

}  // namespace

double throttle_duty(int level) {
  if (level < 0 || level >= throttle_levels)
    throw error("throttle level " + std::to_string(level) + " is outside 0..7 (T0..T7)");
  return static_cast<double>(throttle_levels - level) / throttle_levels;
}

double mean_duty(const level_times& by_level, std::int64_t total_cpu_ns) noexcept {
  if (total_cpu_ns <= 0) return 1.0;
  // CPU time whose cycles the throttle removed: j/8 of the time spent at Tj.
  double removed_ns = 0;
  for (int j = 1; j < throttle_levels; ++j)
    removed_ns += static_cast<double>(by_level[static_cast<std::size_t>(j)]) * j / throttle_levels;
  const double duty = 1.0 - removed_ns / static_cast<double>(total_cpu_ns);
  return std::clamp(duty, 1.0 / throttle_levels, 1.0);
}

bool throttle::set_all(int level) {
  detail::check_level(name(), -1, level);
  bool ok = active();
  for (int cpu : cpus())
    ok = set_level(cpu, level) && ok;
  return ok;
}

double throttle::duty(int cpu) const noexcept {
  const int j = level(cpu);
  return static_cast<double>(throttle_levels - j) / throttle_levels;
}

throttle_choice make_throttle(const throttle_config& cfg) {
  check_kind(cfg.kind);
  if (cfg.kind == "off") return none("GAEA_THROTTLE=off");
  if (cfg.kind == "simulated") return detail::make_simulated_throttle(cfg);
  if (cfg.cpus.empty()) return none("no CPUs assigned to this process");
  throttle_choice c = detail::try_msr_throttle(cfg);
  if (c.thr) {
    if (cfg.install_signal_handlers) detail::install_fatal_signal_handlers();
    return c;
  }
  if (cfg.kind != "auto") c.reason = "GAEA_THROTTLE=" + cfg.kind + ": " + c.reason;
  return none(std::move(c.reason));
}

std::string throttle_kind_from_env() {
  return detail::throttle_setting.read();  // one of throttle_kinds: checked by the setting
}

}  // namespace gaea::energy
