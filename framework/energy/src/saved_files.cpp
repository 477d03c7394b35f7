// saved_files: the files an actuator writes, opened once, with their original values saved.

#include "detail/saved_files.hpp"

#include <fcntl.h>

namespace gaea::energy::detail {

int saved_files::sysfs_file(const std::filesystem::path& path,
                            const std::optional<std::string>& original) {
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(path, ec);
  const std::string key = ec ? path.lexically_normal().string() : real.string();
  if (auto it = fd_of_path_.find(key); it != fd_of_path_.end()) return it->second;
  unique_fd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd) return -1;
  if (original && !plan_.save(fd.get(), 0, *original + '\n')) {
    errno = ENOSPC;
    return -1;
  }
  const int raw = fd.get();
  fds_.push_back(std::move(fd));
  fd_of_path_.emplace(key, raw);
  return raw;
}

int saved_files::adopt(unique_fd fd, std::int64_t offset, std::string_view original) {
  if (!plan_.save(fd.get(), offset, original)) return -1;
  const int raw = fd.get();
  fds_.push_back(std::move(fd));
  return raw;
}

}  // namespace gaea::energy::detail
