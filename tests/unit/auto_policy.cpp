// The auto wait policy, driven with an injected clock: no timing, no threads.
#include <catch2/catch.hpp>

#include <algorithm>

#include "gaea/progress/auto_policy.hpp"

using namespace gaea::progress;

namespace {
constexpr std::int64_t us = 1000, ms = 1000000;
calibration cal(std::int64_t dvfs_ns = 0) {
  calibration c;
  c.wake_ns = 30 * us;   // 30 us to wake from epoll
  c.sleep_ns = 40 * us;  // a "1 us" micro-sleep lasts 40 us
  c.dvfs_ns = dvfs_ns;
  c.measured = true;
  return c;
}
}  // namespace

TEST_CASE("auto policy: thresholds derive from the calibration", "[auto]") {
  const auto_params p = auto_params::from(cal(), 0.02, /*shares_core=*/false);
  CHECK(p.spin_ns == 40 * us);          // one micro-sleep's cost, within [10, 200] us
  CHECK(p.block_after_ns == 600 * us);  // 20 wake-ups: a wake-up costs <= 5% of the idle period
  CHECK(p.critical_spin_ns == 4 * p.spin_ns);
  // DVFS transitions on the way down and up lengthen the wake-up.
  CHECK(auto_params::from(cal(10 * us), 0.02, false).block_after_ns == 20 * (30 + 20) * us);
  // Sharing a core halves the spin window.
  CHECK(auto_params::from(cal(), 0.02, true).spin_ns == 20 * us);
}

TEST_CASE("auto policy: spin while traffic is recent, then micro-sleep, then block", "[auto]") {
  const auto_params p = auto_params::from(cal(), 0.02, false);
  auto_policy a(p, 0);
  a.traffic(0);
  CHECK(a.next(10 * us).what == action::spin);
  CHECK(a.next(39 * us).what == action::spin);
  // Past the spin window: micro-sleeps with a doubling step.
  decision d1 = a.next(41 * us);
  REQUIRE(d1.what == action::sleep);
  CHECK(d1.ns == p.min_sleep_ns);
  decision d2 = a.next(100 * us);
  REQUIRE(d2.what == action::sleep);
  CHECK(d2.ns == 2 * p.min_sleep_ns);
  // Idle longer than block_after: block, expecting as long again.
  decision d3 = a.next(700 * us);
  REQUIRE(d3.what == action::block);
  CHECK(d3.expected_idle_ns == 700 * us);
  // Any traffic resets to spinning with the smallest step.
  a.traffic(800 * us);
  CHECK(a.next(810 * us).what == action::spin);
  decision d4 = a.next(850 * us);
  REQUIRE(d4.what == action::sleep);
  CHECK(d4.ns == p.min_sleep_ns);
}

TEST_CASE("auto policy: a latency-critical wait spins longer; a bulk wait blocks early", "[auto]") {
  const auto_params p = auto_params::from(cal(), 0.02, false);
  auto_policy a(p, 0);
  a.begin_wait(0, 64);                           // a small get: latency-critical
  CHECK(a.next(100 * us).what == action::spin);  // beyond the plain spin window
  CHECK(a.next(159 * us).what == action::spin);
  CHECK(a.next(161 * us).what == action::sleep);
  a.end_wait(200 * us);
  // A notification wait (another thread makes it true) spins as long too, unless the core is
  // shared: then only the plain window, leaving the core to the notifier.
  a.begin_wait(250 * us, 0, transfer_kind::notification);
  CHECK(a.next(250 * us + 100 * us).what == action::spin);
  a.end_wait(400 * us);
  auto_policy shared(auto_params::from(cal(), 0.02, /*shares_core=*/true), 0);
  shared.begin_wait(0, 0, transfer_kind::notification);
  CHECK(shared.next(19 * us).what == action::spin);
  CHECK(shared.next(21 * us).what == action::sleep);
  shared.end_wait(30 * us);
  shared.begin_wait(40 * us, 64, transfer_kind::other);  // its own small get still spins long
  CHECK(shared.next(40 * us + 79 * us).what == action::spin);
  shared.end_wait(200 * us);
  // Before any rate is known, [PASCoL Table 1]'s thresholds: 32 KiB for gets, 16 KiB otherwise.
  CHECK(a.interrupt_bytes() == 16384);
  CHECK(a.interrupt_bytes(transfer_kind::get) == 32768);
  // A 24 KiB get is still latency-critical; a 24 KiB put blocks after the probe.
  a.begin_wait(300 * us, 24576, transfer_kind::get);
  CHECK(a.next(300 * us + 100 * us).what == action::spin);
  a.end_wait(500 * us);
  a.begin_wait(600 * us, 24576, transfer_kind::other);
  CHECK(a.next(600 * us + 31 * us).what == action::block);
  a.end_wait(700 * us);
  a.begin_wait(1 * ms, 1 << 20);
  CHECK(a.next(1 * ms + 5 * us).what == action::spin);  // short probe
  const decision d = a.next(1 * ms + 31 * us);
  CHECK(d.what == action::block);
  a.end_wait(2 * ms);
}

TEST_CASE("auto policy: the size threshold is calibrated from the observed transfer rate",
          "[auto]") {
  const auto_params p = auto_params::from(cal(), 0.02, false);
  auto_policy a(p, 0);
  // A 64 KiB wait that spun throughout took 64 us: 1 ns per byte.
  a.begin_wait(0, 65536);
  a.end_wait(65536);
  // 20 wake-ups of 30 us = 600 us of transfer = 600000 bytes at 1 ns/B.
  CHECK(a.interrupt_bytes() == 600000);
  // A faster transport (0.1 ns/B) moves the threshold up: EWMA 0.75*1 + 0.25*0.1 = 0.775 ns/B.
  a.begin_wait(1 * ms, 1 << 20);
  a.end_wait(1 * ms + (1 << 20) / 10);
  CHECK(a.interrupt_bytes() == static_cast<std::size_t>(600000 / 0.775));
  // Gets learn their own rate: until a get is seen, theirs stays the default.
  CHECK(a.interrupt_bytes(transfer_kind::get) == 32768);
  a.begin_wait(3 * ms, 65536, transfer_kind::get);
  a.end_wait(3 * ms + 2 * 65536);  // 2 ns per byte
  CHECK(a.interrupt_bytes(transfer_kind::get) == 300000);
  CHECK(a.interrupt_bytes() == static_cast<std::size_t>(600000 / 0.775));
  // A get that blocked lasted 100 us longer than its rate says: wake-ups through this transport
  // cost more than the calibration's 30 us, so the threshold rises in proportion.
  a.begin_wait(4 * ms, 1 << 20, transfer_kind::get);
  REQUIRE(a.next(4 * ms + 31 * us).what == action::block);
  a.end_wait(4 * ms + 2 * (1 << 20) + 100 * us);
  CHECK(a.interrupt_bytes(transfer_kind::get) == 1000000);  // 20 x 100 us at 2 ns/B
}

TEST_CASE("auto policy: the slowdown budget widens the windows when wake-ups cost too much",
          "[auto]") {
  auto_params p = auto_params::from(cal(), 0.02, false);
  p.budget_window_ns = 100 * ms;
  auto_policy a(p, 0);
  CHECK(a.caution() == 1);
  // Messages that keep arriving right after the thread blocked: each costs a wake-up (30 us).
  // 2% of 100 ms = 2 ms of budget = 66 wake-ups.
  std::int64_t t = 0;
  for (int i = 0; i < 66; ++i) {
    t += 1 * ms;
    a.woke(t, action::block, 1);
  }
  CHECK(a.caution() == 1);
  a.woke(t + 10 * us, action::block, 1);
  CHECK(a.caution() == 2);
  CHECK(a.spin_window_ns() == 2 * p.spin_ns);
  CHECK(a.block_after_ns() == 2 * p.block_after_ns);
  CHECK(a.penalty_ns() == 67 * p.wake_cost_ns);
  // A wake-up that found nothing costs nothing.
  a.woke(t + 20 * us, action::block, 0);
  CHECK(a.penalty_ns() == 67 * p.wake_cost_ns);
  // A quiet window brings the caution back down.
  a.woke(t + 500 * ms, action::sleep, 1);
  CHECK(a.caution() == 1);
  CHECK(a.slowdown(t + 500 * ms) > 0);
}

TEST_CASE("auto policy: on a shared core the slowdown budget widens no spin window", "[auto]") {
  auto_params p = auto_params::from(cal(), 0.02, /*shares_core=*/true);
  p.budget_window_ns = 100 * ms;
  auto_policy a(p, 0);
  std::int64_t t = 0;
  for (int i = 0; i < 67; ++i) {
    t += 1 * ms;
    a.woke(t, action::block, 1);
  }
  REQUIRE(a.caution() == 2);
  CHECK(a.spin_window_ns() == p.spin_ns);
  CHECK(a.block_after_ns() == 2 * p.block_after_ns);
  // A small get's critical window is not widened either: it sleeps once that window has passed.
  a.begin_wait(t, 64, transfer_kind::get);
  CHECK(a.next(t + p.critical_spin_ns - 1 * us).what == action::spin);
  CHECK(a.next(t + p.critical_spin_ns + 1 * us).what == action::sleep);
  a.end_wait(t + 1 * ms);
  // The takeover period bounds the parked progress thread's checks to 0.5% of a core.
  CHECK(p.takeover_ns == std::clamp<std::int64_t>(200 * p.sleep_cost_ns, 1 * ms, 20 * ms));
}

TEST_CASE("auto policy: a steady rhythm of arrivals is met spinning, not woken late", "[auto]") {
  const auto_params p = auto_params::from(cal(), 0.02, false);  // lead 40 us
  // With DVFS, the lead includes raising the core again after the block.
  CHECK(auto_params::from(cal(10 * us), 0.02, false).lead_ns == 50 * us);
  // A rank with cores of its own meets a predicted arrival 4 leads early: no peer loses the time.
  CHECK(auto_params::from(cal(10 * us), 0.02, false, /*rank_owns_core=*/true).lead_ns == 200 * us);
  auto_policy a(p, 0);
  // Two arrivals 1 ms apart are not yet a rhythm: idle, the thread sleeps and blocks as before.
  a.traffic(0);
  a.traffic(1 * ms);
  CHECK(a.predicted_gap_ns() == 0);
  CHECK(a.next(1 * ms + 700 * us).what == action::block);
  // A third 1 ms later is: the next is expected at 3 ms.
  a.traffic(2 * ms);
  REQUIRE(a.predicted_gap_ns() == 1 * ms);
  // After the spin window, block until the lead before the expected arrival...
  const decision d = a.next(2 * ms + 50 * us);
  REQUIRE(d.what == action::block);
  CHECK(d.ns == 3 * ms - p.lead_ns - (2 * ms + 50 * us));
  // ...then spin from there through the tolerance past it (1/32 of the gap here)...
  CHECK(a.next(3 * ms - p.lead_ns + 1 * us).what == action::spin);
  CHECK(a.next(3 * ms + 30 * us).what == action::spin);
  // ...and once it has passed, fall back to sleeping and blocking.
  CHECK(a.next(3 * ms + 40 * us).what == action::block);
  // Events within episode_ns of each other are one arrival: the rhythm holds.
  a.traffic(3 * ms + 80 * us);
  a.traffic(3 * ms + 82 * us);
  CHECK(a.predicted_gap_ns() == 1 * ms + 80 * us);
}

TEST_CASE("auto policy: irregular arrivals are not predicted, short gaps are spun through",
          "[auto]") {
  const auto_params p = auto_params::from(cal(), 0.02, false);
  auto_policy a(p, 0);
  a.traffic(0);
  a.traffic(1 * ms);
  a.traffic(4 * ms);  // gaps 1 ms then 3 ms: no rhythm
  CHECK(a.predicted_gap_ns() == 0);
  CHECK(a.next(4 * ms + 50 * us).what == action::sleep);
  // A burst every 100 us (under 3 leads): spin through the gaps instead of blocking.
  a.traffic(10 * ms);
  a.traffic(10 * ms + 100 * us);
  a.traffic(10 * ms + 200 * us);
  REQUIRE(a.predicted_gap_ns() == 100 * us);
  CHECK(a.next(10 * ms + 260 * us).what == action::spin);
  // A jittery rhythm widens the window: gaps alternating 0.95 and 1.05 ms (100 us apart) spin
  // from lead + twice that before the expected arrival.
  auto_policy b(p, 0);
  std::int64_t t = 0;
  for (int i = 0; i < 12; ++i) {
    t += (i % 2 ? 1050 : 950) * us;
    b.traffic(t);
  }
  REQUIRE(b.predicted_gap_ns() == 1050 * us);
  const std::int64_t expected = t + 1050 * us;
  const decision d = b.next(t + 100 * us);
  REQUIRE(d.what == action::block);
  CHECK(expected - (t + 100 * us + d.ns) == p.lead_ns + 200 * us);
  // A step to a new rhythm (gaps 1.25x longer) is not jitter: the window stays as it was.
  auto_policy c(p, 0);
  t = 0;
  for (int i = 0; i < 6; ++i) {
    t += (i < 3 ? 1000 : 1250) * us;
    c.traffic(t);
  }
  REQUIRE(c.predicted_gap_ns() == 1250 * us);
  const decision e = c.next(t + 100 * us);
  REQUIRE(e.what == action::block);
  CHECK(t + 1250 * us - (t + 100 * us + e.ns) == p.lead_ns);
  // An application wait keeps its own rules (no prediction while waiting).
  b.begin_wait(t + 100 * us, 64);
  CHECK(b.next(t + 150 * us).what == action::spin);
}

TEST_CASE("arrival predictor: away until the lead before a steady arrival, none once it broke",
          "[auto]") {
  const arrival_params p{40 * us, 5 * us, 100 * ms};
  arrival_predictor a(p);
  a.traffic(0);
  a.traffic(1 * ms);
  CHECK_FALSE(a.away_ns(1 * ms + 100 * us).has_value());  // one gap is no rhythm
  a.traffic(2 * ms);
  REQUIRE(a.gap_ns() == 1 * ms);
  CHECK(a.away_ns(2 * ms + 100 * us) == 1 * ms - p.lead_ns - 100 * us);
  CHECK(a.away_ns(3 * ms - p.lead_ns) == 0);             // spin from the lead on...
  CHECK(a.away_ns(3 * ms + 30 * us) == 0);               // ...through the tolerance (gap / 32)...
  CHECK_FALSE(a.away_ns(3 * ms + 40 * us).has_value());  // ...and the rhythm broke
  // Gaps under 3 leads are spun through.
  arrival_predictor b(p);
  for (int i = 0; i < 3; ++i)
    b.traffic(i * 100 * us);
  REQUIRE(b.gap_ns() == 100 * us);
  CHECK(b.away_ns(230 * us) == 0);
  // Timed wake-ups seen late by a fraction of their length shorten the advice by it.
  const std::int64_t planned = *a.away_ns(2 * ms + 100 * us);
  for (int i = 0; i < 40; ++i)
    a.overslept(1 * ms, p.lead_ns / 2 + 10 * us);  // 1 % late beyond the lead's share
  const std::int64_t shortened = *a.away_ns(2 * ms + 100 * us);
  CHECK(shortened < planned);
  CHECK(shortened > planned * 98 / 100);
  // Waking on time (within the lead) lets the advice grow back.
  for (int i = 0; i < 40; ++i)
    a.overslept(1 * ms, 0);
  CHECK(*a.away_ns(2 * ms + 100 * us) >= planned - 1);
}

TEST_CASE("arrival predictor: arrivals seen after a wake-up are dated back, so the next is met",
          "[auto]") {
  const arrival_params p{40 * us, 5 * us, 100 * ms};
  // A steady 1 ms rhythm; two arrivals seen 30 us late (the thread was away) between two seen
  // spinning teach how late an away thread sees an arrival.
  arrival_predictor a(p);
  for (int i = 0; i < 3; ++i)
    a.traffic(i * ms);
  a.traffic(3 * ms + 30 * us, /*seen_late=*/true);
  a.traffic(4 * ms + 30 * us, true);
  CHECK(a.late_seen_ns() == 0);
  a.traffic(5 * ms);
  CHECK(a.late_seen_ns() == 30 * us);
  CHECK(a.gap_ns() == 1 * ms);  // the run's gap, not the last late-seen stamp's
  // The rhythm changes to 1.25 ms; its first arrival is unexpected, so seen late. Dated as seen,
  // it would put the next one 60 us late, past the 40 us lead: asleep when it comes.
  a.traffic(6250 * us + 30 * us, true);
  REQUIRE(a.gap_ns() == 1250 * us);
  CHECK(a.away_ns(7500 * us - p.lead_ns) == 0);
  CHECK(a.away_ns(7 * ms).value_or(0) > 0);  // away until then
  // Runs that are not steady teach nothing.
  arrival_predictor b(p);
  for (int i = 0; i < 3; ++i)
    b.traffic(i * ms);
  b.traffic(3 * ms + 400 * us, true);  // more than a quarter gap after its time
  b.traffic(4 * ms);
  CHECK(b.late_seen_ns() == 0);
}

TEST_CASE("arrival predictor: a thread that wakes later than its lead meets the rhythm again",
          "[auto]") {
  const arrival_params p{40 * us, 5 * us, 100 * ms};
  const std::int64_t wake = 60 * us;  // an away thread sees an arrival this late
  arrival_predictor a(p);
  for (int k = 0; k < 3; ++k)
    a.traffic(k * ms + wake, true);  // no rhythm yet: the thread was away for each
  // Every later arrival of the 1 ms rhythm: seen spinning when the thread is in its window just
  // before it, else (asleep) one wake-up late. Dated as seen, every one would be missed: each
  // window would open wake - lead after its arrival.
  int met = 0;
  for (int k = 3; k <= 10; ++k) {
    const std::int64_t t = k * ms;
    const bool spinning = a.away_ns(t - 1 * us) == std::optional<std::int64_t>(0);
    met += spinning;
    a.traffic(spinning ? t : t + wake, !spinning);
  }
  CHECK(met >= 7);
}

TEST_CASE("auto policy: predicted blocks that wake late by a share of their length are shortened",
          "[auto]") {
  const auto_params p = auto_params::from(cal(), 0.02, false);
  auto_policy a(p, 0);
  for (int i = 0; i < 3; ++i)
    a.traffic(i * 10 * ms);  // a 10 ms rhythm
  const decision planned = a.next(20 * ms + 50 * us);
  REQUIRE(planned.what == action::block);
  CHECK(a.predicted_block());
  for (int i = 0; i < 40; ++i)
    a.overslept(planned.ns, p.lead_ns / 2 + planned.ns / 50);  // 2 % late beyond the lead
  const decision shortened = a.next(20 * ms + 50 * us);
  REQUIRE(shortened.what == action::block);
  CHECK(shortened.ns < planned.ns * 99 / 100);
  CHECK(shortened.ns > planned.ns * 97 / 100);
  // A block that is not for a predicted arrival is not one to learn from.
  auto_policy b(p, 0);
  b.traffic(0);
  REQUIRE(b.next(5 * ms).what == action::block);
  CHECK_FALSE(b.predicted_block());
}
