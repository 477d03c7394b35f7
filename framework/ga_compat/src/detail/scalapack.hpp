#pragma once
// The GA C API's dense linear algebra on ScaLAPACK (src/linalg_scalapack.cpp, built when
// ScaLAPACK was found: GAEA_GA_SCALAPACK). Collective over the runtime's ranks; the arrays are
// whole 2-D double matrices already checked by the caller (src/linalg.cpp). Errors are
// gaea::error, alike on every rank.

#include <span>

#include "gaea/ga/global_array.hpp"

namespace gaea::ga_compat::detail::scalapack {

/// A V = V diag(values) for a symmetric A; eigenvalues ascending into `values` on every rank.
void eigen(ga::global_array<double>& a, ga::global_array<double>& v, std::span<double> values);

/// B := op(A)^-1 B with LU and partial pivoting (op: transpose when `transposed`). Throws when A
/// is singular.
void lu_solve(bool transposed, ga::global_array<double>& a, ga::global_array<double>& b);

/// B := A^-1 B with a Cholesky factorisation of the symmetric A. 0 on success; otherwise the
/// order of the leading minor that is not positive definite (B unchanged).
int llt_solve(ga::global_array<double>& a, ga::global_array<double>& b);

/// A := A^-1 for a symmetric positive definite A. 0 on success; > 0: the order of the leading
/// minor that is not positive definite; < 0: -i where the factor's (i,i) element is zero. A is
/// unchanged unless 0 is returned.
int spd_invert(ga::global_array<double>& a);

}  // namespace gaea::ga_compat::detail::scalapack
