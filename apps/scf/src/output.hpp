#pragma once
/// \file
/// The HDF5 results file of gaea-scf, written to a temporary name in the same directory and
/// renamed into place, so a failed run never leaves a partial file under the final name.

#include <string>

#include "basis.hpp"
#include "molecule.hpp"
#include "scf.hpp"

namespace gaea::scf {

/// Writes (rank 0 only) /energies (total, nuclear_repulsion, electronic), /orbital_energies,
/// /orbitals (nbf x norb, columns are MOs), /density (total density P, nbf x nbf), /atoms
/// (Z and positions in Bohr) and attributes (basis, shells, Bohr constant, iterations).
/// Throws gaea::Error naming the file if HDF5 fails (the temporary file is removed).
void write_results(const std::string& path, const scf_result& r, const molecule& mol,
                   const basis_set& b, bohr_constant constant);

}  // namespace gaea::scf
