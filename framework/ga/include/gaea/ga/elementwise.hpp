#pragma once
/// \file
/// Collective element-wise operations on global arrays and their patches: absolute value, add a
/// constant, reciprocal, and c = a op b for op = multiply, divide, maximum, minimum (Global
/// Arrays' GA_Abs_value, GA_Add_constant, GA_Recip, GA_Elem_*), and the position of the largest
/// or smallest element (NGA_Select_elem).
///
/// Contract and shapes as patch_ops.hpp: collective, owner-computes, fence and barrier at the
/// start, barrier at the end; patches match after dropping extent-1 dimensions; any
/// distributions; ghost cells untouched; bad patches and mismatched shapes throw gaea::error on
/// every rank before any communication.
///
/// Complex elements: abs gives (|z|, 0); maximum/minimum and select_elem compare magnitudes |z|
/// (ties keep a, and the lowest index). Integers: recip gives 1 / x in integer arithmetic.
/// Division by zero: floating point follows IEEE (inf or nan); an integer zero divisor (or an
/// integer recip of 0) throws gaea::error on every rank naming the array and the element, after
/// the other elements are done.

#include "gaea/ga/patch_ops.hpp"

namespace gaea::ga {

/// a[p] = |a[p]| element-wise.
template <element T>
void abs_value(global_array<T>& a, const patch& p);
/// a = |a| over the whole array (collective, as the patch form).
template <element T>
void abs_value(global_array<T>& a) {
  abs_value(a, whole_patch(a));
}

/// a[p] += alpha element-wise.
template <element T>
void add_constant(global_array<T>& a, const patch& p, T alpha);
/// a += alpha over the whole array (collective, as the patch form).
template <element T>
void add_constant(global_array<T>& a, T alpha) {
  add_constant(a, whole_patch(a), alpha);
}

/// a[p] = 1 / a[p] element-wise.
template <element T>
void recip(global_array<T>& a, const patch& p);
/// a = 1 / a over the whole array (collective, as the patch form).
template <element T>
void recip(global_array<T>& a) {
  recip(a, whole_patch(a));
}

/// Element-wise binary operations.
enum class elem_op : std::uint8_t { multiply, divide, maximum, minimum };

/// c[pc] = a[pa] op b[pb] element-wise. The result may be an input patch (same array, same
/// region).
template <element T>
void elementwise(elem_op op, const global_array<T>& a, const patch& pa, const global_array<T>& b,
                 const patch& pb, global_array<T>& c, const patch& pc);
/// c = a op b over whole arrays of one shape.
template <element T>
void elementwise(elem_op op, const global_array<T>& a, const global_array<T>& b,
                 global_array<T>& c) {
  elementwise(op, a, whole_patch(a), b, whole_patch(b), c, whole_patch(c));
}

/// m[pm] = the median of a[pa], b[pb] and c[pc] element-wise (the middle one of the three
/// values; Global Arrays' GA_Median). Real element types only: complex arrays throw gaea::error.
/// The result may be an input patch (same array, same region).
template <element T>
void median(const global_array<T>& a, const patch& pa, const global_array<T>& b, const patch& pb,
            const global_array<T>& c, const patch& pc, global_array<T>& m, const patch& pm);
/// m = median(a, b, c) over whole arrays of one shape.
template <element T>
void median(const global_array<T>& a, const global_array<T>& b, const global_array<T>& c,
            global_array<T>& m) {
  median(a, whole_patch(a), b, whole_patch(b), c, whole_patch(c), m, whole_patch(m));
}

/// Which element select_elem looks for.
enum class select_kind : std::uint8_t { max, min };

/// An element and its global index.
template <element T>
struct selected_element {
  /// The element's value.
  T value;
  /// Its global index (one entry per dimension of the array).
  index where;
};

/// The largest (or smallest) element of a[p] and its index; ties go to the lowest row-major
/// index. Complex elements compare by magnitude. NaNs are skipped unless all are NaN.
/// The same result on every rank.
template <element T>
selected_element<T> select_elem(const global_array<T>& a, select_kind kind, const patch& p);
/// select_elem over the whole array (collective, as the patch form).
template <element T>
selected_element<T> select_elem(const global_array<T>& a, select_kind kind) {
  return select_elem(a, kind, whole_patch(a));
}

}  // namespace gaea::ga
