#pragma once
/// \file
/// gaea::progress::fixed_step_params and fixed_step_schedule — the sleep schedule of the wait mode
/// `adaptive_fixed`, the receive loop of [AdaptivePolling Fig. 3] as published: probe; if nothing
/// arrived, sleep d, then grow d by a fixed step from d_min up to d_max; on an arrival d goes back
/// to d_min. Its settings are GAEA_ADAPTIVE_FIXED_{MIN,MAX,STEP}_NS (declared in
/// framework/progress/src/fixed_step.cpp; `gaea-info --env`).

#include <algorithm>
#include <cstdint>

namespace gaea::progress {

/// The parameters of mode `adaptive_fixed`, in nanoseconds. The defaults are the published ones
/// (d_min 0, d_max 1000, step 1: [AdaptivePolling §3, Experiment D]).
struct fixed_step_params {
  std::int64_t min_ns = 0;     ///< d_min: the first sleep after an arrival (0: one probe, no sleep)
  std::int64_t max_ns = 1000;  ///< d_max: the sleep stops growing here
  std::int64_t step_ns = 1;    ///< d_step: added to d after every idle probe
  /// Largest accepted d_max: a sleep of a second is already deaf to its peers.
  static constexpr std::int64_t max_max_ns = 1'000'000'000;

  /// Throws gaea::error naming the variable(s) and value(s) unless 0 <= min_ns <= max_ns <=
  /// max_max_ns and step_ns >= 1. Pure; thread-safe.
  void validate() const;
  /// Reads GAEA_ADAPTIVE_FIXED_MIN_NS, _MAX_NS and _STEP_NS (their documented defaults when
  /// unset) and validates them. Throws gaea::error naming the variable and its value on a value
  /// that does not parse or is out of range. Local, not collective: every rank reads its own
  /// environment (the runtime reads it before anything collective).
  static fixed_step_params from_env();
};

/// The sleep length d of the fixed-step loop, as a pure state machine (no clock, no sleeping:
/// the strategy sleeps what it says). Not thread-safe: one per waiting thread.
class fixed_step_schedule {
 public:
  /// `p` must be valid (fixed_step_params::validate).
  explicit fixed_step_schedule(const fixed_step_params& p) noexcept : p_(p), d_ns_(p.min_ns) {}
  /// An idle probe: returns the sleep to take now (d) and grows d by the step, up to d_max.
  std::int64_t idle() noexcept {
    const std::int64_t d = d_ns_;
    d_ns_ = d_ns_ >= p_.max_ns - p_.step_ns ? p_.max_ns : d_ns_ + p_.step_ns;
    return d;
  }
  /// A probe that found traffic: the next sleep is d_min again.
  void arrival() noexcept { d_ns_ = p_.min_ns; }
  /// The sleep the next idle probe will take.
  std::int64_t next_ns() const noexcept { return d_ns_; }
  /// The parameters the schedule was built with.
  const fixed_step_params& params() const noexcept { return p_; }

 private:
  fixed_step_params p_;
  std::int64_t d_ns_;
};

}  // namespace gaea::progress
