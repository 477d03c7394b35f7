// Lookups shared by the energy module: cpufreq paths, hardware frequency ranges, packages' first
// CPUs, and message formatting.

#include "detail/cpu_info.hpp"

#include <algorithm>
#include <cstdlib>
#include <system_error>

#include "gaea/energy/sysfs.hpp"

namespace gaea::energy::detail {

std::filesystem::path cpufreq_dir(const std::filesystem::path& root, int cpu) {
  return under(root, "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq");
}

std::optional<khz_range> cpuinfo_range(const std::filesystem::path& root, int cpu) {
  const auto dir = cpufreq_dir(root, cpu);
  const auto max = read_int(dir / "cpuinfo_max_freq");
  const auto min = read_int(dir / "cpuinfo_min_freq");
  if (!max || !min || *min <= 0 || *min > *max) return std::nullopt;
  return khz_range{*max, *min};
}

std::map<int, int> first_cpu_of_packages(const std::filesystem::path& root) {
  std::map<int, int> first;
  const std::filesystem::path dir = under(root, "/sys/devices/system/cpu");
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() < 4 || name.compare(0, 3, "cpu") != 0 ||
        name.find_first_not_of("0123456789", 3) != std::string::npos)
      continue;
    const int cpu = std::atoi(name.c_str() + 3);
    const auto pkg = read_int(it->path() / "topology" / "physical_package_id");
    if (!pkg || *pkg < 0 || *pkg > 1 << 20) continue;
    auto [pos, fresh] = first.emplace(static_cast<int>(*pkg), cpu);
    if (!fresh && cpu < pos->second) pos->second = cpu;
  }
  if (first.empty()) first.emplace(0, 0);
  return first;
}

std::string format_id_list(std::vector<int> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::string out;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1)
      ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(ids[i]);
    if (j > i) out += '-' + std::to_string(ids[j]);
    i = j + 1;
  }
  return out;
}

std::string error_text(int err) {
  return std::generic_category().message(err);
}

}  // namespace gaea::energy::detail
