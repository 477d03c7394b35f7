#pragma once
// The collectives' registry: one entry per (operation, algorithm) with its builder and can-run
// check, one row per operation with its default rule; and the choice of a call's algorithm,
// which reads them. Adding an algorithm: write its builder (src/algorithms/), add its entry.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "detail/builders.hpp"
#include "detail/group_state.hpp"
#include "detail/schedule.hpp"
#include "detail/service.hpp"
#include "detail/settings.hpp"
#include "gaea/coll/options.hpp"

namespace gaea::coll::detail {

struct call_shape {
  operation op;
  std::size_t bytes = 0;  // per member: the buffer (broadcast, reduce), the block (alltoall)
  bool uniform = true;    // alltoall: same block everywhere (Bruck needs it)
};

/// One call's arguments as every builder of its operation reads them. Shape-only schedules
/// (shape_schedule) pass null buffers.
struct build_args {
  const group_state* g = nullptr;
  int me = -1;    // the member the schedule is for
  int root = -1;  // member index; -1 for the operations without a root
  /// The side read: the input (reduce, allreduce), a member's part (allgather, gather), the
  /// root's parts (scatter), send (alltoall).
  const std::byte* from = nullptr;
  /// The side written: the buffer (broadcast), the output (reduce), the accumulator
  /// (allreduce), all parts (allgather, gather), a member's part (scatter), recv (alltoall).
  std::byte* to = nullptr;
  std::size_t bytes = 0;  // per member, as shape_schedule takes it (alltoall: the block)
  std::size_t count = 0;  // reduce, allreduce: elements
  reducer red{};          // reduce, allreduce
  std::size_t chunk = 0;  // chain's pipeline chunk
  std::span<const std::size_t> offsets{}, sizes{};  // allgather, gather, scatter (builders.hpp)
  const exchange_layout* layout = nullptr;          // alltoall
  const shm_context* shm = nullptr;                 // entries that run through the region
};

/// What a can-run check sees. `g` and `s` are null when the estimator asks about a group size
/// alone (it never asks about the entries that run through the region).
struct run_query {
  operation op;
  int size = 0;
  bool uniform = true;
  const group_state* g = nullptr;
  const settings* s = nullptr;
};

/// Appends a call's rounds to the schedule.
using builder = void (*)(schedule& s, const build_args& a);
/// Why an algorithm cannot run the call, or empty.
using run_check = std::string (*)(const run_query& q);
/// A blocking call's form on the calling thread (shm_inline.hpp): true when it ran the call,
/// false having touched nothing.
using inline_runner = bool (*)(group_state& g, const call_signature& sig, const build_args& a);

/// One algorithm of one operation. The estimator's shape of it is its builder run shape-only
/// (shape_schedule) on the operation's shape arguments.
struct entry {
  operation op;
  algorithm algo;
  builder build = nullptr;
  run_check cannot_run = nullptr;  // null: runs on any group
  /// Runs through the group's shared-memory region: the builder needs build_args::shm, and the
  /// estimator, which models messages only, leaves it out.
  bool region = false;
  inline_runner run_inline = nullptr;  // null: none
  /// The algorithm's name (GAEA_COLL_ALGO's spelling, from options.hpp's table).
  constexpr std::string_view name() const noexcept { return to_string(algo); }
};

/// What a shape-only schedule of the operation needs besides `bytes` per member.
enum class shape_data : std::uint8_t {
  none,
  parts,   // offsets and sizes: `bytes` per member, consecutive
  layout,  // an exchange_layout of `bytes` per peer
};

/// One operation: its default rule (used without a calibration) and its shape arguments.
struct operation_entry {
  operation op;
  algorithm (*default_rule)(const group_state& g, const call_shape& c) = nullptr;
  bool rooted = false;  // shape-only schedules are rooted at member 0 (else root -1)
  shape_data data = shape_data::none;
};

/// Every entry, ordered by operation, then by algorithm (enum order); no duplicates.
std::span<const entry> registry() noexcept;
/// One row per operation, in operation order.
std::span<const operation_entry> operation_registry() noexcept;
/// The entry of `a` for `op`; null when `a` does not implement `op` (or is automatic).
const entry* find_entry(operation op, algorithm a) noexcept;
/// Why the entry cannot run the call described by `q`; empty when it can.
std::string why_not(const entry& e, const run_query& q);

/// Every algorithm the estimator compares for `op` on `size` members, in enum order.
std::vector<algorithm> candidates(operation op, int size);

/// gaea::error when `requested` does not implement the operation or cannot run here (pairwise
/// on a group whose size is not a power of two, Bruck on alltoallv).
algorithm choose(const group_state& g, const call_shape& c, algorithm requested, const settings& s);

/// The documented rules used without a calibration (framework/coll/README.md).
algorithm default_rule(const group_state& g, const call_shape& c);

}  // namespace gaea::coll::detail
