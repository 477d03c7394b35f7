// output_file: temporary beside the target, fsync, rename on commit; the temporary is in the
// registry that signal handlers clean (temporaries.hpp).
#include "gaea/base/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <random>
#include <sstream>

#include "detail/file_kind.hpp"
#include "gaea/base/error.hpp"

namespace gaea {

namespace {

std::string reason(int err) {
  return std::strerror(err);
}

std::string temporary_name(const std::filesystem::path& target) {
  static std::mutex m;
  static std::mt19937_64 gen{std::random_device{}()};
  std::uint64_t r = 0;
  {
    std::lock_guard lock(m);
    r = gen();
  }
  std::ostringstream name;
  name << target.string() << ".tmp." << ::getpid() << '.' << std::hex << (r & 0xffffffffu);
  return name.str();
}

}  // namespace

void check_output_path(const std::filesystem::path& target, std::string_view what) {
  const std::string who = std::string(what) + " '" + target.string() + "': ";
  if (target.empty()) throw error(std::string(what) + ": the file name is empty");
  if (!target.has_filename()) throw error(who + "names a directory (ends with '/'), not a file");
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode))
      throw error(who + "is " + detail::file_kind(st.st_mode) +
                  "; only a regular file can be replaced (give a file name)");
  } else if (errno != ENOENT && errno != ENOTDIR) {
    throw error(who + "cannot be examined: " + reason(errno));
  }
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  if (::stat(dir.c_str(), &st) != 0)
    throw error(
        who + "its directory '" + dir.string() + "' " +
        (errno == ENOENT ? std::string("does not exist") : "cannot be examined: " + reason(errno)));
  if (!S_ISDIR(st.st_mode)) throw error(who + "'" + dir.string() + "' is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw error(who + "its directory '" + dir.string() + "' is not writable: " + reason(errno));
}

output_file::output_file(std::filesystem::path target, std::string what)
    : target_(std::move(target)), what_(std::move(what)) {
  check_output_path(target_, what_);
  for (int attempt = 0; attempt < 16 && fd_ < 0; ++attempt) {
    tmp_ = temporary_name(target_);
    // Registered before it exists, so that no signal can fall between creation and registry.
    listed_ = temporary_registration(tmp_);
    fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0) break;
    const int err = errno;
    listed_.release();
    if (err != EEXIST)
      throw error(what_ + " '" + target_.string() + "': cannot create the temporary '" +
                  tmp_.string() + "': " + reason(err));
  }
  if (fd_ < 0)
    throw error(what_ + " '" + target_.string() + "': cannot find a free temporary name");
}

output_file::~output_file() {
  if (!committed_) discard();
}

void output_file::write(std::span<const std::byte> bytes) {
  if (fd_ < 0 || committed_)
    throw error(what_ + " '" + target_.string() + "': write after close or commit");
  const std::byte* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw error(what_ + " '" + target_.string() + "': cannot write the temporary '" +
                  tmp_.string() + "': " + reason(n < 0 ? errno : ENOSPC));
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

void output_file::reserve(std::uint64_t bytes) {
  if (committed_) throw error(what_ + " '" + target_.string() + "': reserve after commit");
  const int fd = fd_ >= 0 ? fd_ : ::open(tmp_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    throw error(what_ + " '" + target_.string() + "': cannot open the temporary '" + tmp_.string() +
                "': " + reason(errno));
  const int rc = ::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(bytes));
  const int err = errno;
  if (fd != fd_) ::close(fd);
  if (rc != 0 && err != EOPNOTSUPP && err != ENOSYS)
    throw error(what_ + " '" + target_.string() + "': cannot reserve " + std::to_string(bytes) +
                " bytes for the temporary '" + tmp_.string() + "': " + reason(err));
}

void output_file::close_for_name() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void output_file::commit() {
  const std::string who = what_ + " '" + target_.string() + "': ";
  if (committed_) throw error(who + "already committed");
  std::string problem;
  int fd = fd_;
  fd_ = -1;
  if (fd < 0) fd = ::open(tmp_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    problem = "cannot reopen the temporary '" + tmp_.string() + "': " + reason(errno);
  } else {
    // The data must be on the disk before the name points to it; a full disk shows here at
    // the latest (delayed allocation), and close can report a deferred write error.
    if (::fsync(fd) != 0)
      problem = "cannot flush the temporary '" + tmp_.string() + "' to the disk: " + reason(errno);
    if (::close(fd) != 0 && problem.empty())
      problem = "cannot close the temporary '" + tmp_.string() + "': " + reason(errno);
  }
  if (problem.empty() && ::rename(tmp_.c_str(), target_.c_str()) != 0)
    problem = "cannot rename the temporary '" + tmp_.string() + "' to it: " + reason(errno);
  if (!problem.empty()) {
    discard();
    throw error(who + problem);
  }
  committed_ = true;
  listed_.release();
  // The rename itself is durable once the directory is.
  const std::filesystem::path dir = target_.has_parent_path() ? target_.parent_path() : ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

void output_file::discard() noexcept {
  close_for_name();
  if (!tmp_.empty() && !committed_) ::unlink(tmp_.c_str());
  listed_.release();
}

}  // namespace gaea
