// How a thread waits: the waiter (spin, sleep, block, DVFS down and up) and the spin, backoff,
// fixed-step, interrupt and auto strategies that drive it.

#include "gaea/progress/detail/wait_strategy.hpp"

#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>
#include <utility>

#include "gaea/base/clock.hpp"
#include "gaea/energy/governor.hpp"

namespace gaea::progress::detail {

void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#else
  asm volatile("" ::: "memory");
#endif
}

bool tighten_timer_slack() noexcept {
  thread_local int state = 0;  // 0 unknown, 1 set, -1 refused
  if (state == 0) state = prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) == 0 ? 1 : -1;
  return state == 1;
}

// ---------------------------------------------------------------------------------------------
// waiter

waiter::waiter(comm::waitable* w, thread_telemetry& tel, energy::governor* gov)
    : tel_(tel), blocker_(w), gov_(gov) {
  tighten_timer_slack();
}

waiter::~waiter() {
  if (low_cpu_ >= 0) raise(monotonic_ns());
}

void waiter::spin() noexcept {
  awake();
  away_ = false;
  if (tel_.state() != wait_state::spin) tel_.enter(wait_state::spin, monotonic_ns());
  if (yield_ns_ > 0) {
    const std::int64_t now = monotonic_ns();
    if (now - last_yield_ns_ >= yield_ns_) {
      last_yield_ns_ = now;
      sched_yield();
      return;
    }
  }
  cpu_relax();
}

void waiter::run() noexcept {
  awake();
  away_ = false;
  if (tel_.state() != wait_state::run) tel_.enter(wait_state::run, monotonic_ns());
}

void waiter::raise_now() noexcept {
  raise(monotonic_ns());
}

void waiter::set_dvfs(bool on) noexcept {
  dvfs_ = on && gov_ != nullptr;
  if (!dvfs_ && low_cpu_ >= 0) raise(monotonic_ns());
}

blocker::outcome waiter::sleep(std::int64_t ns, bool watch) noexcept {
  awake();
  tel_.enter(wait_state::sleep, monotonic_ns(), thread_cpu_ns());
  const blocker::outcome o = blocker_.sleep(ns, watch);
  if (o != blocker::outcome::busy) {
    tel_.count_wakeup();
    away_ = true;
  }
  if (o == blocker::outcome::event) tel_.count_event_wakeup();
  tel_.enter(wait_state::spin, monotonic_ns(), thread_cpu_ns());
  return o;
}

bool waiter::lower(std::int64_t now, std::int64_t expected_idle_ns) noexcept {
  if (!gov_ || low_cpu_ >= 0) return false;
  const int cpu = sched_getcpu();
  if (cpu < 0) return false;
  try {
    if (!gov_->before_block(cpu, now, expected_idle_ns)) {
      low_cpu_ = cpu;  // counted as blocked on this domain even when it stayed high
      return false;
    }
    low_cpu_ = cpu;
    tel_.count_dvfs(true);
    tel_.set_khz(gov_->act().low_khz(cpu), now);
    return true;
  } catch (...) {  // noexcept: a refused lowering leaves the CPU at its level, as if declined
    return false;
  }
}

void waiter::raise(std::int64_t now) noexcept {
  if (!gov_ || low_cpu_ < 0) return;
  try {
    if (gov_->after_wake(low_cpu_, now)) tel_.count_dvfs(false);
  } catch (...) {  // noexcept: a refused raise leaves the CPU to the actuator's restore
  }
  low_cpu_ = -1;
  low_after_timeout_ = false;
  tel_.set_khz(0, now);
}

blocker::outcome waiter::block(std::int64_t timeout_ns, std::int64_t expected_idle_ns) {
  const bool dvfs = dvfs_;
  if (!blocker_.can_block()) return blocker::outcome::unsupported;
  const std::int64_t t0 = monotonic_ns();
  tel_.enter(wait_state::block, t0, thread_cpu_ns());
  if (dvfs) lower(t0, expected_idle_ns);
  tel_.count_block();
  const blocker::outcome o = blocker_.block(timeout_ns);
  const std::int64_t t1 = monotonic_ns();
  // A safety timeout that found nothing leads straight into the next block: the domain stays
  // low (lower() above is then a no-op) until the thread has something to do, so an idle rank
  // does not pay two transitions per timeout. The strategies call awake() on traffic.
  low_after_timeout_ = o == blocker::outcome::timeout && low_cpu_ >= 0;
  if (!low_after_timeout_) raise(t1);
  if (o != blocker::outcome::busy) {
    tel_.count_wakeup();
    away_ = true;
    typical_block_ns_ = typical_block_ns_ == 0 ? t1 - t0 : (3 * typical_block_ns_ + (t1 - t0)) / 4;
  }
  tel_.enter(wait_state::spin, t1, thread_cpu_ns());
  return o;
}

void waiter::lower_for_spin(std::int64_t expected_idle_ns) noexcept {
  lower(monotonic_ns(), expected_idle_ns);
}

void waiter::raise_after_spin() noexcept {
  raise(monotonic_ns());
}

// ---------------------------------------------------------------------------------------------
// spin

void spin_strategy::begin_wait(std::size_t bytes, transfer_kind) {
  idle_ = 0;
  if (w_.dvfs() && bytes >= dvfs_bytes_) {
    w_.lower_for_spin(static_cast<std::int64_t>(bytes));  // ~1 ns/byte: a rough expected time
    lowered_ = true;
  }
}

void spin_strategy::end_wait() {
  if (lowered_) {
    w_.raise_after_spin();
    lowered_ = false;
  }
  w_.run();
}

void spin_strategy::after_step(unsigned events) {
  if (events) {
    idle_ = 0;
    return;
  }
  if (++idle_ >= yield_after_) {
    idle_ = 0;
    sched_yield();
  } else {
    w_.spin();
  }
}

namespace {
// A timed sleep or block of `ns` (`away`) that ends the lead before a predicted arrival: when it
// runs to its time rather than ending on an event, `late` learns how late it woke
// (arrival_predictor::overslept).
template <class Away, class Late>
blocker::outcome away_for_arrival(std::int64_t ns, Away away, Late late) {
  const std::int64_t due = monotonic_ns() + ns;
  const blocker::outcome o = away(ns);
  if (o == blocker::outcome::timeout) late(ns, monotonic_ns() - due);
  return o;
}
}  // namespace

// ---------------------------------------------------------------------------------------------
// adaptive (back-off)

backoff_strategy::backoff_strategy(waiter& w, const backoff_params& p)
    : w_(w), p_(p), sleep_ns_(p.min_sleep_ns) {
  if (p_.predict) arrivals_.emplace(*p_.predict);
}

void backoff_strategy::after_step(unsigned events) {
  const bool was_away = w_.take_away();
  if (events) {
    restart();
    if (arrivals_) arrivals_->traffic(monotonic_ns(), was_away);
    return;
  }
  if (!sleeping_) {
    // Spin phase: read the clock only every 64 idle steps; once the window has passed, every
    // idle step sleeps until traffic comes back.
    if (idle_ == 0) idle_since_ns_ = monotonic_ns();
    if ((++idle_ & 63) != 0 || monotonic_ns() - idle_since_ns_ < p_.spin_ns) {
      w_.spin();
      return;
    }
    sleeping_ = true;
  }
  const std::int64_t now = monotonic_ns();
  if (arrivals_) {
    if (const std::optional<std::int64_t> away = arrivals_->away_ns(now)) {
      // An arrival is expected: be there, spinning, from its lead on. Not a reason to block,
      // however long the gap: a watching sleep is as reachable, and costs one wake-up. Nor is
      // the wait idle meanwhile: block_after_ns counts from when an expected arrival failed to
      // come, and is at least half a gap, since a rhythm may grow by 1.5x and still be followed.
      // A wait that blocked at the first arrival of a longer gap (late for the rhythm) handed the
      // worker to the progress thread, which had seen none of the rhythm, and the following
      // arrivals cost a block's wake-up each (framework/progress/README.md, "Hand-over").
      idle_since_ns_ = now;
      patience_ns_ = arrivals_->gap_ns() / 2;
      if (*away == 0) {
        w_.spin();
      } else {
        away_for_arrival(
            *away, [&](std::int64_t ns) { return w_.sleep(ns, p_.watch); },
            [&](std::int64_t ns, std::int64_t late) { arrivals_->overslept(ns, late); });
        // Nor the sleep: one that woke past the window (a timed wake-up's tail) counts idle from
        // its end. Counted from its start, a gap near block_after_ns blocked at once.
        idle_since_ns_ = monotonic_ns();
      }
      return;
    }
  }
  if (p_.block_after_ns > 0 && now - idle_since_ns_ >= std::max(p_.block_after_ns, patience_ns_)) {
    if (w_.block(p_.block_timeout_ns, p_.block_timeout_ns) != blocker::outcome::unsupported) return;
  }
  // A watched worker with events pending: progress them now (the step stays as it was).
  if (w_.sleep(sleep_ns_, p_.watch) == blocker::outcome::busy) return;
  sleep_ns_ = std::min(sleep_ns_ * 2, p_.max_sleep_ns);
}

// ---------------------------------------------------------------------------------------------
// adaptive_fixed

void fixed_step_strategy::after_step(unsigned events) {
  if (events) {
    w_.awake();
    schedule_.arrival();
    return;
  }
  const std::int64_t d = schedule_.idle();
  if (d == 0)
    w_.spin();
  else
    w_.sleep(d);
}

// ---------------------------------------------------------------------------------------------
// interrupt

void interrupt_strategy::after_step(unsigned events) {
  const bool was_away = w_.take_away();
  if (events) {  // drain first: block only after a step that found nothing
    w_.awake();
    if (arrivals_) arrivals_->traffic(monotonic_ns(), was_away);
    return;
  }
  blocker::outcome o;
  std::optional<std::int64_t> away;
  if (arrivals_) away = arrivals_->away_ns(monotonic_ns());  // no clock read without prediction
  if (away && *away == 0) {
    w_.spin();
    return;
  }
  if (away && *away < timeout_ns_)
    o = away_for_arrival(
        *away, [&](std::int64_t ns) { return w_.block(ns, ns); },
        [&](std::int64_t ns, std::int64_t late) { arrivals_->overslept(ns, late); });
  else
    o = w_.block(timeout_ns_, w_.typical_block_ns());
  if (o == blocker::outcome::unsupported) w_.sleep(fallback_sleep_ns_);
}

// ---------------------------------------------------------------------------------------------
// auto

auto_strategy::auto_strategy(waiter& w, const auto_params& p, std::int64_t max_block_ns)
    : w_(w), policy_(p, monotonic_ns()), max_block_ns_(max_block_ns) {}

void auto_strategy::begin_wait(std::size_t bytes, transfer_kind kind) {
  policy_.begin_wait(monotonic_ns(), bytes, kind);
}

void auto_strategy::end_wait() {
  policy_.end_wait(monotonic_ns());
  w_.run();
}

void auto_strategy::after_step(unsigned events) {
  const bool was_away = w_.take_away();
  if (was_away) {
    const std::int64_t before = policy_.penalty_ns();
    policy_.woke(monotonic_ns(), last_, events);
    if (policy_.penalty_ns() != before) w_.telemetry().add_penalty(policy_.penalty_ns() - before);
  }
  if (events) {
    w_.awake();
    policy_.traffic(monotonic_ns(), was_away);
    return;
  }
  // Reading the clock every idle step is cheap (vDSO) next to a progress call.
  const decision d = policy_.next(monotonic_ns());
  switch (d.what) {
    case action::spin:
      w_.spin();
      return;
    case action::sleep:
      w_.sleep(d.ns);
      break;
    case action::block: {
      const auto block = [&](std::int64_t ns) { return w_.block(ns, d.expected_idle_ns); };
      const std::int64_t timeout = std::min(d.ns, max_block_ns_);
      const blocker::outcome o = policy_.predicted_block()
                                     ? away_for_arrival(timeout, block,
                                                        [&](std::int64_t ns, std::int64_t late) {
                                                          policy_.overslept(ns, late);
                                                        })
                                     : block(timeout);
      if (o == blocker::outcome::busy) return;  // events pending: progress again at once
      if (o == blocker::outcome::unsupported) w_.sleep(policy_.params().max_sleep_ns);
      break;
    }
  }
  last_ = d.what;
}

}  // namespace gaea::progress::detail
