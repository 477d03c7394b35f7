#pragma once
/// \file
/// The narrow interface the progress engine drives. A `waitable` is a UCX worker seen as
/// progress / arm / event fd / signal: the service worker (the target side of a rank, which peers
/// address, so software-emulated RMA (tcp), atomics and active messages complete when — and only
/// when — someone progresses it) and every application thread's origin worker.

#include <functional>

namespace gaea::comm {

/// Progress contract. All calls except signal() must come from one thread at a time (the
/// worker's owner).
class waitable {
 public:
  virtual ~waitable() = default;
  /// Makes progress; returns the number of events handled (0 = idle).
  virtual unsigned progress() = 0;
  /// Arms the event fd. Returns false if events are pending (caller must progress again).
  virtual bool arm() = 0;
  /// A file descriptor that becomes readable when the armed worker has events; -1 when the
  /// transports cannot signal (the caller must then poll).
  virtual int event_fd() = 0;
  /// Wakes a thread blocked on event_fd(). Thread-safe.
  virtual void signal() = 0;
};

/// The target-side worker of a rank: driven by the progress thread, or by application threads
/// when asynchronous progress is off.
class service_worker : public waitable {
 public:
  /// Installs what wakes the worker's driver when another thread queues work for it outside UCX
  /// (a deferred reply): its driver may be micro-sleeping rather than blocked on event_fd(), so
  /// signal() alone would leave the work until the sleep ends. Empty: signal() only. After the
  /// call returns, the previous waker is no longer running. Thread-safe.
  virtual void set_waker(std::function<void()> waker) = 0;
};

}  // namespace gaea::comm
