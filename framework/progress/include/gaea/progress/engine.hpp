#pragma once
/// \file
/// gaea::progress::engine — the per-rank progress thread and the waits of application threads.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gaea/comm/completion.hpp"
#include "gaea/comm/service.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/progress/wait_strategy.hpp"

namespace gaea::progress {

/// What drives the service worker.
enum class mode {
  off,       ///< no progress thread: application threads progress the service worker when they wait
  spin,      ///< progress thread polls with `pause`, yielding rarely (it has a hardware thread)
  adaptive,  ///< spin briefly, then micro-sleep with a growing step (for threads sharing a core)
};

std::string_view to_string(mode m) noexcept;

/// Counters of the progress thread (read with relaxed loads; approximate while running).
struct stats {
  std::uint64_t steps = 0;       ///< progress calls
  std::uint64_t busy_steps = 0;  ///< calls that handled at least one event
  std::uint64_t events = 0;      ///< events handled
};

/// Owns the progress thread. Thread safety: wait()/poll() may be called from any application
/// thread with that thread's own worker; start()/stop() from the owning thread only.
class engine {
 public:
  /// `cpus`: OS indices of the PUs the thread may run on (empty = leave affinity alone).
  /// `share_core`: the application threads share cores with progress threads, so their waits
  /// back off into micro-sleeps instead of spinning.
  engine(comm::service_worker& service, mode m, std::vector<int> cpus, bool share_core);
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  mode current_mode() const noexcept { return mode_; }
  bool asynchronous() const noexcept { return mode_ != mode::off; }

  /// Progresses `w` (and the service worker when there is no progress thread) until `c` is done.
  /// Throws gaea::Error if an operation attached to `c` failed.
  void wait(comm::worker& w, comm::completion& c);
  /// One progress step of the calling thread; returns events handled.
  unsigned poll(comm::worker& w);
  /// Progresses the service worker if no progress thread does (mode off); else nothing.
  unsigned poll_service();
  /// Progresses until `pred()` holds.
  template <class Pred>
  void wait_until(comm::worker& w, Pred&& pred) {
    if (share_core_) {
      backoff_strategy s(50000, 1000, 20000);
      while (!pred())
        s.after_step(poll(w));
    } else {
      spin_strategy s;
      while (!pred())
        s.after_step(poll(w));
    }
  }

  stats thread_stats() const noexcept;
  /// The CPU the progress thread last ran on (-1 if none/unknown).
  int last_cpu() const noexcept { return last_cpu_.load(std::memory_order_relaxed); }
  /// The CPU of the progress thread's first step (-1 before it ran): shows whether it was
  /// bound before it started working.
  int first_cpu() const noexcept { return first_cpu_.load(std::memory_order_relaxed); }

 private:
  void run();
  comm::service_worker& service_;
  mode mode_;
  std::vector<int> cpus_;
  bool share_core_;
  std::mutex service_mutex_;  // serialises application threads when mode_ == off
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> steps_{0}, busy_steps_{0}, events_{0};
  std::atomic<int> last_cpu_{-1};
  std::atomic<int> first_cpu_{-1};
  std::thread thread_;
};

}  // namespace gaea::progress
