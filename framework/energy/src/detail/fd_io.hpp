#pragma once
/// \file
/// Small POSIX helpers shared by the actuators, the meters and the signal-time restore: an owning
/// file descriptor, a positioned write that retries on EINTR, a monotonic clock and the process
/// CPU clock in ns.

#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace gaea::energy::detail {

/// Owns one file descriptor (closed on destruction). Move-only.
class unique_fd {
 public:
  unique_fd() = default;
  explicit unique_fd(int fd) noexcept : fd_(fd) {}
  unique_fd(unique_fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  unique_fd& operator=(unique_fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd() { reset(); }
  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  /// Gives the descriptor up without closing it.
  int release() noexcept { return std::exchange(fd_, -1); }
  void reset() noexcept {
    if (fd_ >= 0) {
      const int saved = errno;  // close() must not clobber the errno a caller is reporting
      ::close(fd_);
      errno = saved;
    }
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

/// pwrite() of all `len` bytes at `offset`, retrying on EINTR. Async-signal-safe. False (errno
/// kept; EIO for a short write) when refused.
inline bool write_at(int fd, std::int64_t offset, const void* data, std::size_t len) noexcept {
  ssize_t n;
  do {
    n = ::pwrite(fd, data, len, static_cast<off_t>(offset));
  } while (n < 0 && errno == EINTR);
  if (n < 0) return false;
  if (static_cast<std::size_t>(n) != len) {
    errno = EIO;
    return false;
  }
  return true;
}

/// pread() of exactly `len` bytes at `offset`, retrying on EINTR. False (errno kept) otherwise.
inline bool read_at(int fd, std::int64_t offset, void* data, std::size_t len) noexcept {
  ssize_t n;
  do {
    n = ::pread(fd, data, len, static_cast<off_t>(offset));
  } while (n < 0 && errno == EINTR);
  if (n < 0) return false;
  if (static_cast<std::size_t>(n) != len) {
    errno = EIO;
    return false;
  }
  return true;
}

/// Writes `text` + "\n" at offset 0 of an open sysfs-style file. Sysfs ignores the offset; a
/// regular file (a fake tree) keeps its first line correct, which is all that readers look at.
inline bool write_text(int fd, const std::string& text) noexcept {
  std::string line;
  try {
    line = text + '\n';
  } catch (...) {
    errno = ENOMEM;
    return false;
  }
  return write_at(fd, 0, line.data(), line.size());
}

/// CLOCK_MONOTONIC (steady_clock on Linux) in nanoseconds.
inline std::int64_t now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// CPU time of the whole process (every thread) in nanoseconds; 0 if the clock cannot be read.
inline std::int64_t process_cpu_ns() noexcept {
  timespec ts{};
  if (::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace gaea::energy::detail
