#pragma once
/// \file
/// The files one actuator writes: each opened once and kept open (so that a transition is a single
/// pwrite and the signal handler needs no open()), with its original value saved for restore.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "detail/fd_io.hpp"
#include "detail/restore_registry.hpp"

namespace gaea::energy::detail {

/// Thread safety: none; the owning actuator serialises calls.
class saved_files {
 public:
  /// `capacity`: most files (= saved values) the actuator will open.
  explicit saved_files(std::size_t capacity) : plan_(capacity) {}

  /// The write descriptor of a sysfs-style file, opened O_WRONLY once per file (CPUs that share
  /// a cpufreq policy reach the same file through different paths; they share one entry). On the
  /// first open, `original` (if any) is saved to be written back. -1 with errno on failure.
  int sysfs_file(const std::filesystem::path& path, const std::optional<std::string>& original);
  /// Takes `fd` over and saves `original` to be written back at `offset` (an MSR). -1 when full.
  int adopt(unique_fd fd, std::int64_t offset, std::string_view original);

  restore_plan& plan() noexcept { return plan_; }
  const restore_plan& plan() const noexcept { return plan_; }

 private:
  // Declared before plan_ so that they close after it is unregistered (members die in reverse).
  std::vector<unique_fd> fds_;
  std::map<std::string, int> fd_of_path_;
  restore_plan plan_;
};

}  // namespace gaea::energy::detail
