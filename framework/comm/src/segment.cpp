#include "gaea/comm/segment.hpp"

#include <cstring>

#include "detail/access.hpp"
#include "detail/ucx.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/detail/bootstrap.hpp"

namespace gaea::comm {

segment::segment(context& ctx, std::size_t local_bytes, std::string name)
    : ctx_(&ctx),
      id_(detail::access::next_segment_id(ctx)),
      name_(std::move(name)),
      rank_(ctx.rank()) {
  // UCX cannot map zero bytes; a rank that owns nothing still gets a (tiny) mapping and a key.
  const std::size_t map_bytes = local_bytes == 0 ? 64 : local_bytes;
  ucp_mem_map_params_t mp{};
  mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                  UCP_MEM_MAP_PARAM_FIELD_FLAGS;
  mp.address = nullptr;
  mp.length = map_bytes;
  mp.flags = UCP_MEM_MAP_ALLOCATE;
  const ucs_status_t st = ucp_mem_map(detail::access::handle(ctx), &mp, &memh_);
  // Every rank must learn whether every other rank succeeded, or the survivors would hang.
  const int ok = st == UCS_OK ? 1 : 0;
  int all_ok = 0;
  const std::string what = "mapping the memory of " + name_ + " (MPI collectives)";
  const detail::mpi_wait wait = [&ctx, &what](MPI_Request& r) { ctx.wait_mpi(r, what); };
  MPI_Request req;
  MPI_Iallreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, ctx.mpi_comm(), &req);
  wait(req);
  if (!all_ok) {
    if (st == UCS_OK) ucp_mem_unmap(detail::access::handle(ctx), memh_);
    throw error("gaea::comm: allocating segment '" + name_ + "' (" + std::to_string(local_bytes) +
                " bytes on rank " + std::to_string(rank_) + ") failed" +
                (st == UCS_OK ? std::string(" on another rank")
                              : std::string(": ") + ucs_status_string(st)));
  }
  ucp_mem_attr_t attr{};
  attr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS | UCP_MEM_ATTR_FIELD_LENGTH;
  detail::check(ucp_mem_query(memh_, &attr), "ucp_mem_query");
  local_base_ = attr.address;
  std::memset(local_base_, 0, map_bytes);

  void* packed = nullptr;
  std::size_t packed_len = 0;
  detail::check(ucp_rkey_pack(detail::access::handle(ctx), memh_, &packed, &packed_len),
                "ucp_rkey_pack");
  std::vector<std::byte> mine(packed_len);
  std::memcpy(mine.data(), packed, packed_len);
  ucp_rkey_buffer_release(packed);

  rkeys_ = detail::allgatherv(ctx.mpi_comm(), mine, wait);
  sizes_ = detail::allgather_value<std::size_t>(ctx.mpi_comm(), local_bytes, wait);
  bases_ = detail::allgather_value<std::uint64_t>(
      ctx.mpi_comm(), reinterpret_cast<std::uint64_t>(local_base_), wait);
  detail::access::add_segment(ctx, this);
}

segment::~segment() {
  if (!ctx_) return;  // orphaned: the context is gone
  detail::access::retire_segment(*ctx_, this);
  if (memh_) ucp_mem_unmap(detail::access::handle(*ctx_), memh_);
}

}  // namespace gaea::comm
