// The barrier schedule builders: dissemination, and its hierarchical form over node teams.

#include "detail/builders.hpp"

namespace gaea::coll::detail {

void barrier_dissemination(schedule& s, const team& t, std::uint32_t phase) {
  const int n = t.size();
  std::uint32_t k = 0;
  for (int dist = 1; dist < n; dist *= 2, ++k) {
    round& r = s.add(step_kind::sync);
    r.sends.push_back({t.member((t.pos + dist) % n), tag(phase, k), nullptr, 0});
    r.recvs.push_back({t.member((t.pos - dist + n) % n), tag(phase, k), nullptr, 0});
  }
}

// Gather to each node's leader, dissemination among leaders, release inside each node: only
// the leaders' rounds cross nodes.
void barrier_hierarchical(schedule& s, const group_state& g, int me) {
  const team node = node_team(g, me);
  const team lead = leaders(g, me, 0);
  const int leader = node.member(0);
  if (node.pos != 0) {
    s.add(step_kind::sync).sends.push_back({leader, tag(phase_a, 0), nullptr, 0});
  } else if (node.size() > 1) {
    round& r = s.add(step_kind::sync);
    for (int p = 1; p < node.size(); ++p)
      r.recvs.push_back({node.member(p), tag(phase_a, 0), nullptr, 0});
  }
  if (lead.pos >= 0) barrier_dissemination(s, lead, phase_b);
  if (node.pos != 0) {
    s.add(step_kind::sync).recvs.push_back({leader, tag(phase_c, 0), nullptr, 0});
  } else if (node.size() > 1) {
    round& r = s.add(step_kind::sync);
    for (int p = 1; p < node.size(); ++p)
      r.sends.push_back({node.member(p), tag(phase_c, 0), nullptr, 0});
  }
}

}  // namespace gaea::coll::detail
