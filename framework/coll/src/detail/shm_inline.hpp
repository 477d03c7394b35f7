#pragma once
// Small blocking algorithm::shared_memory calls on the calling thread (shm_inline.cpp): no
// schedule, execution or request, and the same steps as the schedules of the shm_* builders.

#include <cstddef>
#include <memory>
#include <span>

#include "detail/builders.hpp"
#include "detail/group_state.hpp"
#include "detail/service.hpp"
#include "gaea/coll/options.hpp"

namespace gaea::coll::detail {

/// Whether a blocking shared-memory call of `g` may run inline: the group has its region, no
/// earlier shared-memory call of it is pending on this rank, and the execution would add nothing
/// (no GAEA_COLL_CHECK rounds, no trace region, no energy session for `sig` and `bytes`).
bool shm_inline_allowed(const std::shared_ptr<group_state>& g, const call_signature& sig,
                        std::size_t bytes, const options& o);

/// Each runs the call to completion and returns true, or returns false at once, having touched
/// nothing, when it needs more than one step (the caller then builds the schedule). The arguments
/// are those of the shm_* builders of the same name. Throws gaea::error as the execution would
/// (a member's failure or mismatched call), having abandoned the call.
bool shm_inline_barrier(group_state& g, const call_signature& sig);
bool shm_inline_broadcast(group_state& g, const call_signature& sig, int root, std::byte* buf,
                          std::size_t bytes);
bool shm_inline_reduce(group_state& g, const call_signature& sig, int root, const std::byte* in,
                       std::byte* out, std::size_t count, const reducer& red);
bool shm_inline_allgather(group_state& g, const call_signature& sig, int root,
                          const std::byte* mine, std::byte* all,
                          std::span<const std::size_t> offsets, std::span<const std::size_t> sizes);
bool shm_inline_alltoall(group_state& g, const call_signature& sig, const std::byte* send,
                         std::byte* recv, std::size_t block);

}  // namespace gaea::coll::detail
