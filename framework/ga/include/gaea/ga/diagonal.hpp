#pragma once
/// \file
/// Collective operations on the diagonal, rows and columns of 2-D global arrays, and
/// symmetrization (Global Arrays' GA_Get_diag, GA_Set_diagonal, GA_Add_diagonal,
/// GA_Shift_diagonal, GA_Zero_diagonal, GA_Scale_rows, GA_Scale_cols, GA_Symmetrize).
///
/// Contract (as algorithms.hpp): collective; fence of this thread's writes and a barrier at the
/// start, a barrier at the end. Owner-computes over the matrix's tiles: each rank touches the
/// interior of its own tiles only (and, for get_diagonal, puts its diagonal run into the
/// vector). Any distributions, block-cyclic and ghosts included; ghost cells are not touched.
/// The diagonal of an m x n matrix has min(m, n) elements.
///
/// Errors (gaea::error, every rank alike, before any communication): a matrix that is not 2-D,
/// a vector that is not 1-D or of the wrong length (both named with their shapes), a matrix
/// that is not square for symmetrize.

#include "gaea/ga/global_array.hpp"

namespace gaea::ga {

/// v[i] = a[i, i] for i < min(m, n). v: 1-D of length min(m, n).
template <element T>
void get_diagonal(const global_array<T>& a, global_array<T>& v);

/// a[i, i] = v[i]. v: 1-D of length min(m, n).
template <element T>
void set_diagonal(global_array<T>& a, const global_array<T>& v);

/// a[i, i] += v[i]. v: 1-D of length min(m, n).
template <element T>
void add_diagonal(global_array<T>& a, const global_array<T>& v);

/// a[i, i] += c.
template <element T>
void shift_diagonal(global_array<T>& a, T c);

/// a[i, i] = 0.
template <element T>
void zero_diagonal(global_array<T>& a);

/// a[i, j] *= v[i]. v: 1-D of length m (rows).
template <element T>
void scale_rows(global_array<T>& a, const global_array<T>& v);

/// a[i, j] *= v[j]. v: 1-D of length n (columns).
template <element T>
void scale_cols(global_array<T>& a, const global_array<T>& v);

/// a = (a + a^T) / 2 for a square matrix (plain transpose: complex elements are not
/// conjugated; integers divide with truncation). Each rank holds a copy of the transposed
/// blocks of its tiles while it works (as much memory again as its part of a).
template <element T>
void symmetrize(global_array<T>& a);

}  // namespace gaea::ga
