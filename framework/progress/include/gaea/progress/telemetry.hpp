#pragma once
/// \file
/// Per-thread telemetry of waiting: wall and CPU time per wait state, wake-ups, mode switches,
/// DVFS transitions, the latency the auto policy estimates it added, and a bounded time series
/// (state and frequency at every change) for GAEA_TRACE.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <iterator>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "gaea/base/enum_names.hpp"

namespace gaea::progress {

/// What a thread is doing, as far as waiting goes.
enum class wait_state : std::uint8_t {
  run,    ///< not waiting (computing, or the progress thread handling events)
  spin,   ///< polling
  sleep,  ///< in clock_nanosleep (micro-sleep)
  block,  ///< blocked in epoll_wait on an event fd
};
/// Text names of the wait states, in value order (used by to_string and the reports).
inline constexpr enum_name<wait_state> wait_state_names[] = {{wait_state::run, "run"},
                                                             {wait_state::spin, "spin"},
                                                             {wait_state::sleep, "sleep"},
                                                             {wait_state::block, "block"}};
/// Name table of wait_state for gaea::to_string and gaea::parse.
constexpr enum_names<wait_state> enum_names_of(wait_state) noexcept {
  return {"wait state", wait_state_names};
}
static_assert(in_value_order<wait_state>(), "telemetry indexes its times by wait_state");
/// Number of wait states (size of the per-state arrays in telemetry_totals).
inline constexpr std::size_t wait_states = std::size(wait_state_names);
/// Text name of `s` ("run", "spin", "sleep", "block").
constexpr std::string_view to_string(wait_state s) noexcept {
  return gaea::to_string<wait_state>(s);
}

/// One point of the time series: from `t_ns` on, the thread was in `state` at `khz` (0 = the
/// actuator's high level / unknown).
struct trace_sample {
  /// Start of the interval, on the monotonic clock in nanoseconds.
  std::int64_t t_ns = 0;
  /// Frequency of the thread's domain in kHz (0 = high level / unknown).
  std::int64_t khz = 0;
  /// The wait_state entered, as its integer value.
  std::uint8_t state = 0;
  std::uint8_t thread = 0;         ///< 0 = progress thread, 1.. = application threads in order
  std::uint16_t trace_thread = 0;  ///< the thread's gaea::trace::thread_index()
};

/// Sums over threads (and, in the report, over ranks).
struct telemetry_totals {
  /// Wall time per wait_state in nanoseconds, indexed by the state's value.
  std::array<std::int64_t, wait_states> wall_ns{}, cpu_ns{};
  std::uint64_t waits = 0;    ///< application-thread waits that did not complete at once
  std::uint64_t wakeups = 0;  ///< returns from sleep or block
  /// Micro-sleeps ended early by an event on a watched worker (auto's serving waits on shared
  /// cores: an arrival ended the sleep instead of waiting for its step to pass).
  std::uint64_t event_wakeups = 0;
  std::uint64_t blocks = 0;         ///< entries into epoll_wait
  std::uint64_t mode_switches = 0;  ///< changes of the active wait strategy
  /// Times the thread's DVFS domain was lowered.
  std::uint64_t dvfs_lowered = 0, dvfs_raised = 0;
  std::int64_t low_freq_cpu_ns = 0;  ///< CPU time spent while this thread's domain was lowered
  std::int64_t penalty_ns = 0;       ///< wake-up latency the policy estimates it added
  /// Adds `o` member by member.
  telemetry_totals& operator+=(const telemetry_totals& o) noexcept;
  /// \var cpu_ns
  /// CPU time per wait_state in nanoseconds, indexed by the state's value.
  //
  /// \var dvfs_raised
  /// Times the thread's DVFS domain was raised.
};

/// Written by its owner thread only; read by anyone (relaxed: approximate while running).
/// Accounting happens at state changes, never per progress step.
class thread_telemetry {
 public:
  /// Telemetry for the thread `id` (0 = progress thread), starting now in wait_state::run. Keeps
  /// at most `trace_capacity` time-series samples; later ones are counted as dropped.
  explicit thread_telemetry(std::uint8_t id, std::size_t trace_capacity);
  /// The thread enters `s` at `now_ns`; its CPU clock is read only when `cpu_ns` >= 0 is given
  /// (callers pass it at sleep/block boundaries, where a system call is cheap by comparison; spin
  /// and run intervals are charged their wall time as CPU time).
  void enter(wait_state s, std::int64_t now_ns, std::int64_t cpu_ns = -1) noexcept;
  /// The state last entered (owner thread).
  wait_state state() const noexcept { return state_; }
  /// Records that the thread's domain now runs at `khz` (a sample is traced if tracing is on).
  void set_khz(std::int64_t khz, std::int64_t now_ns) noexcept;
  /// Counts one application-thread wait that did not complete at once.
  void count_wait() noexcept { bump(waits_); }
  /// Counts one return from sleep or block.
  void count_wakeup() noexcept { bump(wakeups_); }
  /// Counts one micro-sleep ended early by an event.
  void count_event_wakeup() noexcept { bump(event_wakeups_); }
  /// Counts one entry into epoll_wait.
  void count_block() noexcept { bump(blocks_); }
  /// Counts one change of the active wait strategy.
  void count_mode_switch() noexcept { bump(mode_switches_); }
  /// Counts one DVFS change of the thread's domain (`lowered` or raised).
  void count_dvfs(bool lowered) noexcept { bump(lowered ? dvfs_lowered_ : dvfs_raised_); }
  /// Adds `ns` to the estimated wake-up latency penalty.
  void add_penalty(std::int64_t ns) noexcept { add(penalty_ns_, ns); }
  /// Adds this thread's figures to `t` (closing the current interval at `now_ns` without changing
  /// the state).
  void add_to(telemetry_totals& t, std::int64_t now_ns) const noexcept;
  /// Copies the time series recorded so far (and how many samples were dropped).
  std::vector<trace_sample> trace(std::uint64_t* dropped = nullptr) const;
  /// Turns the time-series recording on or off (off by default).
  void enable_trace(bool on) noexcept { tracing_ = on; }
  /// The owner thread's index in the gaea::trace session, stamped on its samples.
  void set_trace_thread(std::uint32_t index) noexcept {
    trace_thread_ = static_cast<std::uint16_t>(std::min<std::uint32_t>(index, 65535));
  }

 private:
  static void bump(std::atomic<std::uint64_t>& a) noexcept {
    a.store(a.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  static void add(std::atomic<std::int64_t>& a, std::int64_t v) noexcept {
    a.store(a.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
  }
  void record(std::int64_t now_ns);

  std::uint8_t id_;
  wait_state state_ = wait_state::run;
  std::int64_t since_ns_ = 0, since_cpu_ns_ = -1;
  std::int64_t khz_ = 0;
  std::atomic<std::int64_t> since_shared_ns_{0};
  std::atomic<std::uint8_t> state_shared_{0};
  std::array<std::atomic<std::int64_t>, wait_states> wall_ns_{}, cpu_ns_{};
  std::atomic<std::uint64_t> waits_{0}, wakeups_{0}, event_wakeups_{0}, blocks_{0},
      mode_switches_{0}, dvfs_lowered_{0}, dvfs_raised_{0};
  std::atomic<std::int64_t> low_freq_cpu_ns_{0}, penalty_ns_{0};
  bool tracing_ = false;
  std::uint16_t trace_thread_ = 0;
  std::size_t trace_capacity_;
  mutable std::mutex trace_mutex_;
  std::vector<trace_sample> trace_;
  std::uint64_t trace_dropped_ = 0;
};

}  // namespace gaea::progress
