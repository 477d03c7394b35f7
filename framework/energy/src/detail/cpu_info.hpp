#pragma once
/// \file
/// Small lookups shared by the actuators, the meters and the model: where a CPU's cpufreq files
/// are, its hardware frequency range, and message formatting.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gaea::energy::detail {

/// <root>/sys/devices/system/cpu/cpu<cpu>/cpufreq
std::filesystem::path cpufreq_dir(const std::filesystem::path& root, int cpu);

/// A CPU's hardware frequency range in kHz.
struct khz_range {
  std::int64_t max_khz = 0;
  std::int64_t min_khz = 0;
};
/// cpuinfo_max_freq / cpuinfo_min_freq of `cpu` under `root` when both are readable and
/// 0 < min <= max; nullopt otherwise.
std::optional<khz_range> cpuinfo_range(const std::filesystem::path& root, int cpu);

/// Package id -> its first CPU, from topology/physical_package_id under `root`; {0: 0} when the
/// topology is unreadable. The package meters read one counter per package on that CPU.
std::map<int, int> first_cpu_of_packages(const std::filesystem::path& root);

/// Compact list of sorted ids: {0,1,2,3,6} -> "0-3,6"; "" when empty.
std::string format_id_list(std::vector<int> ids);

/// strerror(err), thread-safe.
std::string error_text(int err);

}  // namespace gaea::energy::detail
