#pragma once
// Owner-computes over a patch of a result array, with operand patches of the same shape in
// other arrays (or the same one). Shapes are compared after dropping extent-1 dimensions, so a
// row of a matrix matches a 1-D patch; a transposed operand is read with its (at most two)
// remaining dimensions reversed. Each rank walks its tiles' pieces of the result patch in slabs
// and reads each operand's matching piece in place or by a get issued one slab ahead
// (run_slabs); the kernel sees runs along the last remaining dimension.

#include <array>
#include <string>
#include <vector>

#include "detail/slabs.hpp"
#include "gaea/base/error.hpp"

namespace gaea::ga::detail {

/// `array[region]`, read transposed (2-D) when `transposed`.
template <class T>
struct operand {
  const global_array<T>* array;
  patch region;
  bool transposed = false;
};

/// Dimensions of `p` with extent > 1, in order; the last dimension when there are none.
inline index live_dims(const patch& p) {
  index out;
  for (int d = 0; d < p.ndim(); ++d)
    if (p.extent(d) > 1) out.push_back(d);
  if (out.empty()) out.push_back(p.ndim() - 1);
  return out;
}

/// The shape an operand presents: extents of its live dimensions, reversed when transposed.
template <class T>
index shape_of(const operand<T>& x) {
  const index live = live_dims(x.region);
  index out;
  for (std::size_t i = 0; i < live.size(); ++i)
    out.push_back(x.region.extent(static_cast<int>(live[x.transposed ? live.size() - 1 - i : i])));
  return out;
}

/// "'A'[0:3, 2:4]" (with "^T" when transposed)
template <class T>
std::string describe(const operand<T>& x) {
  return "'" + x.array->name() + "'" + x.region.str() + (x.transposed ? "^T" : "");
}

/// Validates the patch (bounds, rank) and the transposition (at most 2 live dimensions);
/// throws gaea::error naming the array and the operation.
template <class T>
void check_operand(const char* what, const operand<T>& x) {
  x.array->layout().validate(x.region, std::string("ga::") + what);
  if (x.transposed && live_dims(x.region).size() > 2)
    throw error(std::string("ga::") + what + ": " + describe(x) +
                " cannot be transposed: it has more than 2 dimensions of extent > 1");
}

/// Throws unless x and y present the same shape.
template <class T>
void require_same_shape(const char* what, const operand<T>& x, const operand<T>& y) {
  if (!(shape_of(x) == shape_of(y)))
    throw error(std::string("ga::") + what + ": patch shapes differ: " + describe(x) + " is " +
                format_index(shape_of(x)) + ", " + describe(y) + " is " +
                format_index(shape_of(y)));
}

/// Throws when the result overlaps an input in the same array other than element for element
/// (the same region, same orientation), which owner-computes could not order.
template <class T>
void require_no_overlap(const char* what, const operand<T>& in, const operand<T>& out) {
  if (&in.array->core() != &out.array->core()) return;
  if (in.region == out.region && !in.transposed && !out.transposed) return;
  if (!in.region.intersect(out.region).empty())
    throw error(std::string("ga::") + what + ": the result " + describe(out) +
                " overlaps the input " + describe(in) + " in the same array");
}

/// This rank's pieces of `region` of `drv`, cut along its first live dimension into slabs of
/// about max_elems elements.
std::vector<slab> patch_slabs(const distribution& d, int rank, const patch& region,
                              index_t max_elems = index_t{1} << 17);

/// One run of elements along the last live dimension: p[k] + i * step[k], i < n, for the result
/// (k = 0) and each operand (k = 1..). `at` is the result's global index of the first element.
template <std::size_t K, class T>
struct run {
  std::array<T*, K> p;
  std::array<index_t, K> step;
  index_t n;
  index at;
};

/// Calls fn(run<1 + sizeof ops, T>) for every run of this rank's part of `out`; the result is
/// p[0] (this rank's storage), operands p[1..] (read only; local storage or fetched buffers).
/// Operands must present out's shape (checked by the caller). Not collective by itself.
template <class T, std::size_t N, class Fn>
void apply_patch(const operand<T>& out, const std::array<operand<T>, N>& ops, Fn&& fn) {
  constexpr std::size_t K = N + 1;
  // Copies with one spare slot, so that N == 0 indexes no zero-length array.
  std::array<operand<T>, N + 1> opv{};
  for (std::size_t k = 0; k < N; ++k)
    opv[k] = ops[k];
  const index live = live_dims(out.region);
  const std::size_t r = live.size();
  std::array<index, N + 1> op_live;  // one spare: no zero-length array when N == 0
  std::array<const global_array<T>*, N + 1> arrays{};
  for (std::size_t k = 0; k < N; ++k) {
    op_live[k] = live_dims(opv[k].region);
    arrays[k] = opv[k].array;
  }
  // Operand k's dimension for the result's live dimension i.
  auto op_dim = [&](std::size_t k, std::size_t i) {
    return static_cast<std::size_t>(op_live[k][opv[k].transposed ? r - 1 - i : i]);
  };
  auto map = [&](std::size_t k, const patch& box) {
    patch q{opv[k].region.lo, opv[k].region.lo};
    for (std::size_t i = 0; i < r; ++i) {
      const auto dc = static_cast<std::size_t>(live[i]);
      const std::size_t dk = op_dim(k, i);
      q.lo[dk] = opv[k].region.lo[dk] + (box.lo[dc] - out.region.lo[dc]);
      q.hi[dk] = q.lo[dk] + box.extent(static_cast<int>(dc)) - 1;
    }
    return q;
  };
  const global_array<T>& drv = *out.array;
  run_slabs(drv, patch_slabs(drv.layout(), drv.core().rt_rank(), out.region),
            std::span<const global_array<T>* const>(arrays.data(), N), map,
            [&](const patch& box, view<T> dst, std::span<const view<const T>> src) {
              // Live strides of every view, in the result's live order.
              std::array<index, K> s;
              std::array<T*, K> base{};
              base[0] = dst.p;
              for (std::size_t i = 0; i < r; ++i)
                s[0].push_back(dst.s[static_cast<std::size_t>(live[i])]);
              for (std::size_t k = 0; k < N; ++k) {
                base[k + 1] = const_cast<T*>(src[k].p);
                for (std::size_t i = 0; i < r; ++i)
                  s[k + 1].push_back(src[k].s[op_dim(k, i)]);
              }
              index ext;
              for (std::size_t i = 0; i < r; ++i)
                ext.push_back(box.extent(static_cast<int>(live[i])));
              run<K, T> ru{};
              for (std::size_t k = 0; k < K; ++k)
                ru.step[k] = s[k][r - 1];
              ru.n = ext[r - 1];
              index pos(r, 0);
              while (true) {
                for (std::size_t k = 0; k < K; ++k) {
                  index_t o = 0;
                  for (std::size_t i = 0; i + 1 < r; ++i)
                    o += pos[i] * s[k][i];
                  ru.p[k] = base[k] + o;
                }
                ru.at = box.lo;
                for (std::size_t i = 0; i + 1 < r; ++i)
                  ru.at[static_cast<std::size_t>(live[i])] += pos[i];
                fn(ru);
                std::size_t i = r - 1;
                for (; i-- > 0;) {
                  if (++pos[i] < ext[i]) break;
                  pos[i] = 0;
                }
                if (i == static_cast<std::size_t>(-1)) break;
              }
            });
}

/// Collective unary in-place update of a[p]: x = f(x) for every element, between the algorithms'
/// entry synchronisation and a closing barrier.
template <class T, class F>
void update_patch(const char* what, global_array<T>& a, const patch& p, F f) {
  const operand<T> out{&a, p};
  check_operand(what, out);
  begin_collective(a);
  apply_patch(out, std::array<operand<T>, 0>{}, [&](const run<1, T>& r) {
    T* x = r.p[0];
    for (index_t i = 0; i < r.n; ++i)
      x[i * r.step[0]] = f(x[i * r.step[0]]);
  });
  a.core().barrier();
}

}  // namespace gaea::ga::detail
