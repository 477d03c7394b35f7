// gaea::progress::arrival_predictor: learns the period and lateness of periodic traffic and
// says how long a waiting thread may be away before the next arrival.

#include "gaea/progress/arrival_predictor.hpp"

#include <algorithm>

namespace gaea::progress {

namespace {
// Arrivals scatter by about the jitter around the expected time: the window covers twice it.
std::int64_t spread(std::int64_t jitter_ns, std::int64_t gap_ns) noexcept {
  return std::min(2 * jitter_ns, gap_ns / 4);
}
}  // namespace

std::int64_t arrival_predictor::window_start() const noexcept {
  return last_arrival_ns_ + gap_ns_ - (p_.lead_ns + spread(jitter_ns_, gap_ns_));
}

std::int64_t arrival_predictor::window_end() const noexcept {
  // A missed arrival costs one wake-up later (a watching sleep, or a block): the window past the
  // expected time stays short.
  return last_arrival_ns_ + gap_ns_ +
         std::max({p_.lead_ns / 2, gap_ns_ / 32, spread(jitter_ns_, gap_ns_)});
}

std::int64_t arrival_predictor::learn_lateness(std::int64_t now_ns) noexcept {
  if (last_exact_ns_ < 0 || late_count_ == 0 || late_count_ > max_late_run) return 0;
  // Spinning at both ends, the run's gap is known; each late-seen arrival between should lie at
  // its multiple of it. The run must be steady: every arrival within a quarter gap after its
  // time and not before it (beyond a 1/32 gap of jitter). More than 1 ms late is not a wake-up
  // (a thread kept off its core) and teaches nothing.
  constexpr std::int64_t max_wake_ns = 1000000;
  const std::int64_t gap = (now_ns - last_exact_ns_) / (late_count_ + 1);
  std::int64_t sum = 0;
  for (int i = 0; i < late_count_; ++i) {
    const std::int64_t late =
        late_run_[static_cast<std::size_t>(i)] - (last_exact_ns_ + (i + 1) * gap);
    if (32 * late < -gap || 4 * late > gap || late > max_wake_ns) return 0;
    sum += std::max<std::int64_t>(0, late);
  }
  const std::int64_t late = sum / late_count_;
  late_seen_ns_ = late_seen_ns_ == 0 ? late : (3 * late_seen_ns_ + late) / 4;
  return gap;
}

void arrival_predictor::traffic(std::int64_t now_ns, bool seen_late) noexcept {
  const bool arrival = last_arrival_ns_ < 0 || now_ns - last_event_ns_ > p_.episode_ns;
  last_event_ns_ = now_ns;
  if (!arrival) return;
  // When it really arrived. Seen spinning: now. Seen late: a wake-up earlier, and a predicted
  // arrival no later than the window's start. Dated as seen, a late-seen arrival would put the
  // next expected one late by the wake-up twice (the anchor and the gap), and a thread that wakes
  // later than its lead would miss every arrival of a steady rhythm by one wake-up.
  std::int64_t at = now_ns;
  if (seen_late) {
    if (late_count_ < max_late_run) late_run_[static_cast<std::size_t>(late_count_)] = now_ns;
    late_count_ = std::min(late_count_ + 1, max_late_run + 1);
    at = now_ns - late_seen_ns_;
    if (gap_ns_ > 0 && now_ns <= window_end() + late_seen_ns_) at = std::min(at, window_start());
    if (last_arrival_ns_ >= 0) at = std::max(at, last_arrival_ns_ + 1);
  } else {
    // A steady run since the last arrival seen spinning: its gap is known exactly, and the
    // previous arrival, seen late, lies one gap before this one.
    if (const std::int64_t run_gap = learn_lateness(now_ns); run_gap > 0 && last_arrival_ns_ >= 0) {
      last_arrival_ns_ = now_ns - run_gap;
      last_gap_ns_ = run_gap;
    }
    last_exact_ns_ = now_ns;
    late_count_ = 0;
  }
  if (last_arrival_ns_ >= 0) {
    const std::int64_t gap = at - last_arrival_ns_;
    // Predict only a rhythm: two successive gaps within a factor 1.5 of each other.
    const bool steady =
        last_gap_ns_ > 0 && 2 * gap <= 3 * last_gap_ns_ && 2 * last_gap_ns_ <= 3 * gap;
    gap_ns_ = steady && gap <= p_.max_predicted_ns ? gap : 0;
    // The spread of the rhythm (sender jitter, and how late this thread saw each arrival). A
    // deviation of more than an eighth of the gap is a new rhythm, not jitter: counted as jitter,
    // it would widen the spinning window of the next several arrivals by a tenth of the gap.
    // A late-seen arrival's deviation counts too: its time is an estimate, and the window should
    // cover how far off the estimate is.
    if (last_gap_ns_ > 0) {
      const std::int64_t dev = gap > last_gap_ns_ ? gap - last_gap_ns_ : last_gap_ns_ - gap;
      if (8 * dev <= gap) jitter_ns_ = jitter_ns_ == 0 ? dev : (3 * jitter_ns_ + dev) / 4;
    }
    last_gap_ns_ = gap;
  }
  last_arrival_ns_ = at;
}

std::optional<std::int64_t> arrival_predictor::away_ns(std::int64_t now_ns) const noexcept {
  if (gap_ns_ <= 0) return std::nullopt;
  if (now_ns > window_end()) return std::nullopt;
  const std::int64_t start = window_start();
  const std::int64_t lead = last_arrival_ns_ + gap_ns_ - start;
  if (gap_ns_ < 3 * lead || now_ns >= start) return 0;
  const auto away = static_cast<double>(start - now_ns) / (1.0 + late_fraction_);
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(away));
}

void arrival_predictor::overslept(std::int64_t asked_ns, std::int64_t late_ns) noexcept {
  if (asked_ns <= 0) return;
  // The lead already covers a short sleep's overshoot; what a long one adds beyond it scales
  // with its length.
  const double f =
      std::clamp(static_cast<double>(std::max<std::int64_t>(0, late_ns - p_.lead_ns / 2)) /
                     static_cast<double>(asked_ns),
                 0.0, 0.25);
  late_fraction_ = 0.75 * late_fraction_ + 0.25 * f;
}

}  // namespace gaea::progress
