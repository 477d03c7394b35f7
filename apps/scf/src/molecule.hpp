#pragma once
/// \file
/// Molecules for gaea-scf: atoms read from .xyz files (Ångström), converted to Bohr with a
/// selectable Bohr–Ångström constant, the molecular charge and the nuclear repulsion energy.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scf {

/// Which Ångström-to-Bohr factor converts the .xyz coordinates.
enum class bohr_constant {
  nwchem,      ///< NWChem's: 1 Bohr = 0.529177249 Å (1/0.529177249 = 1.8897259886 ≈ 1.889725989)
  codata2018,  ///< CODATA 2018: 1 Bohr = 0.529177210903 Å
};
/// "nwchem" or "codata2018".
std::string_view to_string(bohr_constant c) noexcept;
/// Parses "nwchem|codata2018"; nullopt otherwise.
std::optional<bohr_constant> parse_bohr_constant(std::string_view text) noexcept;
/// Bohr per Ångström for `c`.
double angstrom_to_bohr(bohr_constant c) noexcept;

/// Atomic number of an element symbol (case-insensitive, "H" .. "Og"); 0 if unknown.
int atomic_number(std::string_view symbol) noexcept;
/// Symbol of atomic number z (1..118); "?" otherwise.
std::string_view element_symbol(int z) noexcept;

struct atom {
  int z = 0;                  ///< atomic number (nuclear charge)
  std::array<double, 3> r{};  ///< position in Bohr
};

struct molecule {
  std::vector<atom> atoms;
  int charge = 0;
  std::string source;  ///< file it was read from
  /// Number of electrons: sum of Z minus the charge.
  std::int64_t electrons() const noexcept;
  /// Sum over atom pairs of Z_a Z_b / r_ab (Hartree). Throws gaea::error if two atoms coincide.
  double nuclear_repulsion() const;
};

/// Two atoms closer than this (Ångström) are refused: shorter than any chemical bond (H2: 0.74).
inline constexpr double min_distance_angstrom = 0.2;
/// Coordinates beyond +-this (Ångström) are refused: no molecule is that large.
inline constexpr double max_coordinate_angstrom = 1e5;

/// Reads an .xyz file: a count line, a comment line, then `count` lines "Symbol x y z" in
/// Ångström (extra columns are ignored). Throws gaea::error naming the file and line for a
/// missing file, a bad count, an unknown element, unparsable, non-finite or huge coordinates
/// (max_coordinate_angstrom), fewer/more atom lines than the count, or two atoms closer than
/// min_distance_angstrom (naming both atoms, their lines and the distance). Not collective.
molecule read_xyz(const std::string& path, bohr_constant constant, int charge);

}  // namespace scf
