#pragma once
/// \file
/// Paths of the kernel interfaces Gaea reads and writes, all under one root so that tests can
/// build fake trees: sysfs_root() is GAEA_SYSFS_ROOT, default "/".

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace gaea::energy {

/// The root under which /sys, /dev and /proc paths are looked up (GAEA_SYSFS_ROOT, default "/").
std::filesystem::path sysfs_root();
/// `root` + `absolute` ("/sys/devices/..." → "<root>/sys/devices/...").
std::filesystem::path under(const std::filesystem::path& root, std::string_view absolute);
/// First line of a file without the trailing newline; nullopt when unreadable.
std::optional<std::string> read_line(const std::filesystem::path& p);
/// read_line parsed as a signed integer; nullopt when unreadable or not a number.
std::optional<std::int64_t> read_int(const std::filesystem::path& p);
/// Writes `value` (and a newline) with one write(); false with errno kept when refused.
bool write_line(const std::filesystem::path& p, std::string_view value);

}  // namespace gaea::energy
