// gaea::comm::segment: collective allocation and mapping of remotely accessible memory,
// the exchange of remote keys, and release.

#include "gaea/comm/segment.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "detail/access.hpp"
#include "detail/ucx.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/detail/bootstrap.hpp"

namespace gaea::comm {

int segment::map(std::size_t local_bytes) {
  // UCX cannot map zero bytes; a rank that owns nothing still gets a (tiny) mapping and a key.
  const std::size_t map_bytes = local_bytes == 0 ? 64 : local_bytes;
  const std::size_t fail_at = ctx_->cfg().fail_mem_map;
  ucs_status_t st = UCS_ERR_NO_MEMORY;  // what a forced failure (GAEA_TEST_FAIL_MEM_MAP) says
  if (fail_at == 0 || local_bytes < fail_at) {
    ucp_mem_map_params_t mp{};
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                    UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    mp.address = nullptr;
    mp.length = map_bytes;
    mp.flags = UCP_MEM_MAP_ALLOCATE;
    st = ucp_mem_map(detail::access::handle(*ctx_), &mp, &memh_);
  }
  if (st == UCS_OK) {
    ucp_mem_attr_t attr{};
    attr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS | UCP_MEM_ATTR_FIELD_LENGTH;
    detail::check(ucp_mem_query(memh_, &attr), "ucp_mem_query");
    local_base_ = attr.address;
  } else {
    // Registration failed: plain memory, which peers reach through active messages served by
    // this rank's service worker (no key to pack) [PGAS-BGQ eq. 8].
    memh_ = nullptr;
    const std::size_t page = 4096, bytes = (map_bytes + page - 1) / page * page;
    unregistered_ = std::aligned_alloc(page, bytes);
    if (!unregistered_) return static_cast<int>(st);
    local_base_ = unregistered_;
  }
  std::memset(local_base_, 0, map_bytes);
  return static_cast<int>(UCS_OK);
}

std::vector<std::byte> segment::packed_key() const {
  if (!memh_) return {};  // unregistered: an empty key sends peers to the fall-back
  void* packed = nullptr;
  std::size_t packed_len = 0;
  detail::check(ucp_rkey_pack(detail::access::handle(*ctx_), memh_, &packed, &packed_len),
                "ucp_rkey_pack");
  std::vector<std::byte> mine(packed_len);
  std::memcpy(mine.data(), packed, packed_len);
  ucp_rkey_buffer_release(packed);
  return mine;
}

void segment::fail_allocation(std::size_t local_bytes, bool mapped_here, const char* why) {
  if (memh_) ucp_mem_unmap(detail::access::handle(*ctx_), memh_);
  memh_ = nullptr;
  std::free(unregistered_);
  unregistered_ = nullptr;
  throw error("gaea::comm: allocating segment '" + name_ + "' (" + std::to_string(local_bytes) +
              " bytes on rank " + std::to_string(rank_) + ") failed" +
              (mapped_here ? std::string(" on another rank") : std::string(": ") + why));
}

segment::segment(context& ctx, std::size_t local_bytes, std::string name)
    : ctx_(&ctx), id_(0), name_(std::move(name)), rank_(ctx.rank()) {
  const auto st = static_cast<ucs_status_t>(map(local_bytes));
  const bool ok = st == UCS_OK;
  // Every rank must learn whether every other rank succeeded, or the survivors would hang; the
  // same reduction agrees on the id (segments of groups advance only their members' counters).
  std::uint64_t mine[2] = {ok ? 0U : 1U, detail::access::next_segment_id(ctx)}, all[2] = {0, 0};
  const std::string what = "mapping the memory of " + name_ + " (MPI collectives)";
  const detail::mpi_wait wait = [&ctx, &what](MPI_Request& r) { ctx.wait_mpi(r, what); };
  MPI_Request req;
  MPI_Iallreduce(mine, all, 2, MPI_UINT64_T, MPI_MAX, ctx.mpi_comm(), &req);
  wait(req);
  if (all[0] != 0) fail_allocation(local_bytes, ok, ucs_status_string(st));
  id_ = all[1];
  detail::access::use_segment_id(ctx, id_);

  rkeys_ = detail::allgatherv(ctx.mpi_comm(), packed_key(), wait);
  sizes_ = detail::allgather_value<std::size_t>(ctx.mpi_comm(), local_bytes, wait);
  // Registered before the last collective: once any rank leaves it, every rank's service worker
  // finds the segment for the active-message fall-back.
  detail::access::add_segment(ctx, this);
  bases_ = detail::allgather_value<std::uint64_t>(
      ctx.mpi_comm(), reinterpret_cast<std::uint64_t>(local_base_), wait);
}

namespace {
// What one member tells the others: failure flag, id proposal, bytes, base, then its key.
struct member_header {
  std::uint64_t failed, id, bytes, base;
};
}  // namespace

segment::segment(context& ctx, std::size_t local_bytes, std::string name,
                 const segment_members& members)
    : ctx_(&ctx), id_(0), name_(std::move(name)), rank_(ctx.rank()) {
  const auto st = static_cast<ucs_status_t>(map(local_bytes));
  const bool ok = st == UCS_OK;
  const member_header h{ok ? 0U : 1U, detail::access::next_segment_id(ctx), local_bytes,
                        reinterpret_cast<std::uint64_t>(local_base_)};
  std::vector<std::byte> mine(sizeof h);
  std::memcpy(mine.data(), &h, sizeof h);
  if (ok) {
    const std::vector<std::byte> key = packed_key();
    mine.insert(mine.end(), key.begin(), key.end());
  }
  const std::vector<std::vector<std::byte>> all = members.allgather(mine);
  if (all.size() != members.ranks.size())
    throw error("gaea::comm: segment '" + name_ + "': " + std::to_string(all.size()) +
                " members answered, " + std::to_string(members.ranks.size()) + " expected");
  const auto n = static_cast<std::size_t>(ctx.size());
  sizes_.assign(n, 0);
  bases_.assign(n, 0);
  rkeys_.assign(n, {});
  bool failed = false;
  for (std::size_t i = 0; i < all.size(); ++i) {
    member_header m{};
    std::memcpy(&m, all[i].data(), sizeof m);
    failed = failed || m.failed != 0;
    id_ = std::max(id_, m.id);
    const auto r = static_cast<std::size_t>(members.ranks[i]);
    sizes_.at(r) = static_cast<std::size_t>(m.bytes);
    bases_.at(r) = m.base;
    rkeys_.at(r).assign(all[i].begin() + sizeof m, all[i].end());
  }
  if (failed) fail_allocation(local_bytes, ok, ucs_status_string(st));
  detail::access::use_segment_id(ctx, id_);
  detail::access::add_segment(ctx, this);
  // A member without a key is served through active messages, which may only come once every
  // member has registered the segment: one more (empty) exchange says so.
  if (std::any_of(members.ranks.begin(), members.ranks.end(),
                  [&](int r) { return rkeys_.at(static_cast<std::size_t>(r)).empty(); }))
    members.allgather({});
}

segment::~segment() {
  if (!ctx_) return;  // orphaned: the context is gone
  detail::access::retire_segment(*ctx_, this);
  if (memh_) ucp_mem_unmap(detail::access::handle(*ctx_), memh_);
  std::free(unregistered_);
}

}  // namespace gaea::comm
