#pragma once
/// \file
/// Internal (not API): gaea::progress::detail::blocker — interrupt-driven waiting: drain, arm the
/// worker, and block in epoll_wait on its event fd plus an eventfd that other threads (mode
/// switches, shutdown, a DVFS timer) can signal.

#include <cstdint>

#include "gaea/comm/service.hpp"

struct epoll_event;

namespace gaea::progress::detail {

/// What a thread gives up while it is away (blocked or micro-sleeping) and takes back after:
/// the progress thread, when waiting application threads may serve its worker, releases the
/// worker's lock for them (after arming it: arm needs the lock).
class away_hook {
 public:
  virtual ~away_hook() = default;
  /// The thread is about to block (`blocking`) or sleep.
  virtual void leaving(bool blocking) noexcept = 0;
  /// The thread is back.
  virtual void back() noexcept = 0;
  /// Before a watching sleep (blocker::sleep with `watch`): an event fd, already armed, whose
  /// readiness should end the sleep too (an application thread serving the service worker
  /// watches it); `no_watch` for none, `watch_busy` when that worker has events pending (the
  /// thread must progress instead of sleeping).
  virtual int watch() noexcept { return no_watch; }
  static constexpr int no_watch = -1;
  static constexpr int watch_busy = -2;
};

/// One per waiting thread. Thread safety: block() from the owner only; signal() from anywhere.
class blocker {
 public:
  /// Why block() returned.
  enum class outcome {
    busy,        ///< the worker had events pending (arm refused): progress again
    event,       ///< the worker's event fd became readable
    signalled,   ///< someone called signal()
    timeout,     ///< the safety timeout passed
    unsupported  ///< the worker has no event fd: the caller must sleep instead
  };
  /// `w` may be null (then only signal() and the timeout end a block). Throws gaea::error when
  /// epoll or eventfd cannot be created.
  explicit blocker(comm::waitable* w);
  ~blocker();
  blocker(const blocker&) = delete;
  blocker& operator=(const blocker&) = delete;

  /// Arms the worker and blocks for at most `timeout_ns` (<0 = forever; rounded up to whole ms
  /// only on kernels without epoll_pwait2).
  outcome block(std::int64_t timeout_ns);
  /// Calls `h` (may be null) around every block (after the arm) and sleep. Owner thread only.
  void set_away_hook(away_hook* h) noexcept { hook_ = h; }
  /// Sleeps for `ns` without arming the worker (a micro-sleep), but returns early when signal()
  /// is called: a thread sleeping here is as reachable as a blocked one. Returns `signalled` or
  /// `timeout`. With `watch`, the worker is armed first and its event fd, and the away hook's
  /// watch(), end the sleep too (`event`); `busy` (at once) when either has events pending.
  /// Owner thread only.
  outcome sleep(std::int64_t ns, bool watch = false) noexcept;
  /// Wakes the owner if it is blocked or sleeping, or makes its next block()/sleep() return at
  /// once.
  void signal() noexcept;
  /// True when the worker can wake the thread (it has an event fd).
  bool can_block() const noexcept { return worker_fd_ >= 0; }

 private:
  int wait_events(epoll_event* evs, int max, std::int64_t timeout_ns) noexcept;

  comm::waitable* worker_;
  away_hook* hook_ = nullptr;
  bool precise_timeouts_ = true;
  int worker_fd_ = -1;
  int epoll_fd_ = -1;
  int event_fd_ = -1;
};

}  // namespace gaea::progress::detail
