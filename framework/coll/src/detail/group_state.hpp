#pragma once
// What every member knows about a group: its members, their nodes, and the call counter that
// keys its messages.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "detail/shm_uses.hpp"
#include "gaea/coll/group.hpp"

namespace gaea {
class runtime;
}

namespace gaea::coll::detail {

class service;
class shm_region;
class execution;

struct group_state {
  service* svc = nullptr;
  runtime* rt = nullptr;
  std::uint64_t id = 0;
  std::string name;
  std::vector<int> ranks;  // runtime rank of each member
  int me = -1;             // this rank's member index
  std::vector<int> node;   // node of each member, 0..nodes-1 in order of first appearance
  std::vector<std::vector<int>> node_members;  // members of each node, ascending
  bool block = true;                           // nodes hold consecutive members
  std::uint64_t next_call = 0;                 // collectives started on this group
  std::uint64_t children = 0;                  // groups derived from this one
  std::uint64_t agreed_calls = 0;              // agree_on calls on this group
  // algorithm::shared_memory: the node's region (made by the first call that needs it; null
  // with `shm_why` set when it could not be), and the turns of its calls, which use the
  // region one after the other in the order they started.
  std::shared_ptr<shm_region> shm;
  std::string shm_why;
  std::uint64_t shm_started = 0, shm_turn = 0;
  shm_buffer_uses shm_uses;             // this member's latest writes of its buffers
  std::vector<execution*> shm_pending;  // unfinished shared-memory calls, in turn order

  int size() const noexcept { return static_cast<int>(ranks.size()); }
  int nodes() const noexcept { return static_cast<int>(node_members.size()); }
  int my_node() const noexcept { return me < 0 ? -1 : node[static_cast<std::size_t>(me)]; }
  bool same_node(int a, int b) const noexcept {
    return node[static_cast<std::size_t>(a)] == node[static_cast<std::size_t>(b)];
  }
  const std::vector<int>& node_of_member(int m) const {
    return node_members[static_cast<std::size_t>(node[static_cast<std::size_t>(m)])];
  }
};

/// The internal side of coll::group (a friend of it).
struct group_access {
  static group make(std::shared_ptr<group_state> s) noexcept { return group(std::move(s)); }
  static const std::shared_ptr<group_state>& state(const group& g) noexcept { return g.st_; }
};

/// Builds the state for `ranks` (runtime ranks, in member order) as seen by this rank.
std::shared_ptr<group_state> make_group_state(service& svc, std::uint64_t id, std::string name,
                                              std::vector<int> ranks);

}  // namespace gaea::coll::detail
