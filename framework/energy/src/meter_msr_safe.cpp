// RAPL package energy through msr-safe ("msr-safe-rapl"): MSR_PKG_ENERGY_STATUS read through the
// allow-listed /dev/cpu/N/msr_safe of each package's first CPU, for users who are not root.

#include <mutex>
#include <string>
#include <vector>

#include "detail/cpu_info.hpp"
#include "detail/msr.hpp"
#include "detail/msr_allowlist.hpp"
#include "gaea/energy/meter.hpp"

namespace gaea::energy {
namespace {

// Intel SDM vol. 3B, "Platform Specific Power Management Support" (RAPL interfaces).
constexpr std::int64_t msr_rapl_power_unit = 0x606;
constexpr std::int64_t msr_pkg_energy_status = 0x611;
constexpr int energy_unit_shift = 8;  // bits 12:8: energy status unit, 1/2^ESU J
constexpr std::uint64_t energy_unit_mask = 0x1F;
constexpr std::uint64_t counter_mask = 0xFFFFFFFFu;  // bits 31:0 hold the count

class msr_safe_meter final : public meter {
 public:
  struct package {
    detail::unique_fd fd;
    std::uint32_t prev = 0;
  };
  msr_safe_meter(std::vector<package> packages, double joules_per_count, std::string scope)
      : packages_(std::move(packages)), unit_(joules_per_count), scope_(std::move(scope)) {}

  std::string_view name() const noexcept override { return "msr-safe-rapl"; }
  bool measured() const noexcept override { return true; }
  std::string scope() const override { return scope_; }

  std::optional<double> joules() override {
    std::lock_guard lock(mutex_);
    std::vector<std::uint32_t> now(packages_.size());
    for (std::size_t i = 0; i < packages_.size(); ++i) {
      const auto v = detail::read_msr(packages_[i].fd.get(), msr_pkg_energy_status);
      if (!v) return std::nullopt;
      now[i] = static_cast<std::uint32_t>(*v & counter_mask);
    }
    // Unsigned 32-bit subtraction is the delta across one wrap of the counter.
    for (std::size_t i = 0; i < packages_.size(); ++i) {
      counts_ += static_cast<std::uint32_t>(now[i] - packages_[i].prev);
      packages_[i].prev = now[i];
    }
    return static_cast<double>(counts_) * unit_;
  }

 private:
  std::mutex mutex_;
  std::vector<package> packages_;
  double unit_;
  std::string scope_;
  std::uint64_t counts_ = 0;
};

}  // namespace

std::unique_ptr<meter> make_msr_safe_meter(const std::filesystem::path& root, std::string& why) {
  const std::string enable = " (load msr-safe and allow " + detail::msr_hex(msr_rapl_power_unit) +
                             " and " + detail::msr_hex(msr_pkg_energy_status) + " for reading)";
  std::string list_why;
  if (const auto list = detail::read_msr_allowlist(root, list_why)) {
    for (std::int64_t reg : {msr_rapl_power_unit, msr_pkg_energy_status}) {
      const std::string refused =
          detail::msr_allowlist_refusal(*list, static_cast<std::uint64_t>(reg), 0);
      if (!refused.empty()) {
        why = refused;
        return nullptr;
      }
    }
  }
  std::vector<msr_safe_meter::package> packages;
  std::vector<int> ids;
  double unit = 0;
  for (const auto& [pkg, cpu] : detail::first_cpu_of_packages(root)) {
    std::string open_why;
    msr_safe_meter::package p;
    p.fd = detail::open_msr_ro(root, cpu, msr_pkg_energy_status, open_why,
                               detail::msr_device::msr_safe);
    const auto units = p.fd ? detail::read_msr(p.fd.get(), msr_rapl_power_unit) : std::nullopt;
    const auto count = units ? detail::read_msr(p.fd.get(), msr_pkg_energy_status) : std::nullopt;
    if (!count) {
      why = (p.fd ? detail::msr_path(root, cpu, detail::msr_device::msr_safe).string() + ": " +
                        detail::error_text(errno)
                  : open_why) +
            enable;
      return nullptr;
    }
    const int esu = static_cast<int>((*units >> energy_unit_shift) & energy_unit_mask);
    const double u = 1.0 / static_cast<double>(std::uint64_t{1} << esu);
    if (unit != 0 && u != unit) {
      why = "packages report different RAPL energy units (" + std::to_string(unit) + " J and " +
            std::to_string(u) + " J)";
      return nullptr;
    }
    unit = u;
    p.prev = static_cast<std::uint32_t>(*count & counter_mask);
    packages.push_back(std::move(p));
    ids.push_back(pkg);
  }
  const std::string scope =
      (ids.size() == 1 ? "package " : "packages ") + detail::format_id_list(ids) + " (whole node)";
  return std::make_unique<msr_safe_meter>(std::move(packages), unit, scope);
}

}  // namespace gaea::energy
