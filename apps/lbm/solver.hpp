#pragma once
/// \file
/// lbm::solver — D2Q9 BGK on a 2-D decomposed global array with one ghost layer.
///
/// Storage: the post-collision populations of the whole grid are one global_array<double> of
/// shape {9, ny, nx} (structure of arrays: population-major, then rows, x contiguous), cut only
/// over y and x into one tile per rank, with ghost widths {0, 1, 1}. Two such arrays alternate
/// (read one, write the other). A step exchanges the ghosts of the current array and runs the
/// fused pull stream-collide kernel over the local tile (oneTBB), which writes the other array;
/// optionally the exchange overlaps the update of the tile's interior (set_overlap). Per cell
/// this reads 9 and writes 9 doubles, all unit-stride rows.

#include <cstdint>
#include <memory>
#include <vector>

#include <tbb/task_arena.h>

#include "gaea/ga/global_array.hpp"
#include "geometry.hpp"

namespace lbm {

struct kernel_args;

/// Density and velocity along a line of cells.
struct profile {
  std::vector<double> rho, ux, uy;
};

/// Wall-clock seconds this rank spent in each phase of the steps so far.
struct timers {
  double compute = 0;  ///< stream-collide kernel
  /// Ghost exchange not hidden behind the kernel (including waiting for the slowest rank): the
  /// whole update_ghosts without overlap; with it, starting the update plus ghost_wait.
  double ghosts = 0;
  double ghost_wait = 0;  ///< with overlap: the part of `ghosts` spent in the final wait()
};

class solver {
 public:
  /// Collective. Creates the arrays and sets every cell to equilibrium at density 1 and rest.
  /// `grid`: process grid {py, px} (product at most the rank count; ranks beyond it own nothing);
  /// empty: the squarest grid of all ranks with tiles as square as the domain allows.
  /// `threads`: oneTBB threads for the kernel (0: oneTBB's default).
  /// Throws gaea::error for a bad config or grid (on every rank).
  solver(config cfg, std::vector<int> grid = {}, int threads = 0);
  ~solver();
  solver(const solver&) = delete;
  solver& operator=(const solver&) = delete;

  /// Writes the populations with streaming (non-temporal) stores or not (default: not; see
  /// kernel_args::streaming_stores). The fields are bit-identical either way.
  void set_streaming_stores(bool on) noexcept { streaming_ = on; }
  /// Overlaps the ghost exchange with the update of the tile's interior (default: off): start
  /// update_ghosts_async, update the cells that need no ghost, wait, update the cells along the
  /// tile's edges. Off: update_ghosts, then the whole tile. The fields are bit-identical either
  /// way. Off by default: on one node the gets are direct copies made while they are issued, so
  /// there is nothing to hide, and the edge columns swept apart cost ~5 % of the compute
  /// (thread CPU time of sweep_box, 1024 x 512 and 4096 x 2048 tiles); on pays off where
  /// transfers are in flight (tcp, several nodes). Call between steps, on every rank alike.
  void set_overlap(bool on) noexcept { overlap_ = on; }
  bool overlap() const noexcept { return overlap_; }
  /// Collective: advances `n` steps.
  void step(std::int64_t n = 1);
  /// Steps done since the start (or since the step of the snapshot restarted from).
  std::int64_t steps_done() const noexcept { return steps_; }
  void set_steps_done(std::int64_t s) noexcept { steps_ = s; }

  const config& problem() const noexcept { return cfg_; }
  /// The current post-collision populations {9, ny, nx}. Interiors are valid; ghosts are not.
  gaea::global_array<double>& populations() noexcept { return *cur_; }
  /// Process grid {py, px} actually used.
  const std::vector<int>& grid() const noexcept { return grid_; }
  const timers& time() const noexcept { return time_; }
  /// Cell updates done by this rank so far (fluid or not).
  std::int64_t cell_updates() const noexcept { return updates_; }

  /// Collective: density and velocity along the column x (all y) or the row y (all x), read
  /// by every rank with one-sided gets from the owners (after a sync, so that every rank's last
  /// step is complete).
  profile column(index_t x);
  profile row(index_t y);

  /// Collective: an order-independent 64-bit hash of every interior population with its global
  /// position (equal across decompositions exactly when the fields are bit-identical, up to
  /// hash collisions).
  std::uint64_t checksum();

  /// Collective: whether every interior population of every rank is finite (a diverged flow
  /// turns NaN or infinite and spreads). Reads the field once; same verdict on every rank.
  bool finite();

  /// This rank's tile interior box in (y, x) and the zero-copy view of its populations (empty
  /// box when it owns nothing).
  bool owns_cells() const noexcept { return owns_; }

 private:
  struct plan;
  // Cells of the tile a sweep updates: all, those whose neighbours are all in the tile, or the
  // rest (the edge rows and columns, which read ghosts).
  enum class region { all, interior, strip };
  void build_plan();
  kernel_args kernel_for_step() const;
  // `poll`: an exchange in flight, given a progress step now and then (interior sweeps only).
  void sweep(region which, gaea::ga::ghost_request* poll = nullptr);
  profile line(const gaea::ga::patch& p, std::int64_t n);

  config cfg_;
  std::vector<int> grid_;
  std::unique_ptr<gaea::global_array<double>> a_, b_;
  gaea::global_array<double>* cur_ = nullptr;
  gaea::global_array<double>* next_ = nullptr;
  std::unique_ptr<plan> plan_;
  std::unique_ptr<tbb::task_arena> arena_;
  bool owns_ = false;
  gaea::ga::boundary boundary_ = gaea::ga::boundary::fixed;
  bool streaming_ = false;
  bool overlap_ = false;
  std::int64_t steps_ = 0, updates_ = 0;
  timers time_;
};

/// Squarest process grid {py, px} of `ranks` for an ny x nx domain: the factorisation whose tiles
/// have the smallest perimeter (least ghost traffic).
std::vector<int> default_grid(int ranks, index_t ny, index_t nx);

}  // namespace lbm
