#pragma once
/// \file
/// gaea::progress::arrival_predictor — expects the next arrival of periodic traffic (a halo
/// exchange every step, a shift, a sender with a steady rate), so that a waiting thread can be
/// away (asleep or blocked) between arrivals and spinning when one comes: it then sees the arrival
/// at once instead of one wake-up late, for about `lead_ns` of CPU per arrival. Used by the auto
/// policy (the progress thread) and by the hand-over's serving waits. A pure state machine with
/// the clock passed in, so that unit tests drive it.

#include <array>
#include <cstdint>
#include <optional>

namespace gaea::progress {

/// Tuning of an arrival_predictor (auto_params::arrivals() derives it).
struct arrival_params {
  std::int64_t lead_ns = 60000;               ///< how early a timed wake-up aims before an arrival
  std::int64_t episode_ns = 5000;             ///< events closer than this are one arrival
  std::int64_t max_predicted_ns = 100000000;  ///< longer gaps are not predicted
};

/// Not thread-safe: one per waiting thread.
class arrival_predictor {
 public:
  /// A predictor with parameters `p` and no arrival seen yet.
  explicit arrival_predictor(const arrival_params& p) noexcept : p_(p) {}

  /// A progress step handled events at `now_ns` (an arrival, unless events came within
  /// episode_ns before). When the last two gaps between arrivals agree within 1.5x, the next
  /// arrival is expected one gap after this one. `seen_late`: the thread was away (asleep or
  /// blocked) when the events came, so `now_ns` is later than the arrival by about a wake-up;
  /// the arrival is then dated back by the learned lateness (late_seen_ns), and a predicted one
  /// to no later than its window's start (where the thread would have seen it spinning).
  void traffic(std::int64_t now_ns, bool seen_late = false) noexcept;
  /// How long the thread may be away at `now_ns` before it must spin for the expected arrival
  /// (0: spin now; gaps under 3 leads are spun through); nullopt when no arrival is expected (no
  /// rhythm, or the expected one is later than its tolerance: the rhythm broke).
  std::optional<std::int64_t> away_ns(std::int64_t now_ns) const noexcept;
  /// The gap after the last arrival at which the next is expected; 0 = no prediction.
  std::int64_t gap_ns() const noexcept { return gap_ns_; }
  /// A timed sleep or block of `asked_ns` that away_ns() advised ended `late_ns` after its time.
  /// How late a timed wake-up is grows with its length where idle cores sleep deeply (a VM's
  /// halted vCPU), which a start-up calibration of short sleeps cannot see: the advice is
  /// shortened by the observed fraction.
  void overslept(std::int64_t asked_ns, std::int64_t late_ns) noexcept;
  /// How much later than an arrival a thread that was away sees it (0 until learned). Learned
  /// from a steady run of arrivals whose first and last were seen spinning: those between, seen
  /// late, lie that much after their evenly spaced times.
  std::int64_t late_seen_ns() const noexcept { return late_seen_ns_; }

 private:
  /// Learns late_seen_ns_ from the late-seen arrivals since the last one seen spinning, now that
  /// another was seen spinning at `now_ns`; returns the run's gap when it was steady, else 0.
  std::int64_t learn_lateness(std::int64_t now_ns) noexcept;
  /// The window [start, end] in which the thread spins for the expected arrival (gap_ns_ > 0).
  std::int64_t window_start() const noexcept;
  std::int64_t window_end() const noexcept;

  static constexpr int max_late_run = 4;
  arrival_params p_;
  std::int64_t last_event_ns_ = 0, last_arrival_ns_ = -1, last_gap_ns_ = 0;
  std::int64_t gap_ns_ = 0, jitter_ns_ = 0;
  double late_fraction_ = 0;  // of a timed wake-up's length, beyond the lead
  std::int64_t late_seen_ns_ = 0;
  std::int64_t last_exact_ns_ = -1;                    // the last arrival seen spinning (as seen)
  std::array<std::int64_t, max_late_run> late_run_{};  // arrivals seen late since then (as seen)
  int late_count_ = 0;                                 // > max_late_run: too many to learn from
};

}  // namespace gaea::progress
