// The teams the schedule builders work on: a whole group, a node's members, the nodes' leaders.

#include "detail/builders.hpp"

namespace gaea::coll::detail {

namespace {
team from(std::vector<int> members, int me) {
  team t;
  t.members = std::move(members);
  for (int p = 0; p < t.size(); ++p)
    if (t.member(p) == me) t.pos = p;
  return t;
}
}  // namespace

team whole(const group_state& g, int me) {
  team t;
  t.members.resize(static_cast<std::size_t>(g.size()));
  for (int i = 0; i < g.size(); ++i)
    t.members[static_cast<std::size_t>(i)] = i;
  t.pos = me;
  return t;
}

team node_team(const group_state& g, int me) {
  return from(g.node_of_member(me), me);
}

team leaders(const group_state& g, int me, int root) {
  std::vector<int> m;
  m.reserve(g.node_members.size());
  const int root_node = g.node[static_cast<std::size_t>(root)];
  for (std::size_t n = 0; n < g.node_members.size(); ++n)
    m.push_back(static_cast<int>(n) == root_node ? root : g.node_members[n].front());
  return from(std::move(m), me);
}

}  // namespace gaea::coll::detail
