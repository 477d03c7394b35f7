#pragma once
/// \file
/// Restricted closed-shell Hartree–Fock driver: SAD or core-Hamiltonian guess, incremental Fock
/// builds on the density change with a periodic full rebuild, Pulay DIIS, symmetric or canonical
/// orthogonalisation, convergence on the energy change and the density change. The Fock build
/// is parallel (fock_builder); the rest runs on rank 0, which publishes each new density (or
/// density change) in the density global array.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "basis.hpp"
#include "fock_build.hpp"
#include "guess.hpp"
#include "integrals.hpp"
#include "molecule.hpp"

namespace scf {

struct scf_options {
  int max_iter = 50;
  double energy_tol = 1e-10;  ///< |E_k - E_{k-1}| (Hartree)
  double density_tol = 1e-8;  ///< rms change of the total density matrix P = 2 C_occ C_occ^T
  /// > 0: the density test is the rms element of the orbital gradient X^T (F D S - S D F) X
  /// below it (as Psi4's d_convergence), instead of rms(dP) < density_tol; 0: rms(dP).
  double gradient_tol = 1e-8;
  std::string ortho = "symmetric";  ///< "symmetric" or "canonical"
  double lindep = 1e-6;             ///< overlap eigenvalues below it are dropped (canonical)
  /// Fock matrices kept by DIIS (0: off); 12 rather than 8 saved one iteration and 5-6 % of
  /// the quartets on (H2O)4 and (H2O)6 in cc-pVDZ.
  int diis_size = 12;
  guess_kind guess = guess_kind::sad;
  /// Every this many builds one is a full build on D; the others are incremental, G(ΔD) added
  /// to the previous G. 1: every build full. The converged energy always comes from a full one.
  int rebuild_period = 8;
  /// Screening threshold of the early builds, while rms(dP) >= early_until; then a full build
  /// at the tight threshold starts the accurate phase. 0: no early phase.
  double early_schwarz = 1e-9;
  double early_until = 1e-6;
  bool print = true;  ///< rank 0 prints the iteration table as it goes
};

/// Figures of one iteration (times in seconds: Fock-build parts averaged over ranks and summed
/// over each rank's threads, the rest on rank 0).
struct iteration_record {
  int iter = 0;
  double energy = 0, delta_e = 0, delta_p = 0;
  /// rms element of the orbital gradient X^T (F D S - S D F) X (the DIIS error) at this
  /// iteration's density, before extrapolation
  double gradient = 0;
  bool full = true;           ///< a full build (else incremental on ΔD)
  bool early = false;         ///< at the early (loose) screening threshold
  std::int64_t quartets = 0;  ///< shell quartets computed, summed over ranks
  fock_times mean;            ///< Fock-build times averaged over ranks
  double diag = 0;            ///< rank 0: gather G, DIIS, diagonalise, publish D (others wait)
  double wall = 0;
};

struct scf_result {
  bool converged = false;
  int iterations = 0;
  double energy = 0, nuclear_repulsion = 0, electronic = 0;
  std::int64_t occupied = 0;
  std::int64_t orbitals = 0;  ///< after dropping linear dependence
  std::int64_t dropped = 0;
  double min_overlap_eigenvalue = 0;
  std::string ortho_used;
  Eigen::VectorXd orbital_energies;  ///< rank 0 only
  matrix coefficients;               ///< nbf x orbitals, rank 0 only
  matrix density;                    ///< total density P, rank 0 only
  std::vector<iteration_record> history;
  std::vector<fock_times> per_rank;  ///< rank 0: totals over iterations of every rank
  fock_times mine;                   ///< this rank's totals over iterations
  double diag_total = 0;
  std::int64_t blocks = 0, tasks = 0;  ///< of the Fock build (tasks after screening)
  int threads = 1;                     ///< worker threads per rank
  int full_builds = 0;                 ///< of the `iterations` builds
  double guess_s = 0;                  ///< rank 0: seconds to make the guess density
  bool incore = false;                 ///< the integrals were kept in core
  std::string integrals;               ///< the integral mode chosen and why
  incore_stats stored;                 ///< the in-core store (summed over ranks)
};

/// Collective: runs the SCF. Throws gaea::error on every rank for an odd electron count or bad
/// options; returns with converged == false (on every rank) after max_iter iterations.
scf_result run_scf(const molecule& mol, const basis_set& basis, const scf_options& opt,
                   const fock_options& fopt, std::FILE* out);

}  // namespace scf
