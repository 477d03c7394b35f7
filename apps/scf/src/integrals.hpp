#pragma once
/// \file
/// One-electron integrals (overlap, kinetic, nuclear attraction) and Schwarz bounds with
/// libint2. Small dense matrices, computed on every rank (they cost far less than one Fock build).

#include <Eigen/Dense>

#include "basis.hpp"
#include "molecule.hpp"

namespace scf {

using matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Calls libint2::initialize() once per process and finalize() at exit. Thread-safe.
void ensure_libint();

/// S, T and V over the basis (nbf x nbf). V uses the nuclei of `mol` as point charges.
matrix overlap(const basis_set& b);
matrix kinetic(const basis_set& b);
matrix nuclear_attraction(const basis_set& b, const molecule& mol);

/// Q(s1, s2) = sqrt(max |(s1 s2|s1 s2)|) per shell pair (nshell x nshell): the Schwarz bound
/// |(s1 s2|s3 s4)| <= Q(s1, s2) Q(s3, s4).
matrix schwarz_bounds(const basis_set& b);

}  // namespace scf
