#pragma once
/// \file
/// Parallel two-electron Fock build (direct): the density D and the two-electron matrix G live in
/// global arrays; tasks are pairs of shell-block pairs (bra (I,J), ket (K,L)) that survive Schwarz
/// screening, handed out by a gaea::counters::task_pool over a shared counter. A task gets the six
/// density blocks it needs with non-blocking gets (kept per worker for the rest of the build),
/// computes its unique shell quartets (8-fold permutational symmetry) with libint2, and accumulates
/// its six G blocks target-driven.
///
/// In-core mode: the first build computes, over the same counter, every quartet that passes the
/// plain Schwarz bound and each rank keeps the integrals of the tasks it ran (packed per task);
/// later builds replay them against the whole density held locally, with no counter, gets per
/// task or integral evaluation, and accumulate one whole-matrix G per rank.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "basis.hpp"
#include "gaea/counters/task_pool.hpp"
#include "gaea/ga/global_array.hpp"
#include "integrals.hpp"

namespace scf {

/// How the two-electron integrals are obtained.
enum class integral_mode {
  automatic,  ///< in-core when the estimated storage per rank fits the budget, else direct
  direct,     ///< recomputed in every build
  incore,     ///< computed once and kept, if they fit the budget (else direct, said so)
};
std::string_view to_string(integral_mode m) noexcept;
/// "auto", "direct", "incore"; nullopt otherwise.
std::optional<integral_mode> parse_integral_mode(std::string_view s) noexcept;

struct fock_options {
  gaea::counters::task_pool_options pool;  ///< counter mode/variant and worker threads per rank
  /// Quartets whose Schwarz bound Q12 Q34 times the largest |density| over their six shell
  /// pairs is below it are skipped; the integral engine's precision is this over max |density|.
  double schwarz_threshold = 1e-13;
  std::int64_t block_bf = 0;  ///< basis functions per shell block; 0: automatic
  integral_mode integrals = integral_mode::automatic;
  /// Memory (MB) one rank may use for in-core integrals; <= 0: half the memory available on
  /// its node (MemAvailable) shared by the node's ranks.
  double integral_memory_mb = 0;
  /// In-core: at most this many MB stored per rank (<= 0: the budget); the tasks past it are
  /// recomputed in every build, as direct ones (a partial store, which tests exercise).
  double incore_store_limit_mb = 0;
};

/// What the in-core store holds after its first build (summed over ranks, max per rank).
struct incore_stats {
  double bytes = 0, max_rank_bytes = 0, integrals = 0;
  double max_rank_bytes_filled = 0;  ///< the largest rank's store before balancing
  double moved_fraction = 0;         ///< of the replay work, moved between ranks to balance it
  std::int64_t stored_tasks = 0, recomputed_tasks = 0;  ///< recomputed: over a rank's budget
};

/// One rank's figures of one build (seconds summed over its worker threads).
struct fock_times {
  double integrals = 0;  ///< libint2 and the contraction (in-core replays: the contraction)
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
  /// Collective (creates the task pool, and chooses the integral mode: an allreduce of the
  /// budget). `q` are the shell-pair Schwarz bounds.
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
  /// (values below the options' schwarz_threshold mean that one). In-core, the first call
  /// computes and stores the integrals (and balances the store over ranks: collective), and
  /// the later ones replay them; the result is the same as a direct build's.
  fock_times build(gaea::global_array<double>& d, const matrix& dmax, gaea::global_array<double>& g,
                   double threshold = 0);

  std::int64_t blocks() const noexcept;
  std::int64_t tasks() const noexcept;           ///< after screening
  std::int64_t screened_tasks() const noexcept;  ///< dropped by the block Schwarz bound
  int threads() const;
  std::string counter_description() const;
  /// True when the integrals are kept in core (decided, collectively, at construction).
  bool incore() const noexcept;
  /// The choice of integral mode and why (estimate, budget), one line, the same on every rank.
  const std::string& integrals_description() const noexcept;
  /// The in-core store's figures after the first build (zeros before it or in direct mode).
  const incore_stats& stored() const noexcept;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace scf
