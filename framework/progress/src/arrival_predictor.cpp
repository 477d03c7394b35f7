#include "gaea/progress/arrival_predictor.hpp"

#include <algorithm>

namespace gaea::progress {

void arrival_predictor::traffic(std::int64_t now_ns) noexcept {
  const bool arrival = last_arrival_ns_ < 0 || now_ns - last_event_ns_ > p_.episode_ns;
  last_event_ns_ = now_ns;
  if (!arrival) return;
  if (last_arrival_ns_ >= 0) {
    const std::int64_t gap = now_ns - last_arrival_ns_;
    // Predict only a rhythm: two successive gaps within a factor 1.5 of each other.
    const bool steady =
        last_gap_ns_ > 0 && 2 * gap <= 3 * last_gap_ns_ && 2 * last_gap_ns_ <= 3 * gap;
    gap_ns_ = steady && gap <= p_.max_predicted_ns ? gap : 0;
    // The spread of the rhythm (sender jitter, and how late this thread saw each arrival). A
    // deviation of more than an eighth of the gap is a new rhythm, not jitter: counted as jitter,
    // it would widen the spinning window of the next several arrivals by a tenth of the gap.
    if (last_gap_ns_ > 0) {
      const std::int64_t dev = gap > last_gap_ns_ ? gap - last_gap_ns_ : last_gap_ns_ - gap;
      if (8 * dev <= gap) jitter_ns_ = jitter_ns_ == 0 ? dev : (3 * jitter_ns_ + dev) / 4;
    }
    last_gap_ns_ = gap;
  }
  last_arrival_ns_ = now_ns;
}

std::optional<std::int64_t> arrival_predictor::away_ns(std::int64_t now_ns) const noexcept {
  if (gap_ns_ <= 0) return std::nullopt;
  const std::int64_t expected = last_arrival_ns_ + gap_ns_;
  // Arrivals scatter by about the jitter around the expected time: the window covers twice it.
  const std::int64_t spread = std::min(2 * jitter_ns_, gap_ns_ / 4);
  // A missed arrival costs one wake-up later (a watching sleep, or a block): the window past the
  // expected time stays short.
  const std::int64_t tolerance = std::max({p_.lead_ns / 2, gap_ns_ / 32, spread});
  if (now_ns > expected + tolerance) return std::nullopt;
  const std::int64_t lead = p_.lead_ns + spread;
  if (gap_ns_ < 3 * lead || expected - now_ns <= lead) return 0;
  const auto away = static_cast<double>(expected - lead - now_ns) / (1.0 + late_fraction_);
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
