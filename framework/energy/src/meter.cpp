// The model meter, prove() and select_meter(): which energy figure Gaea trusts, and why.

#include "gaea/energy/meter.hpp"

#include <algorithm>
#include <cstdio>

#include "detail/settings.hpp"
#include "gaea/base/enum_names.hpp"
#include "gaea/base/error.hpp"

namespace gaea::energy {
namespace {

class model_meter final : public meter {
 public:
  model_meter(model_params p, usage_source usage) : p_(std::move(p)), usage_(std::move(usage)) {
    start_j_ = total_j();
  }
  std::string_view name() const noexcept override { return "model"; }
  bool measured() const noexcept override { return false; }
  std::string scope() const override { return "model of this rank"; }
  std::optional<double> joules() override { return total_j() - start_j_; }

 private:
  double total_j() const {
    if (!usage_) return 0;
    const usage_snapshot u = usage_();
    return model_energy_j(p_, u.wall_seconds, u.shares, u.transitions, u.throttle_transitions);
  }
  model_params p_;
  usage_source usage_;
  double start_j_ = 0;
};

std::string format(const char* fmt, double j, long long ms) {
  char buf[128];
  std::snprintf(buf, sizeof buf, fmt, j, ms);
  return buf;
}

}  // namespace

std::unique_ptr<meter> make_model_meter(model_params p, usage_source usage) {
  return std::make_unique<model_meter>(std::move(p), std::move(usage));
}

void burn_cpu(std::chrono::milliseconds d) {
  const auto end = std::chrono::steady_clock::now() + d;
  std::uint64_t x = 0x9E3779B97F4A7C15ULL;
  while (std::chrono::steady_clock::now() < end)
    for (int i = 0; i < 4096; ++i)
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  // A volatile store is an observable side effect: the loop above cannot be optimised away.
  volatile std::uint64_t sink = x;
  (void)sink;
}

proof prove(meter& m, const std::function<void()>& load) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::optional<double> before = m.joules();
  if (load) load();
  const std::optional<double> after = m.joules();
  const long long ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  if (!before || !after)
    return {false, std::string(before ? "second" : "first") + " read failed (" +
                       std::to_string(ms) + " ms of load)"};
  const double delta = *after - *before;
  if (!(delta > 0)) return {false, format("read %.6f J over %lld ms of load", delta, ms)};
  return {true, format("increased by %.6f J over %lld ms of load", delta, ms)};
}

meter_choice select_meter(std::string_view kind, const std::filesystem::path& root,
                          model_params params, usage_source usage,
                          const std::function<void()>& load) {
  if (std::find(meter_kinds.begin(), meter_kinds.end(), kind) == meter_kinds.end())
    throw error("GAEA_ENERGY_METER='" + std::string(kind) +
                "' is not a meter kind; accepted: " + join_names(meter_kinds));
  meter_choice choice;
  // Each hardware meter must be present and prove itself; the first that does wins.
  for (std::string_view hw : {"rapl", "perf", "msr-safe", "geopm"}) {
    if (kind != "auto" && kind != hw) continue;
    std::string why;
    std::unique_ptr<meter> m = hw == "rapl"       ? make_rapl_meter(root, why)
                               : hw == "perf"     ? make_perf_meter(root, why)
                               : hw == "msr-safe" ? make_msr_safe_meter(root, why)
                                                  : make_geopm_meter(why);
    const std::string label = hw == "rapl"       ? "rapl-powercap"
                              : hw == "perf"     ? "perf-power"
                              : hw == "msr-safe" ? "msr-safe-rapl"
                                                 : "geopm";
    if (m) {
      const proof p = prove(*m, load);
      if (p.ok) {
        choice.reason = label + " (measured, " + m->scope() + "): " + p.why;
        choice.m = std::move(m);
        return choice;
      }
      why = p.why;
    }
    choice.rejected.push_back(label + ": " + why);
  }
  const std::string model = "model (estimated; parameters: " + params.source + ")";
  if (kind == "model")
    choice.reason = model + ": GAEA_ENERGY_METER=model";
  else if (kind == "auto")
    choice.reason = model + ": no hardware meter proved itself";
  else
    choice.reason =
        model + ": GAEA_ENERGY_METER=" + std::string(kind) + " but " + choice.rejected.back();
  choice.m = make_model_meter(std::move(params), std::move(usage));
  return choice;
}

std::string meter_kind_from_env() {
  return detail::meter_setting.read();
}

}  // namespace gaea::energy
