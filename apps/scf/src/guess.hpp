#pragma once
/// \file
/// Initial densities for the SCF: the core-Hamiltonian guess and the superposition of atomic
/// densities (SAD). Serial, computed on rank 0 only.

#include <cstdint>
#include <optional>
#include <string_view>

#include "basis.hpp"
#include "gaea/base/enum_names.hpp"
#include "integrals.hpp"
#include "molecule.hpp"

namespace scf {

/// How the first density is made.
enum class guess_kind {
  sad,   ///< superposition of spherically averaged atomic densities
  core,  ///< occupied orbitals of the core Hamiltonian H = T + V
};
inline constexpr gaea::enum_name<guess_kind> guess_kind_names[] = {{guess_kind::sad, "sad"},
                                                                   {guess_kind::core, "core"}};
constexpr gaea::enum_names<guess_kind> enum_names_of(guess_kind) noexcept {
  return {"guess", guess_kind_names};
}
constexpr std::string_view to_string(guess_kind g) noexcept {
  return gaea::to_string<guess_kind>(g);
}
/// Parses "sad|core"; nullopt otherwise.
constexpr std::optional<guess_kind> parse_guess_kind(std::string_view text) noexcept {
  return gaea::try_parse<guess_kind>(text);
}

/// Occupation of each spatial orbital of a neutral atom of atomic number z, in units of a
/// doubly occupied orbital (0..1), in aufbau (Madelung) order of subshells: every orbital of a
/// subshell gets the same share of its electrons (spherical average), so 1s2 2s2 2p4 (O) gives
/// 1, 1, 2/3, 2/3, 2/3. Throws gaea::error for z outside 1..118.
std::vector<double> atomic_occupations(int z);

/// SAD density D (P = 2 D, nbf x nbf, block diagonal over atoms): for each element of `mol`,
/// once, a restricted SCF of the lone neutral atom in that element's functions of `basis` with
/// the fractional occupations of atomic_occupations (DIIS; at most 100 iterations), placed on
/// every atom of that element; then scaled so that tr(2 D S) is the molecule's electron count
/// (charged molecules). Throws gaea::error naming the element when the basis has fewer
/// functions on it than its occupied orbitals. Not collective.
matrix sad_density(const molecule& mol, const basis_set& basis, const matrix& s);

}  // namespace scf
