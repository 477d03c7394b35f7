#pragma once
/// \file
/// Collective algorithms on global arrays: copy, scale, add, dot, norm, transpose and gemm.
///
/// Every call here is collective: all ranks call it, in the same order, from the thread that
/// created the runtime. Each one starts by completing this thread's outstanding puts and
/// accumulates to the arrays involved and a barrier, and ends with a barrier, so its inputs are
/// final when it starts and its results are complete everywhere when it returns.
///
/// Work is owner-computes: each rank updates the interior of its own tiles of the result and
/// reads what it needs of the inputs straight from its own storage when it holds that part,
/// otherwise with non-blocking gets issued one slab ahead (double-buffered). The arrays may
/// have different distributions (block, irregular, block-cyclic, with or without ghosts).
/// Ghost cells are neither read nor written: call update_ghosts() afterwards when needed.
///
/// Errors (gaea::error, thrown on every rank alike before any communication): shapes that do
/// not match (the message names both arrays and their shapes), arrays of the wrong rank for
/// transpose and gemm, and a result that aliases an input where that is not allowed.

#include <complex>
#include <cstdint>
#include <type_traits>

#include "gaea/ga/global_array.hpp"

namespace gaea::ga {

/// Element types gemm supports: the floating-point ones (double, float, complex<double>,
/// complex<float>), those with Eigen GEMM kernels worth having.
template <class T>
concept gemm_element = element<T> && !std::is_integral_v<T>;

/// How gemm uses an operand: as is, transposed, or conjugate-transposed (BLAS 'N', 'T', 'C').
/// For real types conj_trans is the same as trans.
enum class mat_op : char { none = 'N', trans = 'T', conj_trans = 'C' };

/// Which norm to compute.
///   - one: 1-D: sum |a_i|; 2-D: the matrix 1-norm, max over columns of sum_i |a_ij| (as Global
///     Arrays' GA_Norm1); 3-D and more: sum |a_i| over all elements.
///   - two: sqrt(sum |a_i|^2) over all elements — the vector 2-norm, the Frobenius norm of a
///     matrix, and the same element-wise formula for N-D arrays.
///   - inf: 1-D: max |a_i|; 2-D: the matrix infinity norm, max over rows of sum_j |a_ij|
///     (as Global Arrays' GA_Norm_infinity); 3-D and more: max |a_i| over all elements.
///   - sum_abs: sum |a_i| over all elements, whatever the shape (what GA 5.8's code computes for
///     GA_Norm1).
///   - max_abs: max |a_i| over all elements, whatever the shape (GA 5.8's GA_Norm_infinity).
enum class norm_kind : std::uint8_t { two, inf, one, sum_abs, max_abs };

/// Result type of dot: integers sum in 64 bits; floating types and complex stay themselves.
template <class T>
using dot_result = std::conditional_t<std::is_integral_v<T>, std::int64_t, T>;

/// b = a. Same shape; any distributions. Copying an array onto itself is a no-op.
/// Arrays on different groups (each caller holds both): collective over the smaller group, as
/// in Global Arrays: its members put their parts of `a` into `b` (or, when `b`'s group is the
/// smaller, get their parts of `b` from `a`), between two barriers of that group.
template <element T>
void copy(const global_array<T>& a, global_array<T>& b);

/// a = alpha * a (interiors).
template <element T>
void scale(global_array<T>& a, T alpha);

/// c = alpha * a + beta * b. Same shapes; any distributions. c may be a or b (then it must have
/// their distribution, which it does by being the same array).
template <element T>
void add(T alpha, const global_array<T>& a, T beta, const global_array<T>& b, global_array<T>& c);

/// sum_i conj(a_i) * b_i over all elements: for complex arrays `a` is conjugated first (as BLAS
/// zdotc), so dot(a, a) is real and equals norm(a)^2. Same shapes; any distributions. Partial sums
/// are reduced over ranks (floating point: the result may differ in the last bits between rank
/// counts). float sums in double, complex<float> in complex<double>; integers sum in 64 bits.
template <element T>
dot_result<T> dot(const global_array<T>& a, const global_array<T>& b);

/// The norm of `a` (see norm_kind), in double for every element type.
template <element T>
double norm(const global_array<T>& a, norm_kind kind = norm_kind::two);

/// b = a^T for 2-D arrays (plain transpose; complex elements are not conjugated).
/// b must have dims {a.dims[1], a.dims[0]} and must not be a.
template <element T>
void transpose(const global_array<T>& a, global_array<T>& b);

/// c = alpha * op(a) * op(b) + beta * c for 2-D arrays, op(a) m x k, op(b) k x n, c m x n.
/// Distributed: each owner of a tile of c fetches the row panel of op(a) and the column panel
/// of op(b) it needs, in blocks along k with non-blocking gets (the next block is in flight
/// while the current one is multiplied), and multiplies them with Eigen's GEMM on Eigen::Map
/// views of the buffers and of its tile. Parts of a or b this rank holds are used in place.
/// beta == 0 sets c without reading it (NaNs in c do not propagate). c must not be a or b.
template <gemm_element T>
void gemm(mat_op op_a, mat_op op_b, T alpha, const global_array<T>& a, const global_array<T>& b,
          T beta, global_array<T>& c);

/// c[pc] = alpha * op(a[pa]) * op(b[pb]) + beta * c[pc] on 2-D patches of 2-D arrays (Global
/// Arrays' GA_Matmul_patch), by the gemm machinery above restricted to the patches: op(a[pa]) is
/// m x k, op(b[pb]) k x n, pc m x n. c must not be a or b. Errors as gemm, plus invalid patches
/// (naming the array).
template <gemm_element T>
void matmul_patch(mat_op op_a, mat_op op_b, T alpha, const global_array<T>& a, const patch& pa,
                  const global_array<T>& b, const patch& pb, T beta, global_array<T>& c,
                  const patch& pc);

}  // namespace gaea::ga
