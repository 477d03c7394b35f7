#pragma once
/// \file
/// gaea::trace — the per-thread recorder of application regions (get, put, fence, collectives,
/// counter waits, tasks...) and counter samples (throttle level...) written to GAEA_TRACE.
///
/// Cost: while no session records (GAEA_TRACE unset, or an HDF5 trace, which holds wait states
/// only), a scoped_region or counter() is one relaxed load of a flag and a predictable branch:
/// no clock read, no allocation, and the region's arguments are not even computed (they come
/// from a callable invoked only when recording). While recording, a region reads the monotonic
/// clock twice and appends one fixed-size event to the calling thread's buffer; the buffer holds
/// at most `events_per_thread` events (allocated on the thread's first event), and events that
/// do not fit are counted as dropped, never stored.
///
/// Regions are recorded when they end, as complete intervals (begin, end, name, arguments), so
/// a full buffer never leaves a begin without its end. Names must be string literals or come
/// from intern(): only the pointer is stored.
///
/// Thread safety: every function may be called from any thread; each thread writes only its own
/// buffer. start() and collect() are meant for the runtime's start-up and finalize; regions must
/// not span a start() (a region still open from an earlier session ends in a freed buffer).

#include <atomic>
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "gaea/base/clock.hpp"
#include "gaea/trace/detail/recorder_state.hpp"

namespace gaea::trace {

/// Optional arguments of a region: bytes moved and the peer (target rank); -1 = not given.
struct region_args {
  std::int64_t bytes = -1;  ///< bytes moved
  std::int32_t peer = -1;   ///< target rank
};

/// True while regions and counters are recorded. Inline: one relaxed load.
inline bool recording() noexcept {
  return detail::g_recording.load(std::memory_order_relaxed);
}

/// CLOCK_MONOTONIC in ns: the clock of every trace timestamp (also the progress telemetry's).
inline std::int64_t now_ns() noexcept {
  return monotonic_ns();
}

/// RAII: records the region [construction, destruction) named `name` on the calling thread.
/// Not copyable or movable (it belongs to one scope of one thread).
class scoped_region {
 public:
  /// Starts the region `name` (a string that outlives the trace session, e.g. a literal).
  explicit scoped_region(const char* name) noexcept {
    if (recording()) [[unlikely]]
      begin(name, region_args{});
  }
  /// `make_args()` returns the region_args; it is called only while recording.
  template <class F>
  requires std::invocable<F&> && std::convertible_to<std::invoke_result_t<F&>, region_args>
  scoped_region(const char* name, F&& make_args)
  noexcept {
    if (recording()) [[unlikely]]
      begin(name, make_args());
  }
  ~scoped_region() {
    if (buf_) [[unlikely]]
      detail::record_region(buf_, name_, t0_, args_);
  }
  scoped_region(const scoped_region&) = delete;
  scoped_region& operator=(const scoped_region&) = delete;

 private:
  void begin(const char* name, const region_args& a) noexcept {
    buf_ = detail::this_buffer();
    name_ = name;
    args_ = a;
    t0_ = now_ns();
    detail::note_begin(buf_);
  }
  detail::thread_buffer* buf_ = nullptr;
  const char* name_ = nullptr;
  std::int64_t t0_ = 0;
  region_args args_;
};

/// Records one region [t0_ns, now) that ends now on the calling thread (for a region whose
/// begin is known only afterwards, e.g. a collective completed in its wait). No-op unless
/// recording.
inline void region_until_now(const char* name, std::int64_t t0_ns, region_args a = {}) noexcept {
  if (recording()) [[unlikely]]
    detail::record_region(detail::this_buffer(), name, t0_ns, a);
}

/// Records a sample of counter `name` (e.g. "throttle_level") on the calling thread. No-op
/// unless recording.
inline void counter(const char* name, double value) noexcept {
  if (recording()) [[unlikely]]
    detail::record_counter(name, value);
}

/// Regions begun on the calling thread in this session so far (0 when not recording): lets a
/// caller tell whether anything was recorded on this thread between two points.
std::uint64_t regions_begun() noexcept;

/// A stable pointer to a copy of `name`, for names built at run time (e.g. "coll.allreduce.ring").
/// The copies live until the process ends; intern the same name once, not per call.
const char* intern(std::string_view name);

/// Starts a session: forgets the previous one (its buffers are freed), makes each thread's
/// buffer hold at most `events_per_thread` events (>= 1), and records regions and counters when
/// `record` (otherwise only thread registration works: thread_index(), for wait-state samples
/// kept elsewhere). The calling thread becomes thread 0, named "main".
void start(std::uint64_t events_per_thread, bool record);
/// Stops recording (collect() still returns what was recorded).
void stop() noexcept;

/// This thread's index in the session (0, 1, ... in order of first use; 0 if no session).
std::uint32_t thread_index() noexcept;
/// Names the calling thread in the trace (default "thread <index>"); registers it.
void name_thread(std::string name);

/// One recorded event (regions are complete intervals; counters have t1_ns == t0_ns).
struct event {
  /// What an event is.
  enum kind_t : std::uint8_t {
    region,  ///< an interval
    counter  ///< a counter sample
  };
  /// Start (t0_ns) and end (t1_ns) of the event (ns).
  std::int64_t t0_ns = 0, t1_ns = 0;  ///< t1_ns: the end
  std::int64_t bytes = -1;            ///< regions: bytes moved; -1: not given
  double value = 0;                   ///< counters
  const char* name = nullptr;         ///< the region's or counter's name
  std::int32_t peer = -1;             ///< regions: the peer rank; -1: not given
  kind_t kind = region;               ///< region or counter
};

/// What one thread recorded.
struct thread_record {
  std::uint32_t index = 0;    ///< the thread's index (thread_index())
  std::string name;           ///< its name (name_thread())
  std::vector<event> events;  ///< in the order they were recorded (regions: by end time)
  std::uint64_t dropped = 0;  ///< events that did not fit the buffer
};

/// Copies of every registered thread's events, by index (threads still recording may add
/// events after the copy; what was copied is complete).
std::vector<thread_record> collect();

}  // namespace gaea::trace
