#pragma once
// Owner-computes machinery of the collective algorithms: strided views of local storage or of
// fetched buffers, slabs of this rank's tiles, and a pipeline that fetches the operands of the
// next slab (non-blocking gets) while the current one is processed.

#include <array>
#include <complex>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "gaea/base/error.hpp"
#include "gaea/ga/detail/elements.hpp"
#include "gaea/ga/global_array.hpp"

namespace gaea::ga::detail {

/// Accumulator of the dot products (dot, dot_patch): 64-bit for integers, double for float and
/// double, complex<double> for both complex types.
template <class T>
using dot_acc =
    std::conditional_t<std::is_integral_v<T>, std::int64_t,
                       std::conditional_t<is_complex_v<T>, std::complex<double>, double>>;

/// A row-major strided view of a patch: the element at relative position r is p[sum r[d] s[d]].
template <class T>
struct view {
  T* p = nullptr;
  index s;
};

/// Row-major contiguous strides of a box with extents of `q`.
inline index contiguous_strides(const patch& q) {
  const auto n = static_cast<std::size_t>(q.ndim());
  index s(n, 1);
  for (std::size_t d = n - 1; d-- > 0;)
    s[d] = s[d + 1] * q.extent(static_cast<int>(d) + 1);
  return s;
}

/// View of `q` in this rank's storage of `a` when one of its local tiles holds all of `q`;
/// otherwise p == nullptr.
template <class T>
view<T> local_view(const global_array<T>& a, const patch& q) {
  const distribution& d = a.layout();
  const tile t = d.tile_of(q.lo);
  if (t.rank != a.core().rt_rank() || t.box.intersect(q) != q) return {};
  return {static_cast<T*>(a.core().local_data()) + d.storage_offset(t, q.lo), d.storage_strides(t)};
}

/// Calls fn(offsets, len) for every row (run along the last dimension) of a box with the
/// extents of `box`; offsets[k] is the row's first element in views[k] (relative to p).
template <std::size_t K, class Fn>
void for_each_row(const patch& box, const std::array<const index*, K>& strides, Fn&& fn) {
  const int n = box.ndim();
  const index_t len = box.extent(n - 1);
  index r(static_cast<std::size_t>(n), 0);
  while (true) {
    std::array<index_t, K> off{};
    for (std::size_t k = 0; k < K; ++k)
      for (std::size_t d = 0; d + 1 < static_cast<std::size_t>(n); ++d)
        off[k] += r[d] * (*strides[k])[d];
    fn(off, len);
    int d = n - 2;
    for (; d >= 0; --d) {
      const auto i = static_cast<std::size_t>(d);
      if (++r[i] < box.extent(d)) break;
      r[i] = 0;
    }
    if (d < 0) break;
  }
}

/// A piece of one of this rank's tiles (consecutive indices of dimension 0, all of the others).
struct slab {
  tile t;
  patch box;
};

/// This rank's tiles of `d` cut into slabs of at most ~max_elems elements (at least one index
/// of dimension 0 each).
std::vector<slab> local_slabs(const distribution& d, int rank, index_t max_elems);

/// "'A' is [10, 20]"
template <class T>
std::string shape_of(const global_array<T>& a) {
  return "'" + a.name() + "' is " + format_index(a.dims());
}

/// Throws gaea::error naming both arrays unless their shapes are equal.
template <class T>
void require_same_shape(const char* what, const global_array<T>& a, const global_array<T>& b) {
  if (!(a.dims() == b.dims()))
    throw error(std::string("ga::") + what + ": shapes differ: " + shape_of(a) + ", " +
                shape_of(b));
}

/// Collective entry of an algorithm: completes this thread's writes to every array, then a
/// barrier (all inputs are final everywhere).
template <class A0, class... A>
void begin_collective(const A0& first, const A&... rest) {
  (require_same_group(first.core(), rest.core()), ...);
  first.core().fence();
  (rest.core().fence(), ...);
  first.core().barrier();
}

/// Calls fn(slab, dst, src) for every slab of `slabs` (pieces of this rank's tiles of `drv`), in
/// order. dst views the
/// slab in drv's storage; src[k] views operand k's patch map(k, slab.box) — in place when a
/// local tile holds all of it, otherwise in a buffer filled by a non-blocking get that was
/// issued while the previous slab was processed (two buffers per operand).
template <class T, class Map, class Fn>
void run_slabs(const global_array<T>& drv, const std::vector<slab>& slabs,
               std::span<const global_array<T>* const> ops, Map&& map, Fn&& fn) {
  const std::size_t nops = ops.size();
  struct stage {
    std::vector<view<const T>> src;
    std::vector<request> pending;
  };
  std::array<stage, 2> stages;
  std::vector<std::array<std::vector<T>, 2>> buffers(nops);
  auto issue = [&](std::size_t i) {
    stage& st = stages[i % 2];
    st.src.assign(nops, {});
    st.pending.clear();
    for (std::size_t k = 0; k < nops; ++k) {
      const patch q = map(k, slabs[i].box);
      view<T> v = local_view(*ops[k], q);
      if (v.p) {
        st.src[k] = {v.p, v.s};
        continue;
      }
      std::vector<T>& buf = buffers[k][i % 2];
      buf.resize(static_cast<std::size_t>(q.elements()));
      st.pending.push_back(ops[k]->core().get(q, user_buffer{buf.data(), buf.size(), {}}));
      st.src[k] = {buf.data(), contiguous_strides(q)};
    }
  };
  auto* base = static_cast<T*>(drv.core().local_data());
  const distribution& dd = drv.layout();
  if (!slabs.empty()) issue(0);
  for (std::size_t i = 0; i < slabs.size(); ++i) {
    if (i + 1 < slabs.size()) issue(i + 1);
    stage& st = stages[i % 2];
    wait_all(st.pending);
    const slab& s = slabs[i];
    fn(s.box, view<T>{base + dd.storage_offset(s.t, s.box.lo), dd.storage_strides(s.t)},
       std::span<const view<const T>>(st.src));
  }
}

/// run_slabs over all of this rank's tiles of `drv`, cut into slabs of at most ~max_elems.
template <class T, class Map, class Fn>
void for_each_slab(const global_array<T>& drv, std::span<const global_array<T>* const> ops,
                   Map&& map, Fn&& fn, index_t max_elems = index_t{1} << 17) {
  run_slabs(drv, local_slabs(drv.layout(), drv.core().rt_rank(), max_elems), ops, map, fn);
}

}  // namespace gaea::ga::detail
