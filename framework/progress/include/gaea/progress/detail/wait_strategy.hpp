#pragma once
/// \file
/// Internal (not API): how a thread waits. One contract (wait_strategy) for the progress thread and
/// for application threads waiting on a completion; the strategies decide, a `waiter` acts (spin,
/// micro-sleep, block on the event fd, lower and raise the core's frequency around a block) and
/// accounts the time of each state in the thread's telemetry.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "gaea/comm/service.hpp"
#include "gaea/progress/arrival_predictor.hpp"
#include "gaea/progress/auto_policy.hpp"
#include "gaea/progress/detail/blocker.hpp"
#include "gaea/progress/fixed_step.hpp"
#include "gaea/progress/telemetry.hpp"

namespace gaea::energy {
class governor;
}

namespace gaea::progress::detail {

/// Sets the calling thread's timer slack to 1 ns (once per thread) so that micro-sleeps are not
/// rounded up to the default 50 us. Returns false where the kernel refuses.
bool tighten_timer_slack() noexcept;

/// Short pause on the CPU (x86 `pause`, a compiler barrier elsewhere).
void cpu_relax() noexcept;

/// The acting half of waiting, one per thread. Not thread-safe except signal().
class waiter {
 public:
  /// `w`: the worker whose event fd a block waits on (the service worker for the progress thread,
  /// the thread's origin worker otherwise). `gov` may be null (no DVFS).
  waiter(comm::waitable* w, thread_telemetry& tel, energy::governor* gov);
  ~waiter();
  waiter(const waiter&) = delete;
  waiter& operator=(const waiter&) = delete;

  /// One idle-step pause; enters the spin state if the thread was elsewhere. With a yield
  /// interval set, one sched_yield() per interval instead of the pause.
  void spin() noexcept;
  /// On an oversubscribed node a spinning thread holds its CPU until the scheduler's slice ends,
  /// and a thread woken on that CPU (a peer's progress thread, a main thread woken by a
  /// completion) waits for it: milliseconds. Yielding every `ns` (0: never) hands the CPU over
  /// within `ns` instead.
  void set_yield_interval(std::int64_t ns) noexcept { yield_ns_ = ns; }
  std::int64_t yield_interval() const noexcept { return yield_ns_; }
  /// Leaves spin/sleep/block for `run` (end of a wait, or traffic for the progress thread).
  void run() noexcept;
  /// Whether the thread slept or blocked since the last call, spin() or run(): events its next
  /// step finds came while it was away, and it sees them a wake-up late (arrival_predictor). A
  /// sleep or block that returned `busy` or `unsupported` at once does not count. Clears the
  /// record.
  bool take_away() noexcept { return std::exchange(away_, false); }
  /// Micro-sleeps for `ns`; signal() ends the sleep early, and with `watch` so do the thread's
  /// worker and the away hook's watch() (see blocker::sleep). Returns `busy` at once, without
  /// sleeping, when a watched worker has events pending.
  blocker::outcome sleep(std::int64_t ns, bool watch = false) noexcept;
  /// Arms and blocks up to `timeout_ns`; with DVFS enabled the governor may lower the core first
  /// (if `expected_idle_ns` is long enough) and raises it right after. `busy`/`unsupported` return
  /// at once (the caller progresses or sleeps instead).
  blocker::outcome block(std::int64_t timeout_ns, std::int64_t expected_idle_ns);
  /// Lowers the core for a long spin wait (polling + DVFS) / raises it back.
  void lower_for_spin(std::int64_t expected_idle_ns) noexcept;
  void raise_after_spin() noexcept;
  /// Whether blocks (and long spin waits) may change the core's frequency.
  /// Turning DVFS off raises a domain this thread had lowered.
  void set_dvfs(bool on) noexcept;
  /// Raises the frequency if this thread's last block lowered it and ended by timeout (the
  /// domain stays low across timeouts until the thread has work). Call on traffic.
  void awake() noexcept {
    if (low_after_timeout_) raise_now();
  }
  bool dvfs() const noexcept { return dvfs_; }
  /// Wakes this thread out of block() or sleep(). Thread-safe.
  void signal() noexcept { blocker_.signal(); }
  bool can_block() const noexcept { return blocker_.can_block(); }
  /// See blocker::set_away_hook.
  void set_away_hook(away_hook* h) noexcept { blocker_.set_away_hook(h); }
  thread_telemetry& telemetry() noexcept { return tel_; }
  /// Mean length of the recent blocks (the progress thread's guess of the next idle period).
  std::int64_t typical_block_ns() const noexcept { return typical_block_ns_; }

 private:
  bool lower(std::int64_t now, std::int64_t expected_idle_ns) noexcept;
  void raise(std::int64_t now) noexcept;
  void raise_now() noexcept;
  thread_telemetry& tel_;
  blocker blocker_;
  energy::governor* gov_;
  bool dvfs_ = false;
  int low_cpu_ = -1;                // the CPU whose domain this thread lowered, or -1
  bool low_after_timeout_ = false;  // lowered by a block that ended by timeout
  std::int64_t typical_block_ns_ = 0;
  std::int64_t yield_ns_ = 0;
  std::int64_t last_yield_ns_ = 0;
  bool away_ = false;  // slept or blocked since the last take_away(), spin() or run()
};

/// Decides, after every progress step, whether the thread spins, sleeps or blocks.
/// Implementations keep per-thread state: one object per waiting thread.
class wait_strategy {
 public:
  virtual ~wait_strategy() = default;
  /// An application-thread wait for `bytes` of `kind` in flight begins (not called by the
  /// progress thread).
  virtual void begin_wait(std::size_t bytes, transfer_kind kind) {
    (void)bytes;
    (void)kind;
  }
  /// `events` > 0 means traffic (reset any back-off); 0 means an idle step.
  virtual void after_step(unsigned events) = 0;
  /// The wait is over.
  virtual void end_wait() {}
  virtual std::string_view name() const = 0;
};

/// Busy polling with `pause` (friendly to an SMT sibling); after `yield_after` consecutive idle
/// steps one sched_yield(), so that a thread placed on a shared core still lets neighbours run.
/// With DVFS enabled in the waiter, a wait for at least `dvfs_bytes` runs at the low frequency
/// ("polling + DVFS" of [PASCoL §4.2]).
class spin_strategy final : public wait_strategy {
 public:
  explicit spin_strategy(waiter& w, std::uint32_t yield_after = 4096,
                         std::size_t dvfs_bytes = 16384)
      : w_(w), yield_after_(yield_after), dvfs_bytes_(dvfs_bytes) {}
  void begin_wait(std::size_t bytes, transfer_kind kind) override;
  void after_step(unsigned events) override;
  void end_wait() override;
  std::string_view name() const override { return "spin"; }

 private:
  waiter& w_;
  std::uint32_t yield_after_;
  std::uint32_t idle_ = 0;
  std::size_t dvfs_bytes_;
  bool lowered_ = false;
};

/// What a backoff_strategy waits with (the defaults: adaptive's application waits).
struct backoff_params {
  std::int64_t spin_ns = 50000;        ///< spin this long after the last event
  std::int64_t min_sleep_ns = 1000;    ///< first micro-sleep step
  std::int64_t max_sleep_ns = 200000;  ///< the step doubles up to this
  std::int64_t block_after_ns = 0;     ///< idle this long, block (0: never)
  std::int64_t block_timeout_ns = 0;   ///< for at most this long at a time
  /// Each micro-sleep also ends when the thread's worker or the worker it serves has an event
  /// (blocker::sleep's `watch`): the step then bounds the CPU a sleeping thread spends, not the
  /// latency it adds to an arrival.
  bool watch = false;
  /// Meet a rhythm of arrivals spinning (arrival_predictor): sleep until the lead before the
  /// expected one instead of by steps, then spin through it.
  std::optional<arrival_params> predict;
};

/// Mode `adaptive`: spins while traffic is recent (for `spin_ns` after the last event), then
/// micro-sleeps with a step that doubles on every idle step up to `max_sleep_ns`, and drops back
/// to spinning on any traffic (after [AdaptivePolling Fig. 3], whose step grows by a fixed amount
/// instead: fixed_step_strategy). A sleeping thread leaves the core to
/// the ranks that share it, which yielding alone does not. auto's waits on shared cores (the
/// hand-over) also block after `block_after_ns`, watch and predict (backoff_params).
class backoff_strategy final : public wait_strategy {
 public:
  backoff_strategy(waiter& w, const backoff_params& p);
  /// A new wait starts spinning; its start is not an arrival (the predictor does not see it).
  void begin_wait(std::size_t, transfer_kind) override { restart(); }
  void after_step(unsigned events) override;
  void end_wait() override { w_.run(); }
  std::string_view name() const override { return "adaptive"; }

 private:
  void restart() noexcept {
    idle_ = 0;
    sleeping_ = false;
    sleep_ns_ = p_.min_sleep_ns;
    patience_ns_ = 0;
  }
  waiter& w_;
  backoff_params p_;
  std::optional<arrival_predictor> arrivals_;
  std::uint32_t idle_ = 0;
  std::int64_t idle_since_ns_ = 0;
  bool sleeping_ = false;
  std::int64_t sleep_ns_;
  std::int64_t patience_ns_ = 0;  // the least idle time before a block: half the rhythm's gap
};

/// Mode `adaptive_fixed` ([AdaptivePolling Fig. 3] as published): after every idle step sleep the
/// schedule's d (a zero d is one spin step), d growing by a fixed step up to d_max; traffic resets
/// d to d_min. No spin window, no block: the published loop only probes and sleeps.
class fixed_step_strategy final : public wait_strategy {
 public:
  fixed_step_strategy(waiter& w, const fixed_step_params& p) noexcept : w_(w), schedule_(p) {}
  /// A new wait starts from d_min, as after an arrival.
  void begin_wait(std::size_t, transfer_kind) override { schedule_.arrival(); }
  void after_step(unsigned events) override;
  void end_wait() override { w_.run(); }
  std::string_view name() const override { return "adaptive_fixed"; }
  const fixed_step_schedule& schedule() const noexcept { return schedule_; }

 private:
  waiter& w_;
  fixed_step_schedule schedule_;
};

/// Mode `interrupt`: drain (progress until a step finds nothing), arm, and block in epoll on the
/// worker's event fd; `busy` from arm means progress again. Where the worker has no event fd,
/// falls back to micro-sleeps of `fallback_sleep_ns`. With `predict` (auto's progress thread once
/// it has taken the service worker over on a shared core), a rhythm of arrivals is met spinning:
/// the block ends the lead before the expected arrival (arrival_predictor).
class interrupt_strategy final : public wait_strategy {
 public:
  interrupt_strategy(waiter& w, std::int64_t timeout_ns, std::int64_t fallback_sleep_ns = 20000,
                     std::optional<arrival_params> predict = std::nullopt)
      : w_(w), timeout_ns_(timeout_ns), fallback_sleep_ns_(fallback_sleep_ns) {
    if (predict) arrivals_.emplace(*predict);
  }
  void after_step(unsigned events) override;
  void end_wait() override { w_.run(); }
  std::string_view name() const override { return "interrupt"; }

 private:
  waiter& w_;
  std::int64_t timeout_ns_;
  std::int64_t fallback_sleep_ns_;
  std::optional<arrival_predictor> arrivals_;
};

/// Mode `auto`: the auto_policy's decisions, carried out by the waiter.
class auto_strategy final : public wait_strategy {
 public:
  /// `max_block_ns` caps every block the policy asks for (the safety timeout: a lost wake-up
  /// must cost little time).
  auto_strategy(waiter& w, const auto_params& p, std::int64_t max_block_ns);
  void begin_wait(std::size_t bytes, transfer_kind kind) override;
  void after_step(unsigned events) override;
  void end_wait() override;
  std::string_view name() const override { return "auto"; }
  const auto_policy& policy() const noexcept { return policy_; }

 private:
  waiter& w_;
  auto_policy policy_;
  std::int64_t max_block_ns_;
  action last_ = action::spin;  // what the thread did when it was last away
};

}  // namespace gaea::progress::detail
