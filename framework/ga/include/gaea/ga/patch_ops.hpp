#pragma once
/// \file
/// Collective operations on patches of global arrays: copy (optionally transposed), fill, zero,
/// scale, add and dot, as Global Arrays' NGA_*_patch calls.
///
/// Contract (as algorithms.hpp): every call is collective (all ranks, same order, from the
/// thread that created the runtime); it first completes this thread's writes to the arrays
/// involved and holds a barrier, and ends with a barrier. Owner-computes: each rank writes its
/// own tiles' part of the result patch and reads the matching operand parts in place or with
/// non-blocking gets one slab ahead. Any distributions (block, irregular, block-cyclic, ghosts),
/// in any mix. Ghost cells are neither read nor written.
///
/// Shapes: patches are inclusive lo..hi boxes in their own arrays' index spaces. Two patches
/// match when their extents agree after dropping the dimensions of extent 1 (a row of a matrix
/// matches a 1-D patch of the same length). A transposed operand (2-D patches) is read with its
/// two dimensions swapped.
///
/// Errors (gaea::error, on every rank alike, before any communication): an invalid patch (the
/// message names the array), patch shapes that do not match (both named with their shapes; for
/// copy_patch, element counts that differ), a
/// transposed patch with more than two dimensions of extent > 1, and a result patch that
/// overlaps an input patch of the same array other than exactly (same region, not transposed).

#include "gaea/ga/algorithms.hpp"
#include "gaea/ga/global_array.hpp"

namespace gaea::ga {

/// The patch covering all of `a`.
template <element T>
patch whole_patch(const global_array<T>& a) {
  patch p{index(a.dims().size(), 0), a.dims()};
  for (auto& h : p.hi)
    --h;
  return p;
}

/// b[pb] = a[pa], or a[pa]^T when `transpose` (2-D patches; no conjugation). Copying a patch
/// onto itself is a no-op; other overlaps within one array are errors. Untransposed patches of
/// different shapes but equal element counts are copied element by element in row-major order
/// (a reshape, as Global Arrays allows); each owner of b fetches its runs' pieces of a.
/// Arrays on different process groups (GA's copy between groups): collective over the smaller
/// group only, patches of equal extents, not transposed (gaea::error otherwise).
template <element T>
void copy_patch(const global_array<T>& a, const patch& pa, global_array<T>& b, const patch& pb,
                bool transpose = false);

/// a[p] = value (interior elements only).
template <element T>
void fill_patch(global_array<T>& a, const patch& p, T value);

/// a[p] = 0.
template <element T>
void zero_patch(global_array<T>& a, const patch& p) {
  fill_patch(a, p, T(0));
}

/// a[p] = alpha * a[p].
template <element T>
void scale_patch(global_array<T>& a, const patch& p, T alpha);

/// c[pc] = alpha * a[pa] + beta * b[pb]. The result may be an input patch (same array, same
/// region).
template <element T>
void add_patch(T alpha, const global_array<T>& a, const patch& pa, T beta, const global_array<T>& b,
               const patch& pb, global_array<T>& c, const patch& pc);

/// sum_i x_i * y_i over the patches, with x = a[pa] (or its transpose when `transpose_a`) and
/// y likewise; complex x is conjugated when `conjugate` (BLAS zdotc, as ga::dot) and not
/// otherwise (Global Arrays' NGA_Zdot_patch). Integers sum in 64 bits, float in double.
template <element T>
dot_result<T> dot_patch(const global_array<T>& a, const patch& pa, bool transpose_a,
                        const global_array<T>& b, const patch& pb, bool transpose_b,
                        bool conjugate = true);

}  // namespace gaea::ga
