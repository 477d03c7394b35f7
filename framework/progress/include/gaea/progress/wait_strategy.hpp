#pragma once
/// \file
/// How a thread waits when a progress step found nothing to do. The progress thread and every
/// application-thread wait call a strategy after each step; the energy-aware issue adds adaptive
/// micro-sleep and interrupt-driven strategies behind this same contract.

#include <cstdint>
#include <memory>
#include <string_view>

namespace gaea::progress {

/// Called after every progress step with the number of events that step handled.
/// Implementations keep per-thread state: one object per waiting thread.
class wait_strategy {
 public:
  virtual ~wait_strategy() = default;
  /// `events` > 0 means traffic (reset any back-off); 0 means an idle step.
  virtual void after_step(unsigned events) = 0;
  virtual std::string_view name() const = 0;
};

/// Busy polling with the `pause` instruction (friendly to an SMT sibling); after
/// `yield_after` consecutive idle steps it calls sched_yield() once and starts counting again,
/// so that a thread placed on a shared core still lets its neighbours run.
class spin_strategy final : public wait_strategy {
 public:
  explicit spin_strategy(std::uint32_t yield_after = 4096) : yield_after_(yield_after) {}
  void after_step(unsigned events) override;
  std::string_view name() const override { return "spin"; }

 private:
  std::uint32_t yield_after_;
  std::uint32_t idle_ = 0;
};

/// Spins while traffic is recent (for `spin_ns` after the last event), then sleeps with
/// clock_nanosleep for a step that doubles on every idle step up to `max_sleep_ns` (the progress
/// thread uses 1 ms, application-thread waits 20 us), and drops
/// back to spinning on any traffic (a first version of the adaptive micro-sleep loop; the
/// energy-aware issue calibrates its bounds). A sleeping thread leaves the core to the ranks that
/// share it, which yielding alone does not: a yielding thread stays runnable and the scheduler
/// still gives it whole time slices. The spin window matters because a "1 us" sleep costs
/// 15 us or more on virtual machines: bursts must not pay it per message.
class backoff_strategy final : public wait_strategy {
 public:
  explicit backoff_strategy(std::uint32_t spin_ns = 50000, std::uint32_t min_sleep_ns = 1000,
                            std::uint32_t max_sleep_ns = 50000);
  void after_step(unsigned events) override;
  std::string_view name() const override { return "adaptive"; }

 private:
  std::int64_t spin_ns_;
  std::uint32_t min_sleep_ns_, max_sleep_ns_;
  std::uint32_t idle_ = 0;
  std::int64_t idle_since_ns_ = 0;
  bool sleeping_ = false;
  std::uint32_t sleep_ns_;
};

/// Sets the calling thread's timer slack to 1 ns (once per thread) so that micro-sleeps are not
/// rounded up to the default 50 us. Returns false where the kernel refuses.
bool tighten_timer_slack() noexcept;

/// Short pause on the CPU (x86 `pause`, a compiler barrier elsewhere).
void cpu_relax() noexcept;

}  // namespace gaea::progress
