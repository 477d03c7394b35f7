// The root of the kernel interfaces (GAEA_SYSFS_ROOT) and one-line reads and writes under it.

#include "gaea/energy/sysfs.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>

#include "detail/fd_io.hpp"
#include "detail/settings.hpp"

namespace gaea::energy {

std::filesystem::path sysfs_root() {
  return std::filesystem::path(detail::sysfs_root_setting.read());
}

std::filesystem::path under(const std::filesystem::path& root, std::string_view absolute) {
  while (!absolute.empty() && absolute.front() == '/')
    absolute.remove_prefix(1);
  return (root.empty() ? std::filesystem::path("/") : root) / absolute;
}

std::optional<std::string> read_line(const std::filesystem::path& p) {
  detail::unique_fd fd(::open(p.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  // Sysfs attributes are one short line; stop at the first newline (or 64 KiB, for a stray big
  // file in a fake tree).
  std::string text;
  char buf[512];
  while (text.find('\n') == std::string::npos && text.size() < (64u << 10)) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  if (const auto nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  return text;
}

std::optional<std::int64_t> read_int(const std::filesystem::path& p) {
  const auto line = read_line(p);
  if (!line) return std::nullopt;
  std::string_view s = *line;
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

bool write_line(const std::filesystem::path& p, std::string_view value) {
  // Like sysfs expects: no O_CREAT (a missing attribute is an error, not a new file), no O_TRUNC,
  // and the whole value in one write().
  std::string text(value);
  text += '\n';
  detail::unique_fd fd(::open(p.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd) return false;
  ssize_t n;
  do {
    n = ::write(fd.get(), text.data(), text.size());
  } while (n < 0 && errno == EINTR);
  if (n < 0) return false;
  if (static_cast<std::size_t>(n) != text.size()) {
    errno = EIO;
    return false;
  }
  return true;
}

}  // namespace gaea::energy
