#pragma once
/// \file
/// Gaussian basis sets for gaea-scf, read from NWChem's basis library (the format of Debian's
/// nwchem-data, /usr/share/nwchem/libraries/<name>) or from Gaussian-94 files, and placed on the
/// atoms of a molecule as libint2 shells (one contraction per shell, SP shells split into S and P).

#include <cstdint>
#include <string>
#include <vector>

#include <libint2/shell.h>

#include "molecule.hpp"

namespace scf {

/// How the angular part of shells with l >= 2 is represented.
enum class shell_form {
  as_declared,  ///< as the basis file declares: NWChem blocks say SPHERICAL or CARTESIAN
                ///< (undeclared: cartesian, NWChem's default); Gaussian-94 files: spherical
  cartesian,    ///< 6d, 10f, ...
  spherical,    ///< 5d, 7f, ... (real solid harmonics)
};

struct basis_request {
  /// A library name ("sto-3g", "6-31G*", "cc-pVDZ") looked up in `library_dir` (see
  /// library_file_name), or a path to a file.
  std::string name;
  std::string library_dir = "/usr/share/nwchem/libraries";
  /// "auto" (Gaussian-94 if the file contains a "****" separator line, else NWChem), "nwchem",
  /// "g94".
  std::string format = "auto";
  shell_form form = shell_form::as_declared;
};

struct basis_set {
  std::vector<libint2::Shell> shells;    ///< centred on the atoms, in atom order
  std::vector<std::int64_t> shell_atom;  ///< atom index of each shell
  std::vector<std::int64_t> first_bf;    ///< first basis function of each shell
  std::int64_t nbf = 0;                  ///< number of basis functions
  std::string file;                      ///< the file the shells came from
  std::string name;                      ///< as requested
  std::string form;                      ///< "cartesian", "spherical" or "mixed" (l >= 2)
  std::string form_reason;               ///< why (option or file declaration)
  std::size_t max_nprim() const;
  int max_l() const;
};

/// NWChem library file name of a basis set name: lower case, '*' -> 's', "(a,b)" -> "a_b".
/// "6-31G*" -> "6-31gs", "cc-pVDZ" -> "cc-pvdz", "6-311G(2df,2pd)" -> "6-311g2df_2pd".
std::string library_file_name(const std::string& name);

/// Loads the basis for every atom of `mol`. Throws gaea::error naming the file (and the line,
/// element and value where there is one) for an unknown basis (no such file), an element the
/// file does not cover, or a malformed file: an element block without its "end" (a truncated
/// file), a shell without primitives or of another element than its block, an unknown shell
/// letter, a non-finite number, a non-positive exponent, a contraction of only zero
/// coefficients. Not collective: every rank may call it on its own.
basis_set load_basis(const basis_request& req, const molecule& mol);

}  // namespace scf
