#pragma once
/// \file
/// Up-front cost estimates for gaea-scf, so that a large molecule says what it is in for before
/// the long parts: the set-up (one-electron integrals, Schwarz bounds, orthogonalisation: every
/// rank computes them whole) measured on a sample of the basis and scaled by the problem size,
/// and a full Fock build from the Schwarz step's time per shell quartet.

#include <cstdint>
#include <string>

#include "basis.hpp"
#include "integrals.hpp"
#include "molecule.hpp"

namespace scf {

/// Seconds each set-up step should take on one rank.
struct setup_estimate {
  double one_electron_s = 0;       ///< overlap, kinetic and nuclear attraction
  double schwarz_s = 0;            ///< (ab|ab) for every shell pair
  double orthogonalise_s = 0;      ///< eigendecomposition of the nbf x nbf overlap
  std::int64_t sample_shells = 0;  ///< shells the integrals were timed on
  double total() const noexcept { return one_electron_s + schwarz_s + orthogonalise_s; }
};

/// Times the set-up's steps on the first shells of `b` (at most 48; all nuclei of `mol`) and a
/// small eigendecomposition, and scales them to the whole basis (shell pairs, nbf^3). Not
/// collective; costs well under a second.
setup_estimate estimate_setup(const basis_set& b, const molecule& mol);

/// Shell quartets (ab|cd) with pair ab >= pair cd whose Schwarz bound q(a,b) q(c,d) is at
/// least `threshold` (q from schwarz_bounds): the quartets a full Fock build computes, at most.
double surviving_quartets(const matrix& q, double threshold);

/// "0.42 s", "3.5 min", "2.1 h".
std::string duration_text(double seconds);

}  // namespace scf
