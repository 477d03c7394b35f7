#pragma once
/// \file
/// gaea::global_array<T> — a distributed N-D array with one-sided get, put and accumulate.

#include <memory>
#include <span>
#include <string>
#include <type_traits>

#include "gaea/ga/array_core.hpp"
#include "gaea/ga/distribution.hpp"
#include "gaea/ga/patch.hpp"
#include "gaea/ga/stats.hpp"

namespace gaea::ga {

namespace detail {
template <class T>
constexpr elem_type type_of() {
  if constexpr (std::is_same_v<T, double>)
    return elem_type::f64;
  else if constexpr (std::is_same_v<T, float>)
    return elem_type::f32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return elem_type::i64;
  else
    return elem_type::i32;
}
template <class T>
void acc_kernel_for(void* dst, const void* src, std::size_t n, const void* alpha);
}  // namespace detail

/// Element types with a distributed implementation.
template <class T>
concept element = std::is_same_v<T, double> || std::is_same_v<T, float> ||
    std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::int32_t>;

/// A distributed array of `T`, row-major, with inclusive patch bounds (as in Global Arrays).
///
/// Collective calls (every rank, same order): the constructor, the destructor, sync(), zero(),
/// fill(). One-sided calls (any rank, any time): get(), put(), acc(), fence(), access().
///
/// Completion semantics of the blocking one-sided calls:
///   - get: returns when the data is in `buf`; it first waits for this thread's earlier puts/accs
///     to *this array on the same owners* (conflict tracking), nothing else.
///   - put, acc: return when `buf` may be reused; they are complete at the owners after fence() or
///     sync() (or a later get of the same array from the same owner).
///   - acc is applied by the owner (its progress thread), atomically with respect to other
///     accumulates to the same elements; accumulates are not ordered among themselves.
/// Buffers: `buf` holds the patch row-major; `ld[k]` is the extent of buffer dimension k+1
/// (default: the patch extent), so a patch can be read into part of a larger local array.
/// Errors: bad patches, buffer sizes or leading extents throw gaea::Error naming the array.
/// Thread safety: one-sided calls may come from several threads; fence() covers the calling
/// thread's operations only.
template <element T>
class global_array {
 public:
  /// Collective. `dims`: extents (1 to 7 dimensions, each > 0). `chunk`: optional minimum block
  /// extent per dimension (GA's chunk hint).
  global_array(std::string name, const index& dims, const index& chunk = {})
      : core_(std::make_unique<detail::array_core>(std::move(name), dims, chunk,
                                                   detail::type_of<T>(), sizeof(T),
                                                   &detail::acc_kernel_for<T>)) {}
  global_array(global_array&&) noexcept = default;
  global_array& operator=(global_array&&) noexcept = default;

  const std::string& name() const noexcept { return core_->name(); }
  int ndim() const noexcept { return core_->dist().ndim(); }
  const index& dims() const noexcept { return core_->dist().dims(); }
  const ga::distribution& layout() const noexcept { return core_->dist(); }
  /// The block `rank` owns (empty patch when it owns nothing).
  patch distribution(int rank) const { return core_->dist().block(rank); }
  /// Owners of `p` and their pieces. Throws gaea::Error for an invalid patch.
  std::vector<owned_patch> locate(const patch& p) const {
    core_->dist().validate(p, "locate");
    return core_->dist().locate(p);
  }

  void get(const patch& p, std::span<T> buf, std::span<const index_t> ld = {}) {
    core_->get(p, buf.data(), buf.size(), ld);
  }
  void put(const patch& p, std::span<const T> buf, std::span<const index_t> ld = {}) {
    core_->put(p, buf.data(), buf.size(), ld);
  }
  /// array[p] += alpha * buf.
  void acc(const patch& p, std::span<const T> buf, T alpha = T(1),
           std::span<const index_t> ld = {}) {
    core_->acc(p, buf.data(), buf.size(), ld, &alpha);
  }

  /// This rank's block (row-major, extents of distribution(rank)); empty span if it owns nothing.
  /// Zero-copy: reads and writes go straight to the memory peers access.
  std::span<T> access() noexcept {
    return {static_cast<T*>(core_->local_data()),
            static_cast<std::size_t>(core_->local_block().elements())};
  }
  patch local_block() const noexcept { return core_->local_block(); }

  /// Completes this thread's outstanding puts and accumulates to this array.
  void fence() { core_->fence(); }
  /// Collective: fence on every rank, then a barrier.
  void sync() { core_->sync(); }
  /// Collective: every element = value.
  void fill(T value) {
    core_->sync();
    for (T& x : access())
      x = value;
    core_->sync();
  }
  void zero() { fill(T(0)); }

 private:
  std::unique_ptr<detail::array_core> core_;
};

}  // namespace gaea::ga

namespace gaea {
using ga::global_array;
}
