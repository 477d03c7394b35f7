#pragma once
// The state of one algorithm::shared_memory call on this member, shared by the rounds of its
// schedule (shm.cpp) and by the inline runner of small blocking calls (shm_inline.cpp).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "detail/group_state.hpp"
#include "detail/service.hpp"
#include "detail/shm_region.hpp"

namespace gaea::coll::detail {

/// One call's view of the region: its number and signature, the step values it posts and
/// awaits, and the first mismatch it saw in a member's signature.
struct shm_call {
  const group_state* g = nullptr;
  shm_region* r = nullptr;
  std::uint64_t call = 0;
  call_signature sig;
  std::string problem;        // the schedule's (schedule::problem points here and owns this)
  std::vector<char> checked;  // members whose signature this call has compared

  shm_control& ctl(int m) const { return r->control(m); }
  std::uint64_t value(std::uint64_t step, unsigned phase) const {
    return shm_step_value(call, step, phase);
  }
  // Member m has posted `v` (its signature is compared the first time it is seen in the call).
  // A member that abandoned this call posted nothing for it: its failure message is coming.
  bool seen(int m, std::uint64_t v) {
    const std::uint64_t p = ctl(m).posted.load(std::memory_order_acquire);
    if (p < v || p == value(shm_abandoned_step, 1)) return false;
    if (!checked[static_cast<std::size_t>(m)]) {
      checked[static_cast<std::size_t>(m)] = 1;
      const std::optional<call_signature> theirs = shm_signature_of(ctl(m), call);
      if (theirs && !(*theirs == sig) && problem.empty())
        problem = "gaea::coll: mismatched collective calls on group '" + g->name + "' (call " +
                  std::to_string(call) + "): member " + std::to_string(m) + " (rank " +
                  std::to_string(g->ranks[static_cast<std::size_t>(m)]) + ") called " +
                  describe(*theirs) + ", member " + std::to_string(g->me) + " (rank " +
                  std::to_string(g->ranks[static_cast<std::size_t>(g->me)]) + ") " + describe(sig);
    }
    return true;
  }
  bool all_posted(std::uint64_t v) {
    for (int m = 0; m < g->size(); ++m)
      if (m != g->me && !seen(m, v)) return false;
    return true;
  }
  bool all_consumed(std::uint64_t v) const {
    for (int m = 0; m < g->size(); ++m)
      if (m != g->me && ctl(m).consumed.load(std::memory_order_acquire) < v) return false;
    return true;
  }
  std::vector<int> not_posted(std::uint64_t v) const {
    std::vector<int> out;
    for (int m = 0; m < g->size(); ++m)
      if (m != g->me && ctl(m).posted.load(std::memory_order_acquire) < v) out.push_back(m);
    return out;
  }
  // {m} while member m has not posted `v`, else none.
  std::vector<int> not_seen(int m, std::uint64_t v) {
    return seen(m, v) ? std::vector<int>{} : std::vector<int>{m};
  }
  std::vector<int> not_consumed(std::uint64_t v) const {
    std::vector<int> out;
    for (int m = 0; m < g->size(); ++m)
      if (m != g->me && ctl(m).consumed.load(std::memory_order_acquire) < v) out.push_back(m);
    return out;
  }
  void post(std::uint64_t v) const { ctl(g->me).posted.store(v, std::memory_order_release); }
  void consume(std::uint64_t v) const { ctl(g->me).consumed.store(v, std::memory_order_release); }
};

}  // namespace gaea::coll::detail
