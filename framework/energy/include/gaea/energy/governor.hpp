#pragma once
/// \file
/// gaea::energy::governor — decides when a CPU's frequency goes down and up around blocking
/// sleeps: down right before a thread blocks, up right after it wakes, with hysteresis and a rate
/// limit so that short sleeps never pay a transition. A frequency domain (the PUs that share a
/// clock, e.g. SMT siblings) goes down only when every Gaea thread registered on it is blocked.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "gaea/energy/actuator.hpp"

namespace gaea::energy {

/// Settings of the governor.
struct governor_config {
  /// Lower only when the expected idle time is at least this (hysteresis). 0 = derive:
  /// 20 x the actuator's transition cost (so a transition costs at most 5% of the sleep), at
  /// least 1 us; 100 us when the cost is unknown (0).
  std::int64_t min_idle_ns = 0;
  /// At most one lowering per domain per this interval (rate limit). 0 = derive: 10 x min_idle.
  std::int64_t min_interval_ns = 0;
};

/// Thread safety: all members may be called concurrently from any thread. One mutex guards the
/// domain states; the common case (a sleep too short to lower) takes it once and returns. The
/// actuator is called with the mutex held, so transitions of different domains serialise (they
/// are rate-limited, and the actuator serialises its writes anyway).
class governor {
 public:
  /// `domain_of_cpu[c]` = frequency-domain id of PU c (e.g. its core); CPUs outside the vector
  /// are their own domain. The actuator must outlive the governor. An inactive actuator (none)
  /// is never called.
  governor(actuator& act, std::vector<int> domain_of_cpu, governor_config cfg = {});
  /// A thread that runs on `cpu` counts as awake there (call once per thread, at start). A
  /// domain that was low is raised: it now has a running thread.
  void thread_started(int cpu);
  /// The thread left `cpu` for good: one awake thread less (never below 0); nothing is lowered.
  void thread_stopped(int cpu);
  /// Called right before a thread on `cpu` blocks, with its expected idle time. Asks for the
  /// domain to go low only when this was its last awake thread, the idle time is at least
  /// min_idle_ns() and the domain was not lowered within min_interval_ns(). Returns true if the
  /// CPU is low after the request (behind an arbiter, gaea/energy/arbiter.hpp, the request is
  /// recorded but the CPU stays high while another rank of the node wants it high).
  /// A negative `cpu` (unknown) is ignored.
  bool before_block(int cpu, std::int64_t now_ns, std::int64_t expected_idle_ns);
  /// Called right after the thread wakes, on the CPU it blocked on. Withdraws the domain's low
  /// request if it made one. Returns true if this call raised the CPU (it was low).
  bool after_wake(int cpu, std::int64_t now_ns);
  /// Lowerings skipped by hysteresis / by the rate limit (telemetry).
  std::uint64_t skipped_short() const noexcept;
  std::uint64_t skipped_rate() const noexcept;  ///< by the rate limit (see skipped_short)
  /// The hysteresis in force (ns): expected idle time below which it does not lower.
  std::int64_t min_idle_ns() const noexcept { return min_idle_ns_; }
  /// The rate limit in force (ns): the least time between two lowerings of a domain.
  std::int64_t min_interval_ns() const noexcept { return min_interval_ns_; }
  /// The actuator it drives.
  actuator& act() noexcept { return act_; }

 private:
  struct domain_state {
    int awake = 0;
    bool low = false;
    int low_cpu = -1;
    std::int64_t last_lowered_ns = INT64_MIN / 2;
  };
  /// The state of `cpu`'s domain (cpu >= 0), created on first use. Caller holds mutex_.
  domain_state& domain(int cpu);
  /// Raises `d` if it is low. Caller holds mutex_.
  bool raise(domain_state& d);
  actuator& act_;
  bool active_;
  std::vector<int> domain_of_cpu_;
  std::size_t first_own_domain_;  // CPUs without a listed domain get first_own_domain_ + cpu
  std::int64_t min_idle_ns_, min_interval_ns_;
  mutable std::mutex mutex_;
  std::vector<domain_state> domains_;
  std::atomic<std::uint64_t> skipped_short_{0}, skipped_rate_{0};
};

}  // namespace gaea::energy
