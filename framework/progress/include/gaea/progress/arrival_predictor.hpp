#pragma once
/// \file
/// gaea::progress::arrival_predictor — expects the next arrival of periodic traffic (a halo
/// exchange every step, a shift, a sender with a steady rate), so that a waiting thread can be
/// away (asleep or blocked) between arrivals and spinning when one comes: it then sees the arrival
/// at once instead of one wake-up late, for about `lead_ns` of CPU per arrival. Used by the auto
/// policy (the progress thread) and by the hand-over's serving waits. A pure state machine with
/// the clock passed in, so that unit tests drive it.

#include <cstdint>
#include <optional>

namespace gaea::progress {

struct arrival_params {
  std::int64_t lead_ns = 60000;               ///< how early a timed wake-up aims before an arrival
  std::int64_t episode_ns = 5000;             ///< events closer than this are one arrival
  std::int64_t max_predicted_ns = 100000000;  ///< longer gaps are not predicted
};

/// Not thread-safe: one per waiting thread.
class arrival_predictor {
 public:
  explicit arrival_predictor(const arrival_params& p) noexcept : p_(p) {}

  /// A progress step handled events at `now_ns` (an arrival, unless events came within
  /// episode_ns before). When the last two gaps between arrivals agree within 1.5x, the next
  /// arrival is expected one gap after this one.
  void traffic(std::int64_t now_ns) noexcept;
  /// How long the thread may be away at `now_ns` before it must spin for the expected arrival
  /// (0: spin now; gaps under 3 leads are spun through); nullopt when no arrival is expected (no
  /// rhythm, or the expected one is later than its tolerance: the rhythm broke).
  std::optional<std::int64_t> away_ns(std::int64_t now_ns) const noexcept;
  /// The gap after the last arrival at which the next is expected; 0 = no prediction.
  std::int64_t gap_ns() const noexcept { return gap_ns_; }
  /// A timed sleep or block of `asked_ns` that away_ns() advised ended `late_ns` after its time.
  /// How late a timed wake-up is grows with its length where idle cores sleep deeply (a VM's
  /// halted vCPU: ~1 % of the sleep here, 50 us after 5 ms), which a start-up calibration of
  /// short sleeps cannot see: the advice is shortened by the observed fraction.
  void overslept(std::int64_t asked_ns, std::int64_t late_ns) noexcept;

 private:
  arrival_params p_;
  std::int64_t last_event_ns_ = 0, last_arrival_ns_ = -1, last_gap_ns_ = 0;
  std::int64_t gap_ns_ = 0, jitter_ns_ = 0;
  double late_fraction_ = 0;  // of a timed wake-up's length, beyond the lead
};

}  // namespace gaea::progress
