// The per-call energy strategy's session: the frequency and per-step throttle levels of a call,
// applied only when the predicted saving is worth the transitions.

#include <sched.h>

#include <algorithm>

#include "detail/energy_plan.hpp"
#include "detail/service.hpp"
#include "detail/shape.hpp"
#include "detail/simulate.hpp"
#include "detail/start.hpp"
#include "gaea/base/clock.hpp"
#include "gaea/coll/estimator.hpp"
#include "gaea/energy/actuator.hpp"
#include "gaea/energy/throttle.hpp"
#include "gaea/runtime/runtime.hpp"
#include "gaea/trace/recorder.hpp"

namespace gaea::coll::detail {

std::vector<int> node_levels(const group_state& g, int me, operation op, algorithm a,
                             std::size_t bytes, std::size_t chunk) {
  const std::size_t rounds = shape_schedule(op, a, g, me, bytes, chunk).rounds.size();
  std::vector<int> level(rounds, level_idle);
  for (int mate : g.node_of_member(me)) {
    const schedule s = shape_schedule(op, a, g, mate, bytes, chunk);
    for (std::size_t i = 0; i < std::min(rounds, s.rounds.size()); ++i) {
      const round& r = s.rounds[i];
      // A round of local work alone (copies, rotations) is intra-node; inside a communication
      // step the packing is part of the step, as in [A2A-Energy]'s Bruck stages.
      bool intra = r.local_bytes > 0 && r.sends.empty() && r.recvs.empty(), inter = false;
      for (const auto* v : {&r.sends, &r.recvs})
        for (const transfer& t : *v)
          (g.same_node(mate, t.peer) ? intra : inter) = true;
      if (intra)
        level[i] = level_intra;
      else if (inter && level[i] != level_intra)
        level[i] = level_inter;
    }
  }
  return level;
}

bool worth_saving(double predicted_s, double transitions_s, double max_slowdown) noexcept {
  return transitions_s <= max_slowdown * predicted_s;
}

namespace {

// Predicted time of a call on `g` (the loaded calibration, else the defaults), computed once.
double predicted_seconds(const group_state& g, operation op, algorithm a, std::size_t bytes,
                         std::size_t chunk) {
  return g.svc->remember(
      {g.id, static_cast<std::uint8_t>(op), static_cast<std::uint8_t>(a), true, bytes}, [&] {
        static const estimator defaults;
        const estimator* e = g.svc->model();
        return simulate(e ? *e : defaults, op, a, g, bytes, chunk, false).seconds;
      });
}

class dvfs_throttle_session final : public energy_session {
 public:
  dvfs_throttle_session(runtime& rt, std::vector<int> levels, std::vector<int> cpus)
      : rt_(rt), levels_(std::move(levels)), cpus_(std::move(cpus)) {
    // Behind the node's arbiter a request may be recorded while the CPU stays high (another rank
    // of the node wants it so): the model credits only CPUs that went low.
    energy::actuator& dvfs = rt_.dvfs();
    for (int c : cpus_)
      low_ = (dvfs.set_low(c, true) && dvfs.current_khz(c) == dvfs.low_khz(c)) || low_;
    cpu0_ns_ = gaea::process_cpu_ns();
  }
  ~dvfs_throttle_session() override { finish(); }
  void on_round(std::size_t i) override {
    if (i < levels_.size()) {
      rt_.throttle().set_all(levels_[i]);
      trace::counter("throttle_level", levels_[i]);
    }
  }
  void finish() noexcept override {
    if (finished_) return;
    finished_ = true;
    try {
      // The model charges the call's CPU time at f_min (the throttle keeps its own books).
      if (low_ && rt_.dvfs().active()) rt_.credit_low_frequency(gaea::process_cpu_ns() - cpu0_ns_);
      rt_.throttle().set_all(0);
      trace::counter("throttle_level", 0);
      for (int c : cpus_)
        rt_.dvfs().set_low(c, false);
    } catch (...) {  // a destructor: the actuators' restore puts the levels back at the latest
    }
  }

 private:
  runtime& rt_;
  std::vector<int> levels_;
  std::vector<int> cpus_;
  bool finished_ = false;
  bool low_ = false;
  std::int64_t cpu0_ns_ = 0;
};

}  // namespace

std::unique_ptr<energy_session> make_energy_session(const std::shared_ptr<group_state>& g,
                                                    const call_signature& sig, std::size_t bytes,
                                                    std::size_t prefix, energy_mode m) {
  if (m == energy_mode::off || g->size() < 2) return nullptr;
  runtime& rt = *g->rt;
  const bool hw = rt.dvfs().hardware() || rt.throttle().hardware();
  const bool any = rt.dvfs().active() || rt.throttle().active();
  if (!(m == energy_mode::on ? any : hw)) return nullptr;
  std::vector<int> cpus = rt.throttle().cpus();
  if (cpus.empty())
    if (const int c = sched_getcpu(); c >= 0) cpus.push_back(c);
  const auto op = static_cast<operation>(sig.op);
  const auto a = static_cast<algorithm>(sig.algo);
  const std::size_t chunk = g->svc->cfg().chunk;
  if (m == energy_mode::automatic) {
    // Only calls long enough that their transitions (DVFS down and up, throttle in and out)
    // stay within GAEA_MAX_SLOWDOWN of the predicted time, as [A2A-Energy] applies its strategy
    // where the collective is long.
    const double cost_s = 1e-9 * static_cast<double>(cpus.size()) *
                          static_cast<double>(2 * rt.dvfs().transition_cost_ns() +
                                              2 * rt.throttle().transition_cost_ns());
    if (!worth_saving(predicted_seconds(*g, op, a, bytes, chunk), cost_s,
                      rt.progress().max_slowdown()))
      return nullptr;
  }
  // The argument check's rounds come first and run unthrottled.
  std::vector<int> levels(prefix, level_intra);
  const std::vector<int> algo = node_levels(*g, g->me, op, a, bytes, chunk);
  levels.insert(levels.end(), algo.begin(), algo.end());
  return std::make_unique<dvfs_throttle_session>(rt, std::move(levels), std::move(cpus));
}

}  // namespace gaea::coll::detail
