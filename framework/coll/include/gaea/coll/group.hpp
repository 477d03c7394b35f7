#pragma once
/// \file
/// gaea::coll::group — an ordered set of ranks that collectives run over, like an MPI
/// communicator. Every group descends from world(); derived groups are made collectively over
/// their parent, so every member agrees on their identity without naming it.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace gaea {
class runtime;
}

namespace gaea::coll {

namespace detail {
struct group_state;
class service;
struct group_access;  // internal: builds groups from and reads their state (src/detail)
}  // namespace detail

/// A group of runtime ranks. Cheap to copy (shared state). Members are numbered 0..size()-1 in
/// the order given at creation; a rank outside the group has rank() == -1 and may not call
/// collectives on it.
/// Thread safety: the collectives of one group must be *started* in the same order on every
/// member and by one thread at a time (as with an MPI communicator); different groups may be
/// used from different threads.
class group {
 public:
  /// The index of the calling rank in the group, or -1.
  int rank() const noexcept;
  /// Number of members.
  int size() const noexcept;
  /// Runtime rank of member `i` (gaea::error when out of range).
  int world_rank(int i) const;
  /// Node (0..nodes-1, as the runtime numbers them) of member `i`.
  int node_of(int i) const;
  /// Number of distinct nodes among the members, and members on the calling rank's node.
  int nodes() const noexcept;
  /// Number of members on the calling rank's node.
  int node_size() const noexcept;
  /// "world" or the name given at creation, for messages.
  const std::string& name() const noexcept;
  /// True when every node holds consecutive members (block placement); false for cyclic and
  /// other interleavings. Algorithms read the placement from here, they never assume it.
  bool block_placement() const noexcept;

  /// Collective over this group: members with the same `color` form a new group, ordered by
  /// (`key`, rank in this group). A negative color returns an empty group (rank() == -1, size 0).
  group split(int color, int key = 0, std::string name = {}) const;
  /// Collective over this group: the members listed (indices into this group, distinct, in the
  /// new order). Ranks not listed get an empty group. gaea::error on every rank for a bad list.
  group subset(std::span<const int> members, std::string name = {}) const;

 private:
  friend struct detail::group_access;
  explicit group(std::shared_ptr<detail::group_state> s) noexcept : st_(std::move(s)) {}
  std::shared_ptr<detail::group_state> st_;
};

/// All ranks of the live runtime, in rank order. Every runtime makes it as it starts (on every
/// rank, with the collectives' message handler), so any thread may call this at any time and gets
/// the same group at once. gaea::error when no runtime exists.
const group& world();

}  // namespace gaea::coll
