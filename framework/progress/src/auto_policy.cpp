// gaea::progress::auto_policy: the auto wait mode's decisions (spin, sleep or block) as a state
// machine on a passed-in clock, within the allowed slowdown.

#include "gaea/progress/auto_policy.hpp"

#include <algorithm>

namespace gaea::progress {

auto_params auto_params::from(const calibration& c, double max_slowdown, bool shares_core,
                              bool rank_owns_core) {
  auto_params p;
  p.wake_cost_ns = std::max<std::int64_t>(c.wake_ns, 1000);
  p.sleep_cost_ns = std::max<std::int64_t>(c.sleep_ns, 1000);
  // Spin as long as one micro-sleep would cost (the ski-rental rule: a gap shorter than that is
  // cheaper to spin through), within [10 us, 200 us]; half of that on a shared core.
  p.spin_ns = std::clamp<std::int64_t>(p.sleep_cost_ns, 10000, 200000);
  if (shares_core) p.spin_ns /= 2;
  p.shares_core = shares_core;
  p.critical_spin_ns = 4 * p.spin_ns;
  // Block once the wake-up adds at most 5% to the idle period it ends. A DVFS transition on the
  // way down and up adds its cost too.
  p.block_after_ns = 20 * (p.wake_cost_ns + 2 * c.dvfs_ns);
  p.max_sleep_ns = std::clamp<std::int64_t>(p.block_after_ns / 4, p.min_sleep_ns, 1000000);
  p.max_slowdown = max_slowdown;
  // A timed wake-up is late by about what a micro-sleep overshoots, and a thread whose core was
  // lowered for the block raises it (one DVFS transition) before it can spin. After a sleep of
  // milliseconds the lateness has a tail several times longer, and the first step after it is
  // slow: a rank on cores of its own covers that with a longer lead (it costs only idle time);
  // where ranks share cores the early spin is a peer's time (progress README, arrival prediction).
  constexpr std::int64_t own_core_leads = 4;
  p.lead_ns = (rank_owns_core ? own_core_leads : 1) * (p.sleep_cost_ns + c.dvfs_ns);
  // The parked progress thread of a shared core checks once per takeover_ns whether application
  // threads still serve: one timer wake-up (about a micro-sleep's cost) per check, so 200 of
  // them bound the checks to 0.5% of a core.
  p.takeover_ns = std::clamp<std::int64_t>(200 * p.sleep_cost_ns, 1000000, 20000000);
  return p;
}

auto_policy::auto_policy(const auto_params& p, std::int64_t now_ns)
    : p_(p),
      start_ns_(now_ns),
      last_traffic_ns_(now_ns),
      sleep_step_ns_(p.min_sleep_ns),
      window_start_ns_(now_ns),
      arrivals_(p.arrivals()) {}

void auto_policy::reset_idle(std::int64_t now_ns) noexcept {
  last_traffic_ns_ = now_ns;
  sleep_step_ns_ = p_.min_sleep_ns;
}

void auto_policy::traffic(std::int64_t now_ns, bool seen_late) noexcept {
  reset_idle(now_ns);
  arrivals_.traffic(now_ns, seen_late);
}

bool auto_policy::predicted(std::int64_t now_ns, decision& d) const noexcept {
  if (waiting_) return false;
  const std::optional<std::int64_t> away = arrivals_.away_ns(now_ns);
  if (!away) return false;
  d = *away == 0 ? decision{action::spin, 0, 0} : decision{action::block, *away, *away};
  return true;
}

std::size_t auto_policy::interrupt_bytes(transfer_kind kind) const noexcept {
  const auto k = static_cast<std::size_t>(kind);
  if (ns_per_byte_[k] <= 0) return p_.default_interrupt_bytes[k];
  // The transfer must last at least 20 wake-ups for one wake-up to cost <= 5%.
  const std::int64_t wake = std::max(p_.wake_cost_ns, block_extra_ns_[k]);
  const double bytes = 20.0 * static_cast<double>(wake) / ns_per_byte_[k];
  return static_cast<std::size_t>(std::clamp(bytes, 1024.0, 1e12));
}

bool auto_policy::bulk() const noexcept {
  return waiting_ && wait_bytes_ >= interrupt_bytes(wait_kind_);
}

void auto_policy::begin_wait(std::int64_t now_ns, std::size_t bytes, transfer_kind kind) noexcept {
  waiting_ = true;
  wait_bytes_ = bytes;
  wait_kind_ = kind;
  wait_start_ns_ = now_ns;
  wait_blocked_ = false;
  reset_idle(now_ns);
}

void auto_policy::end_wait(std::int64_t now_ns) noexcept {
  // Learn the transfer rate from waits that spun throughout (a blocked wait includes wake-ups).
  if (waiting_ && !wait_blocked_ && wait_bytes_ >= 4096) {
    const double r =
        static_cast<double>(now_ns - wait_start_ns_) / static_cast<double>(wait_bytes_);
    double& rate = ns_per_byte_[static_cast<std::size_t>(wait_kind_)];
    rate = rate <= 0 ? r : 0.75 * rate + 0.25 * r;
  } else if (waiting_ && wait_blocked_) {
    const auto k = static_cast<std::size_t>(wait_kind_);
    if (ns_per_byte_[k] > 0) {
      const auto extra = std::max<std::int64_t>(
          0, now_ns - wait_start_ns_ -
                 static_cast<std::int64_t>(ns_per_byte_[k] * static_cast<double>(wait_bytes_)));
      block_extra_ns_[k] = block_extra_ns_[k] == 0 ? extra : (3 * block_extra_ns_[k] + extra) / 4;
    }
  }
  waiting_ = false;
  reset_idle(now_ns);
}

decision auto_policy::next(std::int64_t now_ns) noexcept {
  predicted_block_ = false;
  const std::int64_t idle = now_ns - last_traffic_ns_;
  if (bulk()) {
    // Long transfer: a short probe, then block until the transfer's events arrive.
    if (idle < std::min(spin_window_ns(), p_.wake_cost_ns)) return {action::spin, 0, 0};
    wait_blocked_ = true;
    const double rate = ns_per_byte_[static_cast<std::size_t>(wait_kind_)];
    const double expected = rate > 0 ? rate * static_cast<double>(wait_bytes_)
                                     : static_cast<double>(20 * p_.wake_cost_ns);
    return {action::block, 100000000, static_cast<std::int64_t>(expected)};
  }
  const bool critical = waiting_ && !(p_.shares_core && wait_kind_ == transfer_kind::notification);
  const std::int64_t critical_ns = p_.critical_spin_ns * (p_.shares_core ? 1 : caution_);
  const std::int64_t spin_for =
      critical ? std::max(spin_window_ns(), critical_ns) : spin_window_ns();
  if (idle < spin_for) return {action::spin, 0, 0};
  if (decision d; predicted(now_ns, d)) {
    predicted_block_ = d.what == action::block;
    return d;
  }
  if (idle < block_after_ns()) {
    const std::int64_t step = sleep_step_ns_;
    sleep_step_ns_ = std::min(sleep_step_ns_ * 2, p_.max_sleep_ns);
    last_sleep_ns_ = step;
    return {action::sleep, step, 0};
  }
  if (waiting_) wait_blocked_ = true;
  // Idle this long predicts as long again (the best guess without a model of the application).
  return {action::block, waiting_ ? 100000000 : 1000000000, idle};
}

void auto_policy::woke(std::int64_t now_ns, action a, unsigned events) noexcept {
  if (events == 0) return;
  // Traffic arrived while the thread was away: it saw it late by about the wake-up cost (block)
  // or the sleep overshoot plus half the step (a uniformly placed arrival).
  charge(now_ns, a == action::block ? p_.wake_cost_ns : p_.sleep_cost_ns + last_sleep_ns_ / 2);
}

void auto_policy::charge(std::int64_t now_ns, std::int64_t ns) noexcept {
  penalty_total_ns_ += ns;
  window_penalty_ns_ += ns;
  const std::int64_t window = now_ns - window_start_ns_;
  const auto budget = static_cast<std::int64_t>(
      p_.max_slowdown * static_cast<double>(std::max(window, p_.budget_window_ns)));
  if (window_penalty_ns_ > budget) {
    // Over budget within this window: spin and sleep longer before blocking.
    caution_ = std::min(caution_ * 2, 64);
    window_start_ns_ = now_ns;
    window_penalty_ns_ = 0;
  } else if (window >= p_.budget_window_ns) {
    if (window_penalty_ns_ * 4 < budget && caution_ > 1) caution_ /= 2;
    window_start_ns_ = now_ns;
    window_penalty_ns_ = 0;
  }
}

double auto_policy::slowdown(std::int64_t now_ns) const noexcept {
  const std::int64_t elapsed = now_ns - start_ns_;
  return elapsed > 0 ? static_cast<double>(penalty_total_ns_) / static_cast<double>(elapsed) : 0.0;
}

}  // namespace gaea::progress
