#pragma once
/// \file
/// Parallel two-electron Fock build (direct): the density D and the two-electron matrix G live in
/// global arrays; tasks are pairs of shell-block pairs (bra (I,J), ket (K,L)) that survive Schwarz
/// screening, handed out by a gaea::counters::task_pool over a shared counter. A task gets the six
/// density blocks it needs with non-blocking gets (kept per worker for the rest of the build),
/// computes its unique shell quartets (8-fold permutational symmetry) with libint2, and accumulates
/// its six G blocks target-driven.

#include <cstdint>
#include <memory>
#include <vector>

#include "basis.hpp"
#include "gaea/counters/task_pool.hpp"
#include "gaea/ga/global_array.hpp"
#include "integrals.hpp"

namespace scf {

struct fock_options {
  gaea::counters::task_pool_options pool;  ///< counter mode/variant and worker threads per rank
  /// Quartets whose Schwarz bound Q12 Q34 times the largest |density| over their six shell
  /// pairs is below it are skipped; the integral engine's precision is this over max |density|.
  double schwarz_threshold = 1e-13;
  std::int64_t block_bf = 0;  ///< basis functions per shell block; 0: automatic
};

/// One rank's figures of one build (seconds summed over its worker threads).
struct fock_times {
  double integrals = 0;  ///< libint2 and the contraction
  double counter = 0;    ///< waiting for task ids
  double get = 0;        ///< issuing and waiting for density gets
  double acc = 0;        ///< issuing accumulates, waiting for them, and the closing sync
  double wall = 0;       ///< wall time of the build on this rank
  double max_task = 0;   ///< integral seconds of this rank's largest task (+= keeps the largest)
  std::int64_t tasks = 0, gets = 0, cache_hits = 0, accs = 0, quartets = 0;
  fock_times& operator+=(const fock_times& o);
};

/// max |x(i, j)| over the functions i of shell s1 and j of shell s2 (nshell x nshell).
matrix shell_max_abs(const matrix& x, const basis_set& b);

class fock_builder {
 public:
  /// Collective (creates the task pool). `q` are the shell-pair Schwarz bounds.
  fock_builder(const basis_set& b, const matrix& q, fock_options opt);
  ~fock_builder();
  fock_builder(const fock_builder&) = delete;
  fock_builder& operator=(const fock_builder&) = delete;

  /// Collective: zeroes `g`, then accumulates into it the two-electron part of the Fock matrix
  /// for the density `d` (D = C_occ C_occ^T, or a density change ΔD for an incremental build:
  /// G is linear in D; symmetric nbf x nbf): after symmetrisation, F = H + (G + G^T) / 2.
  /// Contributions are stored in the lower block triangle (block row >= block column).
  /// `dmax` is shell_max_abs of `d`, the same on every rank: it screens tasks and quartets
  /// (density-weighted Schwarz screening) and sets the engines' precision. Complete on every
  /// rank on return. `threshold` (the same on every rank) loosens the screening of this build
  /// (values below the options' schwarz_threshold mean that one).
  fock_times build(gaea::global_array<double>& d, const matrix& dmax, gaea::global_array<double>& g,
                   double threshold = 0);

  std::int64_t blocks() const noexcept;
  std::int64_t tasks() const noexcept;           ///< after screening
  std::int64_t screened_tasks() const noexcept;  ///< dropped by the block Schwarz bound
  int threads() const;
  std::string counter_description() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace scf
