// RAPL through powercap: one top-level zone intel-rapl:N per package; subzones (intel-rapl:N:M,
// core/uncore/dram, already inside the package figure) and intel-rapl-mmio are ignored.

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <string>
#include <vector>

#include "detail/cpu_info.hpp"
#include "gaea/energy/meter.hpp"
#include "gaea/energy/sysfs.hpp"

namespace gaea::energy {
namespace {

namespace fs = std::filesystem;

// N when `name` is exactly "intel-rapl:N", else -1.
int package_zone_index(const std::string& name) {
  constexpr std::string_view prefix = "intel-rapl:";
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return -1;
  int n = 0;
  for (std::size_t i = prefix.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9' || n > 1000000) return -1;
    n = n * 10 + (name[i] - '0');
  }
  return n;
}

class rapl_meter final : public meter {
 public:
  struct zone {
    fs::path energy;
    std::uint64_t range_uj = 0;  // max_energy_range_uj: the counter wraps to 0 after it
    std::uint64_t prev_uj = 0;
  };
  rapl_meter(std::vector<zone> zones, std::string scope)
      : zones_(std::move(zones)), scope_(std::move(scope)) {}

  std::string_view name() const noexcept override { return "rapl-powercap"; }
  bool measured() const noexcept override { return true; }
  std::string scope() const override { return scope_; }

  std::optional<double> joules() override {
    std::lock_guard lock(mutex_);
    // Read every zone first so that a failed read leaves the state untouched.
    std::vector<std::uint64_t> now(zones_.size());
    for (std::size_t i = 0; i < zones_.size(); ++i) {
      const auto v = read_int(zones_[i].energy);
      if (!v || *v < 0) return std::nullopt;
      now[i] = static_cast<std::uint64_t>(*v);
    }
    for (std::size_t i = 0; i < zones_.size(); ++i) {
      zone& z = zones_[i];
      // A smaller reading means the counter wrapped once (more wraps between two calls are
      // invisible, hence the once-per-wrap-period rule).
      total_uj_ += now[i] >= z.prev_uj ? now[i] - z.prev_uj : now[i] + (z.range_uj + 1) - z.prev_uj;
      z.prev_uj = now[i];
    }
    return static_cast<double>(total_uj_) * 1e-6;
  }

 private:
  std::mutex mutex_;
  std::vector<zone> zones_;
  std::string scope_;
  std::uint64_t total_uj_ = 0;
};

}  // namespace

std::unique_ptr<meter> make_rapl_meter(const fs::path& root, std::string& why) {
  const fs::path dir = under(root, "/sys/class/powercap");
  std::vector<std::pair<int, fs::path>> packages;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const int n = package_zone_index(it->path().filename().string());
    if (n < 0) continue;
    // psys (platform) is also a top-level zone on some laptops; it overlaps the packages.
    const auto zone_name = read_line(it->path() / "name");
    if (zone_name && zone_name->rfind("package", 0) != 0) continue;
    packages.emplace_back(n, it->path());
  }
  if (packages.empty()) {
    why = "no powercap zones under " + dir.string();
    return nullptr;
  }
  std::sort(packages.begin(), packages.end());
  std::vector<rapl_meter::zone> zones;
  std::vector<int> ids;
  for (const auto& [n, path] : packages) {
    rapl_meter::zone z;
    z.energy = path / "energy_uj";
    errno = 0;
    const auto now = read_int(z.energy);
    if (!now || *now < 0) {
      why = z.energy.string() + " not readable (" +
            (errno ? detail::error_text(errno) : std::string("not a number")) +
            "; energy_uj is root-only since Linux 5.10)";
      return nullptr;
    }
    const auto range = read_int(path / "max_energy_range_uj");
    if (!range || *range <= 0) {
      why = (path / "max_energy_range_uj").string() + " not readable";
      return nullptr;
    }
    z.prev_uj = static_cast<std::uint64_t>(*now);
    z.range_uj = static_cast<std::uint64_t>(*range);
    zones.push_back(z);
    ids.push_back(n);
  }
  const std::string list = detail::format_id_list(ids);
  const std::string scope = (ids.size() == 1 ? "package " : "packages ") + list + " (whole node)";
  return std::make_unique<rapl_meter>(std::move(zones), scope);
}

}  // namespace gaea::energy
