// Which algorithm a collective call runs: option, GAEA_COLL_ALGO, estimator, or the size rules,
// and why an algorithm cannot run on a group.

#include "detail/select.hpp"

#include <string>

#include "detail/estimator_state.hpp"
#include "detail/service.hpp"
#include "gaea/base/error.hpp"
#include "gaea/coll/estimator.hpp"

namespace gaea::coll::detail {

namespace {
bool power_of_two(int n) {
  return n > 0 && (n & (n - 1)) == 0;
}
bool multi_node_shared(const group_state& g) {
  return g.nodes() > 1 && g.nodes() < g.size();
}
bool calibrated(const group_state& g, operation op) {
  const estimator* e = g.svc ? g.svc->model() : nullptr;
  if (!e) return false;
  for (const auto& kind : e->ops[static_cast<std::size_t>(op)].steps)
    for (const step_cost& c : kind)
      if (c.samples > 0) return true;
  return false;
}
}  // namespace

algorithm default_rule(const group_state& g, const call_shape& c) {
  using enum algorithm;
  switch (c.op) {
    case operation::barrier:
      return multi_node_shared(g) ? hierarchical : dissemination;
    case operation::broadcast:
      // Binomial (or its hierarchical form) is fastest on small groups; scatter-allgather pays
      // off only once the tree is deep, so only large groups take it (docs/measurements.md).
      if (multi_node_shared(g)) return hierarchical;
      if (c.bytes >= (std::size_t{512} << 10) && g.size() > 8) return scatter_allgather;
      return binomial;
    case operation::reduce:
      return multi_node_shared(g) ? hierarchical : binomial;
    case operation::allreduce:
      if (c.bytes >= (std::size_t{256} << 10) && g.size() > 2) return ring;
      return multi_node_shared(g) ? hierarchical : recursive_doubling;
    case operation::allgather:
      return ring;
    case operation::gather:
    case operation::scatter:
      // Measured on 4 ranks (gaea-coll validate --ops gather,scatter, 64 B - 512 KiB parts; sm
      // twice, tcp once): the linear form was 1.3-6x faster at 27 of the 30 points (the tree won
      // two scatters of 512 KiB and one of 16 KiB), since each tree level is one more hop
      // through a forwarding member. The tree's log2 P rounds are
      // kept for larger groups, where the root's P - 1 messages dominate (not measured here).
      return g.size() <= 8 ? linear : binomial;
    case operation::alltoall:
      // Bruck's log2(p) steps win while latency dominates: up to 256 B blocks inside a node,
      // up to 8 KiB across nodes (same results).
      if (c.uniform && g.size() > 2 && c.bytes <= (g.nodes() > 1 ? 8192u : 256u)) return bruck;
      return power_of_two(g.size()) ? pairwise : send_recv;
  }
  return binomial;
}

const char* cannot_run(algorithm a, int size, bool uniform) noexcept {
  if (a == algorithm::pairwise && !power_of_two(size))
    return "pairwise exchange needs a power-of-two number of members";
  if (a == algorithm::bruck && !uniform)
    return "Bruck needs equal blocks (alltoall, not alltoallv)";
  return "";
}

std::string shm_cannot_run(const group_state& g, const call_shape& c, const settings& s) {
  if (s.shm_bytes == 0) return "GAEA_COLL_SHM_BYTES=0";
  if (g.nodes() > 1) return "the members are on " + std::to_string(g.nodes()) + " nodes, not one";
  if (c.op == operation::alltoall && !c.uniform) return "alltoallv needs equal blocks";
  if (!g.shm_why.empty()) return "no shared memory region: " + g.shm_why;
  return {};
}

algorithm choose(const group_state& g, const call_shape& c, algorithm requested,
                 const settings& s) {
  algorithm a = requested;
  const char* from = "options::algo";
  if (a == algorithm::automatic) {
    a = s.algo[static_cast<std::size_t>(c.op)];
    from = "GAEA_COLL_ALGO";
  }
  if (a == algorithm::automatic) {
    // Inside a node, memory every member maps beats any message exchange (the estimator
    // models messages only).
    if (g.size() > 1 && shm_cannot_run(g, c, s).empty()) return algorithm::shared_memory;
    // An operation the calibration file did not measure keeps the rules: predictions from the
    // default step costs would rank its algorithms by round count alone.
    if (calibrated(g, c.op))
      if (auto best = estimator_choice(g, c)) return *best;
    return default_rule(g, c);
  }
  auto bad = [&](const std::string& why) {
    throw error("gaea::coll: " + std::string(from) + " = " + std::string(to_string(a)) + " for " +
                std::string(to_string(c.op)) + " on group '" + g.name + "' (" +
                std::to_string(g.size()) + " members): " + why);
  };
  if (!implements(a, c.op)) bad("not an algorithm of this operation");
  if (a == algorithm::shared_memory)
    if (const std::string why = shm_cannot_run(g, c, s); !why.empty()) bad(why);
  if (const char* why = cannot_run(a, g.size(), c.uniform); *why) bad(why);
  return a;
}

}  // namespace gaea::coll::detail
