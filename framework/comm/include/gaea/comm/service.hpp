#pragma once
/// \file
/// The narrow interface the progress engine drives: the target-side ("service") worker of a rank.
/// Peers address their operations to it, so software-emulated RMA (tcp), atomics and active
/// messages complete when — and only when — someone progresses it.

namespace gaea::comm {

/// Progress contract. All calls except signal() must come from one thread at a time: the
/// progress thread, or the application thread when asynchronous progress is off.
class service_worker {
 public:
  virtual ~service_worker() = default;
  /// Makes progress; returns the number of events handled (0 = idle).
  virtual unsigned progress() = 0;
  /// Arms the event fd. Returns false if events are pending (caller must progress again).
  virtual bool arm() = 0;
  /// A file descriptor that becomes readable when the armed worker has events.
  virtual int event_fd() = 0;
  /// Wakes a thread blocked on event_fd(). Thread-safe.
  virtual void signal() = 0;
};

}  // namespace gaea::comm
