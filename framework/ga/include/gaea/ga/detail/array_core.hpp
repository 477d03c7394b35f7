#pragma once
/// \file
/// Internal (not API): the type-erased implementation shared by every gaea::global_array<T>,
/// installed only because the template wraps it.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gaea/coll/group.hpp"
#include "gaea/comm/types.hpp"
#include "gaea/ga/detail/elements.hpp"
#include "gaea/ga/distribution.hpp"
#include "gaea/ga/patch.hpp"
#include "gaea/ga/protocol.hpp"
#include "gaea/ga/request.hpp"
#include "gaea/ga/stats.hpp"
#include "gaea/trace/recorder.hpp"

namespace gaea {
class runtime;
namespace comm {
class segment;
class worker;
}  // namespace comm
}  // namespace gaea

namespace gaea::ga::detail {

class tracker;
struct op_state;

/// Element types a global array may hold (GAEA_GA_FOR_EACH_ELEMENT's tags, in its order).
#define GAEA_GA_DETAIL_TAG(T, tag, name) tag,
enum class elem_type : std::uint8_t { GAEA_GA_FOR_EACH_ELEMENT(GAEA_GA_DETAIL_TAG) };
#undef GAEA_GA_DETAIL_TAG
#define GAEA_GA_DETAIL_NAME(T, tag, name) {elem_type::tag, name},
inline constexpr enum_name<elem_type> elem_type_names[] = {
    GAEA_GA_FOR_EACH_ELEMENT(GAEA_GA_DETAIL_NAME)};
#undef GAEA_GA_DETAIL_NAME
constexpr enum_names<elem_type> enum_names_of(elem_type) noexcept {
  return {"element type", elem_type_names};
}
/// "double", "float", "int64", "int32", "complex<double>", "complex<float>"
constexpr std::string_view to_string(elem_type t) noexcept {
  return gaea::to_string<elem_type>(t);
}

/// The tag of element type T.
template <class T>
constexpr elem_type type_of() = delete;
#define GAEA_GA_DETAIL_TYPE_OF(T, tag, name) \
  template <>                                \
  constexpr elem_type type_of<T>() {         \
    return elem_type::tag;                   \
  }
GAEA_GA_FOR_EACH_ELEMENT(GAEA_GA_DETAIL_TYPE_OF)
#undef GAEA_GA_DETAIL_TYPE_OF

/// Per-type kernels (the template instantiates them; the core stays type-erased).
struct type_ops {
  elem_type type;
  std::size_t size;
  /// dst[i] += alpha * src[i] for n elements (alpha points to one element).
  void (*acc)(void* dst, const void* src, std::size_t n, const void* alpha);
};

/// A buffer and its layout as passed by the user: `elems` elements, leading extents `ld`.
struct user_buffer {
  void* data;
  std::size_t elems;
  std::span<const index_t> ld;
};

class array_core {
 public:
  /// Collective over `g` (the array lives on its members only). Throws gaea::error for bad
  /// shapes or specs, when the runtime is not initialized, when this rank is not in `g`, or
  /// when a rank lacks memory for its part (all members throw together).
  array_core(std::string name, const index& dims, const layout_spec& spec, type_ops ops,
             const coll::group& g);
  /// Collective: sync, then release the memory.
  ~array_core();

  const std::string& name() const noexcept { return name_; }
  const distribution& dist() const noexcept { return dist_; }
  std::uint64_t id() const noexcept;
  std::size_t elem_size() const noexcept { return ops_.size; }
  elem_type type() const noexcept { return ops_.type; }
  const type_ops& ops() const noexcept { return ops_; }
  runtime& rt() const noexcept { return rt_; }
  int rt_rank() const noexcept { return rank_; }
  /// The process group the array lives on (coll::world() unless created on another).
  const coll::group& group() const noexcept { return group_; }
  /// True when the group holds every rank (its collectives are the runtime's).
  bool on_world() const noexcept { return on_world_; }
  /// Collective over the group: completes this thread's puts (runtime::barrier's flush), then
  /// a barrier of the group.
  void barrier();

  /// A fresh operation state for the calling thread.
  std::unique_ptr<op_state> start(op kind) const;
  /// One-sided operations (contracts in global_array), non-blocking.
  request get(const patch& p, user_buffer buf);
  request put(const patch& p, user_buffer buf);
  /// get/put waited for in place: their state lives on the stack, not in a request.
  void get_blocking(const patch& p, user_buffer buf);
  void put_blocking(const patch& p, user_buffer buf);
  /// The blocking get (op::get) or put (op::put) of one row of one tile whose owner this
  /// thread maps (rkey_ptr, same node): a copy, without the operation-state machinery.
  /// Returns false, having done nothing, when `p` is not such a row (the caller takes the
  /// general path, which also reports bad input).
  bool direct_row(op kind, const patch& p, const user_buffer& buf);
  request acc(const patch& p, user_buffer buf, const void* alpha);
  /// acc waited for in place (its state on the stack).
  void acc_blocking(const patch& p, user_buffer buf, const void* alpha);
  /// The same, attached to an existing operation state (several transfers, one completion).
  void get(const patch& p, user_buffer buf, op_state& st);
  void put(const patch& p, user_buffer buf, op_state& st);
  void acc(const patch& p, user_buffer buf, const void* alpha, op_state& st);
  void fence();
  void sync();
  /// Collective: fills every tile's ghost cells from their owners (corners included).
  ghost_request update_ghosts_async(bool periodic);
  /// Element lists, non-blocking: `o` is op::gather (into `out`), op::scatter (from `values`),
  /// op::scatter_acc or op::read_inc (out = old, element += value); `alpha` points to one element
  /// (scatter_acc and read_inc). `subs`, `values` and `alpha` are copied before the call returns;
  /// `out` is written when the request completes.
  [[nodiscard]] request element_list(op o, std::span<const index> subs, const std::byte* values,
                                     std::byte* out, const void* alpha);
  /// Serves an element list on this rank's storage (handler side and local elements).
  void serve_list(op o, const index_t* subs, std::size_t count, const std::byte* values,
                  std::byte* out, const void* alpha);

  /// This rank's storage (all its tiles, ghost cells included).
  void* local_data() const noexcept;
  /// This rank's tiles, row-major over the tile grid.
  const std::vector<tile>& local_tiles() const noexcept { return local_tiles_; }
  /// Applies an accumulate to this rank's storage (from a handler); `packed` holds `piece`
  /// row-major. Element-wise atomic with respect to other accumulates to this array (the
  /// striped locks of src/detail/acc_locks.hpp).
  void apply_acc(const patch& piece, const std::byte* packed, const void* alpha);
  /// Copies `piece` (row-major in `packed`) into / out of this rank's storage.
  void unpack_local(const patch& piece, const std::byte* packed);
  void pack_local(const patch& piece, std::byte* packed) const;

  /// Copies piece `q` of the user's patch (origin `lo`, buffer strides `bs`) to or from its
  /// packed row-major form.
  void pack_user(const patch& q, const index& lo, const index& bs, const std::byte* in,
                 std::byte* packed) const;
  void unpack_user(const patch& q, const index& lo, const index& bs, const std::byte* packed,
                   std::byte* out) const;
  /// Buffer strides (elements) for patch `p` in `buf`; validates the buffer size and `ld`.
  index buffer_strides(const patch& p, const user_buffer& buf, const char* op) const;
  /// Conflict tracking before a get from `target`: completes this thread's earlier writes to
  /// this array there, if any.
  void fence_for_get(comm::worker& w, tracker& tr, int target);
  tracker& my_tracker() const;
  const comm::segment& segment() const noexcept { return *seg_; }
  /// The strided cost model for `target` (measured on first use, then cached per runtime).
  strided_model model_for(int target);
  /// Offset of `rank`'s 64-bit lock word (source-driven accumulates) in the segment.
  std::uint64_t lock_offset(int rank) const;
  /// Offset of `rank`'s first striped accumulate lock word (after its storage) in the segment.
  std::uint64_t acc_locks_offset(int rank) const;

  /// One 2-D strided transfer (bytes) between an owner's storage and the user's buffer.
  struct transfer {
    std::uint64_t remote_offset;
    std::size_t remote_stride, local_offset, local_stride, row_bytes, rows;
  };
  /// Calls fn(transfer) for every 2-D strided transfer that one tile piece of `p` decomposes
  /// into.
  template <class Fn>
  void for_each_piece_transfer(const tile& t, const patch& piece, const patch& p,
                               const index& buffer_strides, Fn&& fn) const;

 private:
  // The trace arguments of an operation on `p` (bytes, owner of its first element).
  trace::region_args trace_args(const patch& p) const noexcept;
  // Packed protocol (packed.cpp): one message per piece (split to the transfer limit).
  bool use_packed(int target, const patch& piece);
  void get_packed(const tile& t, const patch& piece, const patch& p, const index& bs,
                  std::byte* out, op_state& st);
  /// Packs `piece` from the user's buffer and sends it to handler `h` (put or accumulate), one
  /// message per part of at most `limit` bytes; complete at the owner after a fence.
  void send_packed(comm::handler_id h, const tile& t, const patch& piece, const patch& p,
                   const index& bs, const std::byte* in, const void* alpha, std::size_t limit,
                   op_state& st);
  /// Parts of an accumulate: current_acc_chunk_bytes(), within the transfer limit.
  std::size_t acc_part_limit() const;
  // Source-driven accumulate of one piece (acc_source.cpp), complete at the owner on return.
  void acc_source_driven(const tile& t, const patch& piece, const patch& p, const index& bs,
                         const std::byte* in, const void* alpha, op_state& st);
  // Adds one tile piece straight into its owner's storage, seen at `base` in this process (the
  // owner's segment mapped with rkey_ptr, or our own), under the owner's striped locks; complete
  // on return.
  void acc_direct(std::byte* base, const tile& t, const patch& piece, const patch& p,
                  const index& bs, const std::byte* in, const void* alpha);
  void calibrate(int target, strided_model& m);

  std::string name_;
  coll::group group_;
  bool on_world_;
  distribution dist_;
  type_ops ops_;
  runtime& rt_;
  std::uint64_t rt_instance_;  // to tell whether rt_ is still alive in the destructor
  int rank_;
  std::vector<tile> local_tiles_;
  std::unique_ptr<comm::segment> seg_;
  // Per target, the runtime's calibrated model once known: strided transfers read it without
  // the cache's lock (the models live as long as the runtime, which outlives the array).
  std::unique_ptr<std::atomic<const strided_model*>[]> models_;
};

/// Collective over `g`: completes this thread's puts, then a barrier of `g` (the runtime's own
/// barrier when `on_world`: `g` holds every rank in rank order).
void group_barrier(runtime& rt, const coll::group& g, bool on_world);
/// True when `a` and `b` live on the same ranks, in the same order.
bool same_group(const array_core& a, const array_core& b);
/// gaea::error naming both arrays unless they live on the same ranks (in the same order).
void require_same_group(const array_core& a, const array_core& b);

/// Calls fn(a, b) with the first element offset of every row (last dimension) of `piece`, in
/// two row-major layouts with strides sa, sb and origins oa, ob.
template <class Fn>
void for_each_row(const patch& piece, const index& oa, const index& sa, const index& ob,
                  const index& sb, Fn&& fn) {
  const int n = piece.ndim();
  index c = piece.lo;
  while (true) {
    index_t a = 0, b = 0;
    for (int d = 0; d < n; ++d) {
      const auto i = static_cast<std::size_t>(d);
      a += (c[i] - oa[i]) * sa[i];
      b += (c[i] - ob[i]) * sb[i];
    }
    fn(a, b);
    int d = n - 2;
    for (; d >= 0; --d) {
      const auto i = static_cast<std::size_t>(d);
      if (++c[i] <= piece.hi[i]) break;
      c[i] = piece.lo[i];
    }
    if (d < 0) break;
  }
}

template <class Fn>
void array_core::for_each_piece_transfer(const tile& t, const patch& piece, const patch& p,
                                         const index& bs, Fn&& fn) const {
  const int n = p.ndim();
  const std::size_t es = ops_.size;
  const auto d2 = static_cast<std::size_t>(n >= 2 ? n - 2 : 0);
  const index os = dist_.storage_strides(t);
  // Origin of the tile's storage in global coordinates (ghosts shift it).
  index origin = t.box.lo;
  for (std::size_t d = 0; d < origin.size(); ++d)
    origin[d] -= dist_.ghosts()[d];
  const std::size_t row = static_cast<std::size_t>(piece.extent(n - 1)) * es;
  // One 2-D strided transfer per position of dimensions 0..n-3; its rows run along n-2.
  patch outer = piece;
  std::size_t rows = 1, rstride = row, lstride = row;
  if (n >= 2) {
    rows = static_cast<std::size_t>(piece.extent(n - 2));
    outer.hi[d2] = outer.lo[d2];
    rstride = static_cast<std::size_t>(os[d2]) * es;
    lstride = static_cast<std::size_t>(bs[d2]) * es;
  }
  for_each_row(outer, origin, os, p.lo, bs, [&](index_t ro, index_t lo) {
    fn(transfer{static_cast<std::uint64_t>(t.offset + ro) * es, rstride,
                static_cast<std::size_t>(lo) * es, lstride, row, rows});
  });
}

/// `piece` cut along its leading dimensions until each part holds at most `limit` bytes (a
/// part is never smaller than one element).
std::vector<patch> split_to_fit(const patch& piece, std::size_t elem_size, std::size_t limit);

}  // namespace gaea::ga::detail
