#pragma once
/// \file
/// gaea::comm::segment — globally addressable memory, allocated collectively with
/// ucp_mem_map(UCP_MEM_MAP_ALLOCATE) so that peers on the node reach it through shared memory and
/// NICs through registration. Each rank contributes its own (possibly different) number of bytes.
/// Where registration fails on a rank, its part is plain memory and its packed key is empty:
/// peers' put, get and atomics to it go as active messages that its service worker serves
/// ([PGAS-BGQ eq. 8]; GAEA_TEST_FAIL_MEM_MAP forces it).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "gaea/comm/types.hpp"

namespace gaea::comm {

namespace detail {
struct access;  // internal members, for comm itself (src/detail/access.hpp)
}

class context;

/// The ranks a segment is shared by, when not every rank of the context (a process group), and
/// how they exchange what its creation needs (comm does not know the collectives of groups).
struct segment_members {
  /// Runtime ranks of the members, in member order; the calling rank is one of them.
  std::vector<int> ranks;
  /// Collective over the members: every member's `mine`, in member order (lengths may differ).
  std::function<std::vector<std::vector<std::byte>>(std::span<const std::byte> mine)> allgather;
};

/// Collective object: construct and destroy on every rank of the context, in the same order,
/// and before the context. Destroy only after a barrier that follows the last access to it.
/// Thread safety: accessors are const and safe; construction/destruction are collective calls of
/// the application thread.
class segment {
 public:
  /// Allocates `local_bytes` (may be 0) on this rank and exchanges addresses and keys.
  /// `name` appears in error messages. Throws gaea::error if the allocation fails.
  segment(context& ctx, std::size_t local_bytes, std::string name);
  /// The same, collective over `members` only: the other ranks take no part, and have no
  /// memory in the segment (size 0; never address them through it).
  segment(context& ctx, std::size_t local_bytes, std::string name, const segment_members& members);
  ~segment();
  segment(const segment&) = delete;
  segment& operator=(const segment&) = delete;

  /// Identifier of the segment, equal on every rank that took part in its creation.
  std::uint64_t id() const noexcept { return id_; }
  /// The name given at creation (used in error messages).
  const std::string& name() const noexcept { return name_; }
  /// This rank's memory (page-aligned; zero-filled on allocation).
  void* local_base() const noexcept { return local_base_; }
  /// Bytes this rank contributed.
  std::size_t local_size() const noexcept { return sizes_[static_cast<std::size_t>(rank_)]; }
  /// Bytes contributed by `rank`.
  std::size_t size(int rank) const { return sizes_.at(static_cast<std::size_t>(rank)); }
  /// Address of `rank`'s part of the segment in `rank`'s address space (for RMA); throws
  /// std::out_of_range if `rank` is not a rank of the context.
  std::uint64_t remote_base(int rank) const { return bases_.at(static_cast<std::size_t>(rank)); }
  /// Packed remote key of `rank` (for workers to unpack against their endpoints); empty when
  /// `rank` could not register its part (reached through active messages).
  const std::vector<std::byte>& packed_rkey(int rank) const {
    return rkeys_.at(static_cast<std::size_t>(rank));
  }
  /// The context the segment belongs to.
  context& ctx() const noexcept { return *ctx_; }

 private:
  friend struct detail::access;
  // Maps local_bytes (rounded up from 0) into memh_ and local_base_ (UCX's status).
  int map(std::size_t local_bytes);
  // This rank's packed key.
  std::vector<std::byte> packed_key() const;
  [[noreturn]] void fail_allocation(std::size_t local_bytes, bool mapped_here, const char* why);
  context* ctx_;
  std::uint64_t id_;
  std::string name_;
  int rank_;
  ucp_mem* memh_ = nullptr;
  void* unregistered_ = nullptr;  // this rank's memory when ucp_mem_map failed
  void* local_base_ = nullptr;
  std::vector<std::size_t> sizes_;
  std::vector<std::uint64_t> bases_;
  std::vector<std::vector<std::byte>> rkeys_;
};

}  // namespace gaea::comm
