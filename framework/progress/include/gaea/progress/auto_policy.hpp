#pragma once
/// \file
/// gaea::progress::auto_policy — the decisions of the `auto` wait mode, as a pure state machine
/// with the clock passed in (so that unit tests drive it deterministically):
///   - spin while traffic is recent (within the spin window) or while a latency-critical wait is
///     young (not a notification wait on a shared core: its notifier needs the core);
///   - micro-sleep, with a step doubling from min_sleep to max_sleep, while idle;
///   - block on the event fd once the idle time exceeds block_after (20 x the measured wake-up
///     cost: by then the wake-up adds at most 5% to the idle period it ends);
///   - a wait for at least `interrupt_bytes` blocks right after a short probe: the size whose
///     transfer takes >= 20 wake-ups, from the observed transfer rate and the larger of the
///     calibrated wake-up and what blocked waits were seen to add. Gets and other transfers keep
///     separate rates and defaults ([PASCoL Table 1]: 32 KiB for a get, 16 KiB for the others,
///     until a rate is observed);
///   - a slowdown budget: the latency that sleeping and blocking add (estimated per wake-up that
///     found traffic) is kept under max_slowdown of the elapsed time by widening the windows;
///   - arrival prediction (threads not in an application wait, i.e. the progress thread): when
///     the last two gaps between arrivals agree, the next arrival is expected one gap after the
///     last; the thread blocks until `lead` before it (a timed wake-up is that late) and spins
///     from then until a tolerance past it, so periodic traffic is met spinning at the cost of
///     about `lead` of CPU per arrival. Gaps under 3 x lead are spun through.

#include <array>
#include <cstddef>
#include <cstdint>

#include "gaea/progress/arrival_predictor.hpp"
#include "gaea/progress/calibration.hpp"

namespace gaea::progress {

/// What a wait waits for: gets (the data comes back, so a get lasts longer per byte than a put),
/// other transfers, or a notification (a predicate another thread of this rank makes true and
/// signals, e.g. a barrier's handler on the progress thread: spinning cannot bring it sooner).
enum class transfer_kind : std::uint8_t { get, other, notification };
/// Number of transfer kinds (size of the per-kind arrays).
inline constexpr std::size_t transfer_kinds = 3;

/// Tuning of the auto wait policy; usually built by from() out of a calibration.
struct auto_params {
  std::int64_t spin_ns = 50000;            ///< spin window after traffic
  std::int64_t critical_spin_ns = 200000;  ///< how long a small (latency-critical) wait spins
  std::int64_t min_sleep_ns = 1000;        ///< first micro-sleep step
  std::int64_t max_sleep_ns = 1000000;     ///< largest micro-sleep step
  std::int64_t sleep_cost_ns = 60000;      ///< measured latency of one micro-sleep
  std::int64_t wake_cost_ns = 50000;       ///< measured latency of an interrupt wake-up
  std::int64_t block_after_ns = 1000000;   ///< idle time after which the thread blocks
  /// Size thresholds per transfer_kind before any rate is observed.
  std::array<std::size_t, transfer_kinds> default_interrupt_bytes{32768, 16384, 16384};
  double max_slowdown = 0.02;                 ///< budget: added latency / elapsed time
  std::int64_t budget_window_ns = 20000000;   ///< the budget is judged per window
  std::int64_t lead_ns = 60000;               ///< how early a timed wake-up aims before an arrival
  std::int64_t episode_ns = 5000;             ///< events closer than this are one arrival
  std::int64_t max_predicted_ns = 100000000;  ///< longer gaps are not predicted
  /// The arrival predictor's part of these parameters.
  arrival_params arrivals() const noexcept { return {lead_ns, episode_ns, max_predicted_ns}; }
  /// Shared cores (engine hand-over): the progress thread takes the service worker over from
  /// application threads once none has waited for this long.
  std::int64_t takeover_ns = 5000000;
  /// The thread shares its core: a notification wait then spins only the plain window, so that
  /// it does not take the core from the thread that will notify it, and the slowdown budget does
  /// not widen the critical window (spinning longer would only delay the threads it waits for).
  bool shares_core = false;

  /// Parameters derived from a calibration. `shares_core`: the thread shares its core with
  /// application threads, so spinning is kept short. `rank_owns_core`: no other rank runs on
  /// the rank's cores (engine_options::ranks_share_cores is false), so spinning early for a
  /// predicted arrival (lead_ns) takes time from no peer: the lead is 4 times longer.
  static auto_params from(const calibration& c, double max_slowdown, bool shares_core,
                          bool rank_owns_core = false);
};

/// What an auto-policy thread does after an idle step.
enum class action : std::uint8_t { spin, sleep, block };

/// The auto policy's answer to next(): an action and its length.
struct decision {
  /// Spin on, micro-sleep for `ns`, or block for at most `ns`.
  action what = action::spin;
  std::int64_t ns = 0;                ///< sleep length, or block timeout
  std::int64_t expected_idle_ns = 0;  ///< for the DVFS governor (block only)
};

/// Not thread-safe: one per waiting thread.
class auto_policy {
 public:
  /// A policy for one thread with parameters `p`, starting idle at `now_ns`.
  auto_policy(const auto_params& p, std::int64_t now_ns);

  /// A progress step handled events at `now_ns` (an arrival, unless events came within
  /// episode_ns before); `seen_late`: the thread was away (asleep or blocked) when they came
  /// (arrival_predictor::traffic).
  void traffic(std::int64_t now_ns, bool seen_late = false) noexcept;
  /// An application wait for `bytes` bytes in flight, of `kind`, starts / ends.
  void begin_wait(std::int64_t now_ns, std::size_t bytes,
                  transfer_kind kind = transfer_kind::other) noexcept;
  /// The wait begun by begin_wait ends at `now_ns` (learns the transfer rate of its kind).
  void end_wait(std::int64_t now_ns) noexcept;
  /// What to do after an idle step.
  decision next(std::int64_t now_ns) noexcept;
  /// The thread is back from `a` (sleep or block) and its next step found `events`.
  void woke(std::int64_t now_ns, action a, unsigned events) noexcept;

  /// Waits of `kind` of at least this many bytes may block at once.
  std::size_t interrupt_bytes(transfer_kind kind = transfer_kind::other) const noexcept;
  /// Estimated added latency so far, as a fraction of the elapsed time.
  double slowdown(std::int64_t now_ns) const noexcept;
  /// Estimated wake-up latency added so far, in nanoseconds.
  std::int64_t penalty_ns() const noexcept { return penalty_total_ns_; }
  /// Factor (1, 2, 4, ...) the budget has widened the windows by.
  int caution() const noexcept { return caution_; }
  /// On a shared core the budget widens no spin window (see auto_params::shares_core).
  std::int64_t spin_window_ns() const noexcept {
    return p_.spin_ns * (p_.shares_core ? 1 : caution_);
  }
  /// Idle time after which the thread blocks, widened by the current caution factor.
  std::int64_t block_after_ns() const noexcept { return p_.block_after_ns * caution_; }
  /// The parameters the policy was built with.
  const auto_params& params() const noexcept { return p_; }
  /// The gap the next arrival is expected after the last one; 0 = no prediction.
  std::int64_t predicted_gap_ns() const noexcept { return arrivals_.gap_ns(); }
  /// The last next() asked for a block that ends the lead before a predicted arrival.
  bool predicted_block() const noexcept { return predicted_block_; }
  /// That block, of `asked_ns`, timed out `late_ns` after its time (see
  /// arrival_predictor::overslept).
  void overslept(std::int64_t asked_ns, std::int64_t late_ns) noexcept {
    arrivals_.overslept(asked_ns, late_ns);
  }

 private:
  void charge(std::int64_t now_ns, std::int64_t ns) noexcept;
  bool bulk() const noexcept;
  void reset_idle(std::int64_t now_ns) noexcept;
  /// True, with the prediction's advice in `d`, when an arrival is expected soon enough at
  /// `now_ns`; false when there is no prediction or the expected arrival has passed.
  bool predicted(std::int64_t now_ns, decision& d) const noexcept;

  auto_params p_;
  std::int64_t start_ns_, last_traffic_ns_;
  std::int64_t sleep_step_ns_;
  std::int64_t last_sleep_ns_ = 0;
  // Current wait (application threads).
  bool waiting_ = false;
  std::size_t wait_bytes_ = 0;
  transfer_kind wait_kind_ = transfer_kind::other;
  std::int64_t wait_start_ns_ = 0;
  bool wait_blocked_ = false;
  // Observed transfer rate (ns per byte) per kind of waits that did not block; 0 = none yet.
  std::array<double, transfer_kinds> ns_per_byte_{};
  // Per kind, how much longer than the rate predicts a wait that blocked lasted: the wake-up as
  // this transport really delivers it (through the network stack, not just an eventfd).
  std::array<std::int64_t, transfer_kinds> block_extra_ns_{};
  // Slowdown budget.
  std::int64_t penalty_total_ns_ = 0, window_start_ns_, window_penalty_ns_ = 0;
  int caution_ = 1;
  arrival_predictor arrivals_;
  bool predicted_block_ = false;
};

}  // namespace gaea::progress
