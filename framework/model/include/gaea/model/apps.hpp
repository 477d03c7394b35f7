#pragma once
/// \file
/// Models of one iteration of Gaea's apps at P ranks on a described machine ([PGAS-BGQ §IV.C-D]):
/// the blocked LU of apps/lu, the D2Q9 lattice Boltzmann of apps/lbm and the SCF Fock build of
/// apps/scf. Each model follows what the app's code does (its schedule, messages and blocking)
/// and takes its compute rate from a one-rank profile (the app's `--json` line) or, without one,
/// from the machine description. Every predict_* is a pure function: not collective,
/// thread-safe, no runtime needed. Bad input throws gaea::error naming the case and the values.

#include <cstdint>
#include <filesystem>
#include <utility>

#include "gaea/counters/task_counter.hpp"
#include "gaea/model/machine.hpp"
#include "gaea/model/operations.hpp"

namespace gaea::model {

// ---------------------------------------------------------------------------------------------
// LU (apps/lu: right-looking, 2-D block-cyclic, lookahead of one panel, prefetch of the next panel)

/// One factorisation of gaea-lu without pivoting.
struct lu_case {
  std::int64_t n = 0;      ///< matrix order
  std::int64_t block = 0;  ///< tile size
  std::int64_t prow = 1;   ///< process grid rows (P)
  std::int64_t pcol = 1;   ///< process grid columns (Q); ranks = prow x pcol
  bool overlap = true;     ///< `--overlap on`: next panel's gets hidden behind the update
};

/// What the LU model needs measured on the machine.
struct lu_profile {
  /// Flop/s of one rank's tile kernels at the case's tile size: a one-rank `gaea-lu --json`
  /// gives (2 n^3 / 3) / compute_s. 0: the machine's dgemm_flops_per_core.
  double flops_per_s = 0;
};

/// Seconds of one factorisation on the critical path (the busiest rank of every step).
struct lu_breakdown {
  double total_s = 0;         ///< compute + comm + wait
  double compute_s = 0;       ///< update_s + panel_s
  double update_s = 0;        ///< trailing updates (GEMM)
  double panel_s = 0;         ///< diagonal factorisation and panel solves (TRSM)
  double comm_s = 0;          ///< panel gets not hidden behind the update, diagonal-tile gets
  double wait_s = 0;          ///< readiness notices and the closing sync
  double transfer_s = 0;      ///< panel gets before hiding (comm_s <= transfer_s)
  double bytes_per_rank = 0;  ///< fetched by the busiest rank
  std::int64_t steps = 0;     ///< tile columns
};

/// gaea-lu's default process grid: P the largest divisor of `ranks` not above its square root,
/// Q = ranks / P. The app itself uses it (one home for the rule). gaea::error for ranks < 1.
std::pair<std::int64_t, std::int64_t> lu_default_grid(std::int64_t ranks);
/// gaea-lu's automatic tile size on a P x Q grid: N / (8 max(P, Q)) (enough tiles per process row
/// and column for balance) as a power of two in [32, 256] (where the GEMM is efficient), at most
/// N. The app itself uses it.
std::int64_t lu_default_block(std::int64_t n, std::int64_t prow, std::int64_t pcol);

/// Predicts one gaea-lu factorisation. gaea::error naming the values for n, block, prow or pcol
/// below 1, block above n, and whatever machine::check() refuses.
lu_breakdown predict_lu(const machine& m, const lu_case& c, const lu_profile& p = {});

// ---------------------------------------------------------------------------------------------
// LBM (apps/lbm: update_ghosts of the {9, ny, nx} populations, then the stream-collide sweep)

/// A run of gaea-lbm.
struct lbm_case {
  /// Lattice columns.
  std::int64_t nx = 0, ny = 0;
  /// Ranks of the run.
  std::int64_t ranks = 1;
  std::int64_t py = 0, px = 0;  ///< process grid; 0 x 0: the app's default (least perimeter)
  bool periodic = false;        ///< periodic sides (poiseuille), else walls (cavity)
  /// \var ny
  /// Lattice rows.
  //
  /// \var py
  /// Process-grid rows (py = px = 0: the app's default grid).
};

/// What the LBM model needs measured on the machine.
struct lbm_profile {
  /// Seconds per cell update of one rank alone on a node (one-rank `gaea-lbm --json`:
  /// compute_s / (nx ny steps)). 0: bytes_per_cell over the node's memory bandwidth.
  double cell_s = 0;
  /// Memory traffic of one cell update: 9 doubles read and 9 written.
  double bytes_per_cell = 144;
};

/// Seconds of one time step of the busiest rank.
struct lbm_breakdown {
  double total_s = 0;           ///< compute_s + ghosts_s (the app does not overlap them)
  double compute_s = 0;         ///< the sweep over the tile
  double ghosts_s = 0;          ///< exchange_s + sync_s
  double exchange_s = 0;        ///< the ghost gets (edges and corners)
  double sync_s = 0;            ///< update_ghosts' opening sync and closing barrier
  double ghost_bytes = 0;       ///< fetched per step
  std::int64_t messages = 0;    ///< gets per step
  std::int64_t tile_cells = 0;  ///< cells of the largest tile
  std::int64_t py = 0, px = 0;  ///< grid used
  /// \var py
  /// Process-grid rows used.
};

/// The grid gaea-lbm uses by default (the app itself calls this): the factorisation py x px =
/// ranks whose tiles have the least perimeter (ny / py + nx / px), py <= ny, px <= nx.
/// gaea::error when there is none.
std::pair<std::int64_t, std::int64_t> lbm_default_grid(std::int64_t ranks, std::int64_t ny,
                                                       std::int64_t nx);

/// Predicts one gaea-lbm step. gaea::error naming the values for sizes or ranks below 1, a grid
/// whose product is not `ranks` or that has more tiles than cells along an axis.
lbm_breakdown predict_lbm(const machine& m, const lbm_case& c, const lbm_profile& p = {});

// ---------------------------------------------------------------------------------------------
// SCF Fock build (apps/scf: tasks of block quartets from a shared counter, D gets, G accumulates)

/// One Fock build of gaea-scf at a rank count.
struct scf_case {
  /// Ranks of the run.
  std::int64_t ranks = 1;
  std::int64_t threads = 1;                       ///< worker threads per rank (`--threads`)
  counter_mode counter = counter_mode::progress;  ///< `--counter atomic|progress|owner`
  std::int64_t block_bf = 0;  ///< `--block-size`; 0: the app's automatic blocking
  /// `--dispense`: one fetch-and-add per task (single, as NWChem's counter in [PGAS-BGQ Fig. 15])
  /// or guided chunks (batched, the app's default); hierarchical is not modelled.
  counters::dispense dispense = counters::dispense::batched;
};

/// What the SCF model needs, measured once on one rank (`gaea-scf --json`, per iteration).
struct scf_profile {
  std::int64_t nbf = 0;      ///< basis functions
  std::int64_t blocks = 0;   ///< shell blocks of the profiled run
  std::int64_t tasks = 0;    ///< tasks after screening, in the profiled run
  double integrals_s = 0;    ///< integral seconds of one build, all tasks
  double max_task_s = 0;     ///< the largest task's integral seconds (0: the mean)
  double accs_per_task = 6;  ///< accumulates per task after merging (at most 6)
  double diag_s = 0;         ///< rank 0's serial part per iteration (G gather, DIIS, diagonalise)
};

/// Seconds of one SCF iteration as the slowest worker sees it.
struct scf_breakdown {
  double total_s = 0;        ///< build_s + diag_s + collectives_s
  double build_s = 0;        ///< the Fock build: the per-worker parts below plus imbalance_s
  double integrals_s = 0;    ///< per worker
  double counter_s = 0;      ///< per worker: fetch-and-adds on the task counter
  double get_s = 0;          ///< per worker: density gets
  double acc_s = 0;          ///< per worker: Fock accumulates
  double imbalance_s = 0;    ///< the end of the build: largest task and the last tasks' tail
  double diag_s = 0;         ///< replicated/serial part on rank 0
  double collectives_s = 0;  ///< G to rank 0, D back, the build's sync and the go-on broadcast
  /// Blocks of basis functions at this rank and thread count.
  std::int64_t blocks = 0, tasks = 0;
  /// Mean tasks per worker thread (tasks / (ranks x threads)).
  double tasks_per_worker = 0;
  double task_s = 0;              ///< mean integral seconds per task
  double fetch_add_s = 0;         ///< one counter call
  double fetches_per_worker = 0;  ///< counter calls per worker (tasks, or guided chunks)
  /// \var tasks
  /// Tasks (block quartets kept after screening) at this blocking.
};

/// gaea-scf's automatic blocking (the app itself calls this): blocks of about this many basis
/// functions for `workers` workers in all (block quartets, ~nb^4/8, outnumber the workers by
/// ~64, and blocks hold at most ~48 functions so that task buffers stay small).
std::int64_t scf_block_bf(std::int64_t nbf, std::int64_t workers);

/// Predicts one gaea-scf iteration. gaea::error naming the values for ranks or threads below 1,
/// a profile without nbf, blocks, tasks or integral time, or more blocks than functions.
scf_breakdown predict_scf(const machine& m, const scf_case& c, const scf_profile& p);

// ---------------------------------------------------------------------------------------------
// Profiles: read from the apps' `--json` output (the last line of stdout that is a JSON object).

/// From a one-rank `gaea-lu --json` run; also gives the case it ran (n, block, overlap).
/// gaea::error naming the file and the key for an unreadable file, no JSON line, a missing key,
/// a run on more than one rank or a zero compute time.
std::pair<lu_profile, lu_case> read_lu_profile(const std::filesystem::path& file);
/// From a one-rank `gaea-lbm --json` run (same errors).
std::pair<lbm_profile, lbm_case> read_lbm_profile(const std::filesystem::path& file);
/// From a one-rank `gaea-scf --json` run (same errors); the case carries its threads.
std::pair<scf_profile, scf_case> read_scf_profile(const std::filesystem::path& file);

}  // namespace gaea::model
