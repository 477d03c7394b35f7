// The GEOPM meter ("geopm"): the board's CPU_ENERGY signal (the packages' energy, in joules)
// read through geopmread, for users whose site runs the GEOPM service.

#include <mutex>

#include "detail/geopm_cli.hpp"
#include "gaea/energy/meter.hpp"

namespace gaea::energy {
namespace {

constexpr const char* energy_signal = "CPU_ENERGY";
constexpr const char* domain = "board";  // GEOPM sums the packages' counters into the board's

class geopm_meter final : public meter {
 public:
  geopm_meter(detail::geopm_tools tools, double start) : tools_(std::move(tools)), start_(start) {}
  std::string_view name() const noexcept override { return "geopm"; }
  bool measured() const noexcept override { return true; }
  std::string scope() const override { return "board 0 (whole node), CPU_ENERGY via geopmread"; }
  std::optional<double> joules() override {
    std::lock_guard lock(mutex_);
    std::string why;
    const std::optional<double> now = detail::geopm_read(tools_, energy_signal, domain, 0, why);
    if (!now) return std::nullopt;
    return *now - start_;
  }

 private:
  std::mutex mutex_;
  detail::geopm_tools tools_;
  double start_;
};

}  // namespace

std::unique_ptr<meter> make_geopm_meter(std::string& why) {
  detail::geopm_tools tools = detail::find_geopm_tools();
  const std::string enable =
      " (a site enables it with the GEOPM service and CPU_ENERGY in its access list)";
  if (!tools.why.empty()) {
    why = tools.why + enable;
    return nullptr;
  }
  const std::optional<double> start = detail::geopm_read(tools, energy_signal, domain, 0, why);
  if (!start) {
    why += enable;
    return nullptr;
  }
  return std::make_unique<geopm_meter>(std::move(tools), *start);
}

}  // namespace gaea::energy
