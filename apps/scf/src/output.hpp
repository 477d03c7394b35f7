#pragma once
/// \file
/// The HDF5 results file of gaea-scf, written through gaea::output_file: a temporary in the same
/// directory, renamed into place once HDF5 closed it and it is on the disk, so a failed run or a
/// full disk never leaves a partial file under the final name, nor replaces a previous one.

#include <string>

#include "basis.hpp"
#include "molecule.hpp"
#include "scf.hpp"

namespace scf {

/// Writes (rank 0 only) /energies (total, nuclear_repulsion, electronic), /orbital_energies,
/// /orbitals (nbf x norb, columns are MOs), /density (total density P, nbf x nbf), /atoms
/// (Z and positions in Bohr) and attributes (basis, shells, Bohr constant, iterations).
/// Throws gaea::error naming the file if the target is not a regular file or a new name in a
/// writable directory, or if HDF5 or the disk fails (the temporary file is removed and a
/// previous file of that name is left as it was).
void write_results(const std::string& path, const scf_result& r, const molecule& mol,
                   const basis_set& b, bohr_constant constant);

}  // namespace scf
