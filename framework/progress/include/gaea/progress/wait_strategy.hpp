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
  std::string_view name() const override { return yield_after_ <= 1 ? "yield" : "spin"; }

 private:
  std::uint32_t yield_after_;
  std::uint32_t idle_ = 0;
};

/// Short pause on the CPU (x86 `pause`, a compiler barrier elsewhere).
void cpu_relax() noexcept;

}  // namespace gaea::progress
