// The arbitrated actuator and throttle: decorators that send each request through the node's
// table and write through the inner backend only when the node's outcome for the CPU changes.

#include <memory>

#include "detail/actuator_base.hpp"
#include "detail/arbiter_table.hpp"
#include "detail/throttle_base.hpp"

namespace gaea::energy {
namespace {

// Both decorators skip the lock when this rank's request is unchanged, unless a rank left since
// they last held it (its requests stopped counting, so the outcome may have moved).
class epoch_seen {
 public:
  bool current(const arbiter& a) const noexcept {
    return seen_.load(std::memory_order_relaxed) == a.epoch();
  }
  void update(const arbiter& a) noexcept { seen_.store(a.epoch(), std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> seen_{~std::uint64_t{0}};
};

class arbitrated_actuator final : public actuator {
 public:
  arbitrated_actuator(std::shared_ptr<actuator> inner, detail::actuator_base& base,
                      std::shared_ptr<arbiter> arb, dvfs_source who)
      : inner_(std::move(inner)),
        base_(base),
        arb_(std::move(arb)),
        bit_(detail::vote::source_bit(who)) {}

  std::string_view name() const noexcept override { return inner_->name(); }
  bool active() const noexcept override { return inner_->active(); }
  bool hardware() const noexcept override { return inner_->hardware(); }
  std::int64_t high_khz(int cpu) const override { return inner_->high_khz(cpu); }
  std::int64_t low_khz(int cpu) const override { return inner_->low_khz(cpu); }
  std::int64_t current_khz(int cpu) const override {
    if (!arb_->mine(cpu)) return inner_->current_khz(cpu);
    return detail::vote::low(arb_->applied(cpu)) ? inner_->low_khz(cpu) : inner_->high_khz(cpu);
  }

  bool set_low(int cpu, bool low) override {
    if (!arb_->mine(cpu)) return inner_->set_low(cpu, low);
    if (((arb_->my_vote(cpu) & bit_) != 0) == low && seen_.current(*arb_) &&
        (detail::vote::low(arb_->applied(cpu)) == low || !arb_->sweep_due()))
      return true;
    arbiter::guard g(*arb_);
    seen_.update(*arb_);
    const std::uint32_t v = arb_->my_vote(cpu);
    arb_->set_my_vote(cpu, low ? v | bit_ : v & ~bit_);
    if (detail::vote::low(arb_->outcome(cpu)) != low) arb_->sweep_if_due();
    return apply(cpu);
  }

  void restore() noexcept override {
    try {
      arbiter::guard g(*arb_);
      seen_.update(*arb_);
      for (int c : arb_->cpus()) {
        arb_->set_my_vote(c, arb_->my_vote(c) & ~detail::vote::low_bits);
        apply(c);
      }
    } catch (...) {  // the table could not be locked: the backend's restore still runs
    }
    inner_->restore();
  }

  std::vector<transition> transitions() const override { return inner_->transitions(); }
  std::uint64_t transition_count() const noexcept override { return inner_->transition_count(); }
  std::int64_t transition_cost_ns() const noexcept override { return inner_->transition_cost_ns(); }

 private:
  // Moves `cpu` to the node's outcome when it differs from what is applied (guard held). The
  // backend first learns where the CPU is (another rank may have moved it), then writes.
  bool apply(int cpu) {
    const bool want = detail::vote::low(arb_->outcome(cpu));
    const std::uint32_t a = arb_->applied(cpu);
    if (detail::vote::low(a) == want) return true;
    base_.assume_low(cpu, !want);
    if (!inner_->set_low(cpu, want)) return false;
    arb_->set_applied(cpu, want ? a | detail::vote::calls_low : a & ~detail::vote::low_bits);
    return true;
  }

  std::shared_ptr<actuator> inner_;
  detail::actuator_base& base_;
  std::shared_ptr<arbiter> arb_;
  std::uint32_t bit_;
  epoch_seen seen_;
};

class arbitrated_throttle final : public throttle {
 public:
  arbitrated_throttle(std::unique_ptr<throttle> inner, detail::throttle_base& base,
                      std::shared_ptr<arbiter> arb)
      : inner_(std::move(inner)), base_(base), arb_(std::move(arb)) {}

  std::string_view name() const noexcept override { return inner_->name(); }
  bool active() const noexcept override { return inner_->active(); }
  bool hardware() const noexcept override { return inner_->hardware(); }
  const std::vector<int>& cpus() const noexcept override { return inner_->cpus(); }

  bool set_level(int cpu, int level) override {
    detail::check_level(name(), cpu, level);
    if (!arb_->mine(cpu)) return inner_->set_level(cpu, level);
    // The common case in a collective: the same request as before. No lock.
    if (detail::vote::level(arb_->my_vote(cpu)) == level && seen_.current(*arb_) &&
        (detail::vote::level(arb_->applied(cpu)) == level || !arb_->sweep_due()))
      return true;
    arbiter::guard g(*arb_);
    seen_.update(*arb_);
    arb_->set_my_vote(cpu, detail::vote::with_level(arb_->my_vote(cpu), level));
    if (detail::vote::level(arb_->outcome(cpu)) != level) arb_->sweep_if_due();
    const bool ok = apply(cpu);
    sync(cpu);
    return ok;
  }
  int level(int cpu) const noexcept override {
    return arb_->mine(cpu) ? detail::vote::level(arb_->applied(cpu)) : inner_->level(cpu);
  }

  void restore() noexcept override {
    try {
      arbiter::guard g(*arb_);
      seen_.update(*arb_);
      for (int c : arb_->cpus()) {
        arb_->set_my_vote(c, detail::vote::with_level(arb_->my_vote(c), 0));
        apply(c);
        sync(c);
      }
    } catch (...) {  // the table could not be locked: the backend's restore still runs
    }
    inner_->restore();
  }

  std::vector<throttle_transition> transitions() const override { return inner_->transitions(); }
  std::uint64_t transition_count() const noexcept override { return inner_->transition_count(); }
  std::int64_t transition_cost_ns() const noexcept override { return inner_->transition_cost_ns(); }
  level_times cpu_ns_by_level() const override { return inner_->cpu_ns_by_level(); }
  std::string refusal() const override { return inner_->refusal(); }

 private:
  bool apply(int cpu) {
    const int want = detail::vote::level(arb_->outcome(cpu));
    const std::uint32_t a = arb_->applied(cpu);
    if (detail::vote::level(a) == want) return true;
    base_.assume_level(cpu, detail::vote::level(a));
    if (!inner_->set_level(cpu, want)) return false;
    arb_->set_applied(cpu, detail::vote::with_level(a, want));
    return true;
  }
  // The backend counts this process's CPU time at the level applied, also when another rank
  // applied it (seen whenever this rank takes the lock for the CPU).
  void sync(int cpu) noexcept { base_.assume_level(cpu, detail::vote::level(arb_->applied(cpu))); }

  std::unique_ptr<throttle> inner_;
  detail::throttle_base& base_;
  std::shared_ptr<arbiter> arb_;
  epoch_seen seen_;
};

}  // namespace

std::shared_ptr<actuator> arbitrated(std::shared_ptr<actuator> inner,
                                     const std::shared_ptr<arbiter>& arb, dvfs_source who) {
  if (!arb || !inner || !inner->active()) return inner;
  auto* base = dynamic_cast<detail::actuator_base*>(inner.get());
  if (!base) return inner;  // not one of Gaea's backends: nothing to keep in step
  return std::make_shared<arbitrated_actuator>(std::move(inner), *base, arb, who);
}

std::unique_ptr<throttle> arbitrated(std::unique_ptr<throttle> inner,
                                     const std::shared_ptr<arbiter>& arb) {
  if (!arb || !inner || !inner->active()) return inner;
  auto* base = dynamic_cast<detail::throttle_base*>(inner.get());
  if (!base) return inner;
  return std::make_unique<arbitrated_throttle>(std::move(inner), *base, arb);
}

}  // namespace gaea::energy
