#pragma once
/// \file
/// The narrow interface the progress engine drives. A `waitable` is a UCX worker seen as
/// progress / arm / event fd / signal: the service worker (the target side of a rank, which peers
/// address, so software-emulated RMA (tcp), atomics and active messages complete when — and only
/// when — someone progresses it) and every application thread's origin worker.

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
class service_worker : public waitable {};

}  // namespace gaea::comm
