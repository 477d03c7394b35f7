#pragma once
// The algorithms, each as a schedule builder. A builder works on a `team` (an ordered subset of
// the group's members and this rank's position in it), so hierarchical forms compose the flat
// ones over node teams and leader teams. Builders only compute offsets: with
// schedule::shape_only they run for another member too (null buffers) to see its pattern.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "detail/group_state.hpp"
#include "detail/schedule.hpp"
#include "detail/service.hpp"
#include "gaea/coll/options.hpp"

namespace gaea::coll::detail {

struct team {
  std::vector<int> members;  // member indices of the group
  int pos = -1;              // this rank's position, -1 if not in the team
  int size() const noexcept { return static_cast<int>(members.size()); }
  int member(int p) const { return members[static_cast<std::size_t>(p)]; }
};
/// Every member, in group order.
team whole(const group_state& g, int me);
/// The members on `me`'s node.
team node_team(const group_state& g, int me);
/// One member per node: `root` on root's node, the lowest member elsewhere; ordered by node.
team leaders(const group_state& g, int me, int root);

/// acc[i] = acc[i] op in[i] for `count` elements.
struct reducer {
  std::size_t elem_size = 1;
  void (*fn)(std::byte* acc, const std::byte* in, std::size_t count) = nullptr;
};

// Phases keep the tags of composed algorithms apart.
inline constexpr std::uint32_t phase_check = 1, phase_a = 2, phase_b = 3, phase_c = 4, phase_d = 5;

void barrier_dissemination(schedule& s, const team& t, std::uint32_t phase);
void barrier_hierarchical(schedule& s, const group_state& g, int me);

void bcast_binomial(schedule& s, const team& t, int root_pos, std::byte* buf, std::size_t bytes,
                    std::uint32_t phase);
void bcast_scatter_allgather(schedule& s, const team& t, int root_pos, std::byte* buf,
                             std::size_t bytes, std::uint32_t phase);
void bcast_chain(schedule& s, const team& t, int root_pos, std::byte* buf, std::size_t bytes,
                 std::size_t chunk, std::uint32_t phase);
/// Leaders (binomial, or scatter-allgather from `large` bytes), then binomial inside each node.
void bcast_hierarchical(schedule& s, const group_state& g, int me, int root, std::byte* buf,
                        std::size_t bytes, std::size_t large);

/// [Bcast-Energy]'s hybrid broadcasts: the leaders run scatter-allgather (`chunk` 0) or a chain of
/// `chunk`-byte pieces; then each other member of a node copies the buffer once, straight from its
/// leader's memory (process_vm_readv), and tells the leader it is done. The root's node-mates copy
/// while the root sends to the other leaders.
void bcast_hybrid(schedule& s, const group_state& g, int me, int root, std::byte* buf,
                  std::size_t bytes, std::size_t chunk);

/// out (root only) = reduction of every position's `in`; `in` may equal `out`.
void reduce_binomial(schedule& s, const team& t, int root_pos, const std::byte* in, std::byte* out,
                     std::size_t count, const reducer& r, std::uint32_t phase);
void allreduce_recursive_doubling(schedule& s, const team& t, std::byte* acc, std::size_t count,
                                  const reducer& r, std::uint32_t phase);
void allreduce_ring(schedule& s, const team& t, std::byte* acc, std::size_t count, const reducer& r,
                    std::uint32_t phase);
void allreduce_hierarchical(schedule& s, const group_state& g, int me, std::byte* acc,
                            std::size_t count, const reducer& r);
void reduce_hierarchical(schedule& s, const group_state& g, int me, int root, const std::byte* in,
                         std::byte* out, std::size_t count, const reducer& r);

/// Position p's bytes go to all[offsets[p] .. + sizes[p]); `mine` is this position's.
void allgather_ring(schedule& s, const team& t, const std::byte* mine, std::byte* all,
                    std::span<const std::size_t> offsets, std::span<const std::size_t> sizes,
                    std::uint32_t phase);

/// As allgather_ring, in ceil(log2 n) steps of doubling runs of parts (Bruck et al. 1997),
/// through a temporary in rotated order; any n, parts of any sizes.
void allgather_bruck(schedule& s, const team& t, const std::byte* mine, std::byte* all,
                     std::span<const std::size_t> offsets, std::span<const std::size_t> sizes,
                     std::uint32_t phase);

/// Gather to / scatter from position `root_pos`: position p's part is all[offsets[p] .. +
/// sizes[p]) on the root (offsets consecutive in position order), `mine` on position p. `all`
/// is only touched on the root.
void gather_binomial(schedule& s, const team& t, int root_pos, const std::byte* mine,
                     std::byte* all, std::span<const std::size_t> offsets,
                     std::span<const std::size_t> sizes, std::uint32_t phase);
void gather_linear(schedule& s, const team& t, int root_pos, const std::byte* mine, std::byte* all,
                   std::span<const std::size_t> offsets, std::span<const std::size_t> sizes,
                   std::uint32_t phase);
void scatter_binomial(schedule& s, const team& t, int root_pos, const std::byte* all,
                      std::byte* mine, std::span<const std::size_t> offsets,
                      std::span<const std::size_t> sizes, std::uint32_t phase);
void scatter_linear(schedule& s, const team& t, int root_pos, const std::byte* all, std::byte* mine,
                    std::span<const std::size_t> offsets, std::span<const std::size_t> sizes,
                    std::uint32_t phase);

/// Per-peer byte ranges of an all-to-all (uniform or v).
struct exchange_layout {
  std::vector<std::size_t> send_off, send_len, recv_off, recv_len;
};
void alltoall_bruck(schedule& s, const team& t, const std::byte* send, std::byte* recv,
                    std::size_t block);
void alltoall_pairwise(schedule& s, const team& t, const std::byte* send, std::byte* recv,
                       const exchange_layout& l);
void alltoall_send_recv(schedule& s, const team& t, const std::byte* send, std::byte* recv,
                        const exchange_layout& l);

/// What algorithm::shared_memory's builders need of a call (region and turn null when the
/// schedule is shape_only).
struct shm_context {
  const group_state* g = nullptr;
  shm_region* region = nullptr;
  std::uint64_t call = 0;  // the number make_execution gives the call
  call_signature sig;
  std::size_t buffer_bytes = 0;       // each of a member's two buffers
  std::uint64_t* turn = nullptr;      // group_state::shm_turn
  std::uint64_t ticket = 0;           // this call's turn
  shm_buffer_uses* uses = nullptr;    // group_state::shm_uses: updated by the builder
  std::size_t single_copy_bytes = 0;  // shm_region::single_copy_bytes (0: never)
};
void shm_barrier(schedule& s, const shm_context& c);
void shm_broadcast(schedule& s, const shm_context& c, int root, std::byte* buf, std::size_t bytes);
/// root < 0: allreduce (`out` on every member).
void shm_reduce(schedule& s, const shm_context& c, int root, const std::byte* in, std::byte* out,
                std::size_t count, const reducer& r);
/// root < 0: allgather(v), else gather(v) to root (parts as allgather_ring's).
void shm_allgather(schedule& s, const shm_context& c, int root, const std::byte* mine,
                   std::byte* all, std::span<const std::size_t> offsets,
                   std::span<const std::size_t> sizes);
void shm_scatter(schedule& s, const shm_context& c, int root, const std::byte* all, std::byte* mine,
                 std::span<const std::size_t> offsets, std::span<const std::size_t> sizes);
/// Uniform blocks only.
void shm_alltoall(schedule& s, const shm_context& c, const std::byte* send, std::byte* recv,
                  std::size_t block);

}  // namespace gaea::coll::detail
