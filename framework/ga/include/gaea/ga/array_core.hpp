#pragma once
/// \file
/// Type-erased implementation shared by every gaea::global_array<T>. Users do not need this
/// header directly; it is public only because the template wraps it.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "gaea/ga/distribution.hpp"
#include "gaea/ga/patch.hpp"

namespace gaea {
class runtime;
namespace comm {
class segment;
class worker;
}  // namespace comm
}  // namespace gaea

namespace gaea::ga::detail {

class tracker;

/// Element types a global array may hold.
enum class elem_type : std::uint8_t { f64, f32, i64, i32 };

/// dst[i] += alpha * src[i] for `n` elements of the array's type (alpha points to one element).
using acc_kernel = void (*)(void* dst, const void* src, std::size_t n, const void* alpha);

class array_core {
 public:
  /// Collective. Throws gaea::Error for bad shapes or when the runtime is not initialized.
  array_core(std::string name, const index& dims, const index& chunk, elem_type type,
             std::size_t elem_size, acc_kernel kernel);
  /// Collective: sync, then release the memory.
  ~array_core();

  const std::string& name() const noexcept { return name_; }
  const distribution& dist() const noexcept { return dist_; }
  std::uint64_t id() const noexcept;
  std::size_t elem_size() const noexcept { return elem_size_; }

  /// Blocking operations (see global_array for the contracts). `ld` = leading extents of buf.
  void get(const patch& p, void* buf, std::size_t buf_elems, std::span<const index_t> ld);
  void put(const patch& p, const void* buf, std::size_t buf_elems, std::span<const index_t> ld);
  void acc(const patch& p, const void* buf, std::size_t buf_elems, std::span<const index_t> ld,
           const void* alpha);
  void fence();
  void sync();
  void* local_data() const noexcept;
  const patch& local_block() const noexcept { return local_block_; }
  /// Apply an accumulate to the local block (from a handler or a local origin).
  void apply_acc(const patch& piece, const std::byte* packed, const void* alpha);

 private:
  /// Buffer strides (elements) for patch `p` and leading extents `ld`; validates the buffer size.
  index buffer_strides(const patch& p, std::size_t buf_elems, std::span<const index_t> ld,
                       const char* op) const;
  /// What every one-sided operation starts with: the validated patch's buffer strides, the
  /// calling thread's worker and its conflict tracker.
  struct op_state {
    index buffer_strides;
    comm::worker& w;
    tracker& tr;
  };
  op_state begin_op(const patch& p, std::size_t buf_elems, std::span<const index_t> ld,
                    const char* op) const;
  /// One 2-D strided transfer (bytes) between an owner's block and the user's buffer.
  struct transfer {
    std::uint64_t remote_offset;
    std::size_t remote_stride, local_offset, local_stride, row_bytes, rows;
  };
  /// Calls fn(owner, transfer) for every strided transfer a patch decomposes into (per owner,
  /// one per position of dimensions 0..n-3), owners in rank order.
  template <class Fn>
  void for_each_transfer(const patch& p, const index& buffer_strides, Fn&& fn) const;
  /// Conflict tracking before a get from `target`: completes this thread's earlier writes to
  /// this array there, if any.
  void fence_for_get(comm::worker& w, tracker& tr, int target);

  std::string name_;
  distribution dist_;
  elem_type type_;
  std::size_t elem_size_;
  acc_kernel kernel_;
  runtime& rt_;
  patch local_block_;
  std::unique_ptr<comm::segment> seg_;
  std::mutex acc_mutex_;  // accumulates into the local block are atomic w.r.t. each other
};

}  // namespace gaea::ga::detail
