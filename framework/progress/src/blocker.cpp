// progress::detail::blocker: interrupt-driven waits in epoll on the worker's event fd and an
// eventfd that wakes it, and timed sleeps.

#include "gaea/progress/detail/blocker.hpp"

#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "gaea/base/error.hpp"

namespace gaea::progress::detail {

namespace {
void add_fd(int epoll_fd, int fd) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = fd;
  if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0)
    throw error(std::string("gaea::progress: epoll_ctl(ADD) failed: ") + std::strerror(errno));
}
}  // namespace

blocker::blocker(comm::waitable* w) : worker_(w) {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epoll_fd_ < 0 || event_fd_ < 0) {
    const int err = errno;
    if (epoll_fd_ >= 0) close(epoll_fd_);
    if (event_fd_ >= 0) close(event_fd_);
    throw error(std::string("gaea::progress: cannot create epoll/eventfd: ") + std::strerror(err));
  }
  add_fd(epoll_fd_, event_fd_);
  if (worker_) {
    worker_fd_ = worker_->event_fd();
    if (worker_fd_ >= 0) add_fd(epoll_fd_, worker_fd_);
  }
}

blocker::~blocker() {
  close(epoll_fd_);
  close(event_fd_);
}

int blocker::wait_events(epoll_event* evs, int max, std::int64_t timeout_ns) noexcept {
  // epoll_pwait2 keeps nanoseconds, so the auto policy's predicted wake-ups (tens of
  // microseconds ahead) are not rounded up to a millisecond; kernels before 5.11 lack it.
  if (precise_timeouts_ && timeout_ns >= 0) {
    const timespec ts{static_cast<time_t>(timeout_ns / 1000000000),
                      static_cast<long>(timeout_ns % 1000000000)};
    const int n = epoll_pwait2(epoll_fd_, evs, max, &ts, nullptr);
    if (n >= 0 || errno != ENOSYS) return n;
    precise_timeouts_ = false;
  }
  const int timeout_ms =
      timeout_ns < 0
          ? -1
          : static_cast<int>(std::min<std::int64_t>((timeout_ns + 999999) / 1000000, 1 << 30));
  return epoll_wait(epoll_fd_, evs, max, timeout_ms);
}

blocker::outcome blocker::block(std::int64_t timeout_ns) {
  if (worker_ && worker_fd_ < 0) return outcome::unsupported;
  if (worker_ && !worker_->arm()) return outcome::busy;
  epoll_event evs[2];
  int n;
  if (hook_) hook_->leaving(true);
  do {
    n = wait_events(evs, 2, timeout_ns);
  } while (n < 0 && errno == EINTR);
  if (hook_) hook_->back();
  if (n <= 0) return outcome::timeout;
  outcome result = outcome::event;
  for (int i = 0; i < n; ++i)
    if (evs[i].data.fd == event_fd_) {
      std::uint64_t v;
      [[maybe_unused]] const ssize_t r = read(event_fd_, &v, sizeof v);
      result = outcome::signalled;
    }
  return result;
}

blocker::outcome blocker::sleep(std::int64_t ns, bool watch) noexcept {
  // ppoll keeps nanosecond timeouts (epoll_wait rounds to ms) and honours the timer slack.
  const timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
  pollfd p[3] = {{event_fd_, POLLIN, 0}, {-1, POLLIN, 0}, {-1, POLLIN, 0}};
  nfds_t n_fds = 1;
  if (watch && worker_ && worker_fd_ >= 0) {
    bool armed = false;
    try {
      armed = worker_->arm();
    } catch (...) {  // a failing worker is reported by its next progress call
      return outcome::busy;
    }
    if (!armed) return outcome::busy;
    p[n_fds++].fd = worker_fd_;
  }
  if (watch && hook_) {
    const int fd = hook_->watch();
    if (fd == away_hook::watch_busy) return outcome::busy;
    if (fd >= 0) p[n_fds++].fd = fd;
  }
  if (hook_) hook_->leaving(false);
  const int n = ppoll(p, n_fds, &ts, nullptr);
  if (hook_) hook_->back();
  if (n <= 0) return outcome::timeout;  // EINTR counts as a short sleep
  if ((p[0].revents & POLLIN) == 0) return outcome::event;
  std::uint64_t v;
  [[maybe_unused]] const ssize_t r = read(event_fd_, &v, sizeof v);
  return outcome::signalled;
}

void blocker::signal() noexcept {
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t r = write(event_fd_, &one, sizeof one);
}

}  // namespace gaea::progress::detail
