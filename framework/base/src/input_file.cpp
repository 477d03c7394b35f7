// Input files: a regular file within a size cap, checked by stat before it is opened and by
// fstat after (a FIFO swapped in between must not block the reader).
#include "gaea/base/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "detail/file_kind.hpp"
#include "gaea/base/error.hpp"

namespace gaea {

namespace {

std::string problem_of(const struct stat& st, std::uint64_t max_bytes) {
  if (!S_ISREG(st.st_mode))
    return "is " + detail::file_kind(st.st_mode) + "; only a regular file can be read";
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_bytes)
    return "is " + std::to_string(size) + " bytes, more than the " + std::to_string(max_bytes) +
           " such a file may have";
  return {};
}

std::string who(const std::filesystem::path& path, std::string_view what) {
  return std::string(what) + " '" + path.string() + "': ";
}

}  // namespace

std::string input_file_problem(const std::filesystem::path& path, std::uint64_t max_bytes) {
  if (path.empty()) return "the file name is empty";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return errno == ENOENT ? std::string("no such file")
                           : "cannot be examined: " + std::string(std::strerror(errno));
  return problem_of(st, max_bytes);
}

std::uint64_t check_input_file(const std::filesystem::path& path, std::string_view what,
                               std::uint64_t max_bytes) {
  const std::string problem = input_file_problem(path, max_bytes);
  if (!problem.empty()) throw error(who(path, what) + problem);
  return std::filesystem::file_size(path);
}

std::string read_input_file(const std::filesystem::path& path, std::string_view what,
                            std::uint64_t max_bytes) {
  check_input_file(path, what, max_bytes);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw error(who(path, what) + "cannot open it: " + std::strerror(errno));
  struct closer {
    int fd;
    ~closer() { ::close(fd); }
  } close_at_end{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw error(who(path, what) + "cannot be examined: " + std::strerror(errno));
  if (const std::string problem = problem_of(st, max_bytes); !problem.empty())
    throw error(who(path, what) + problem);
  std::string data;
  data.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw error(who(path, what) + "cannot read it: " + std::strerror(errno));
    if (n == 0) break;
    data.append(buf, static_cast<std::size_t>(n));
    if (data.size() > max_bytes)
      throw error(who(path, what) + "grew beyond the " + std::to_string(max_bytes) +
                  " bytes such a file may have while it was read");
  }
  return data;
}

}  // namespace gaea
