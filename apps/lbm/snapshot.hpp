#pragma once
/// \file
/// Snapshots: one HDF5 file per snapshot, written collectively with one ga::h5_writer (one
/// temporary file, renamed when complete), plus an XDMF sidecar listing the series so that
/// ParaView opens it as a time series. A snapshot holds everything a restart needs.
///
/// File layout (row 0 is the bottom row, y = 0); every dataset also carries ga::write's
/// attributes (gaea/ga/io.hpp):
///   /populations  double {9, ny, nx}  post-collision populations (restart state)
///   /density      double {ny, nx}
///   /velocity     double {ny, nx, 3}  (ux, uy, 0)
///   /solid        int32  {ny, nx}     1 in obstacles (also usable as a --mask)
///   /monitor      double {n}          the steadiness monitor at attribute monitor_step
///                                     (absent when monitor_length is 0)
///   attributes on /: step, nx, ny, monitor_step, monitor_length (int64), tau, fx, fy
///   (double), case (string)

#include <cstdint>
#include <string>
#include <vector>

#include "solver.hpp"

namespace lbm {

/// State besides the populations that a bit-identical restart needs.
struct snapshot_extra {
  std::vector<double> monitor;     ///< last monitor profile (may be empty)
  std::int64_t monitor_step = -1;  ///< step it was taken at (-1: none)
};

/// Not collective: checks that snapshots can be written into `dir` (an existing writable
/// directory, or a new name whose nearest existing ancestor is a writable directory) before the
/// run, so that a regular file or a read-only place fails at once. Throws gaea::error naming
/// `what`, the path and the reason.
void check_snapshot_dir(const std::string& dir, const std::string& what);

/// Collective: writes `dir`/lbm_<step>.h5 for the solver's current step and returns its path.
/// Throws gaea::error (on every rank) if the file cannot be written.
std::string write_snapshot(solver& s, const std::string& dir, const snapshot_extra& extra);

/// Rank 0 only (not collective): writes `dir`/lbm.xmf, a temporal collection of the given
/// snapshot files (paths as returned by write_snapshot; step of each).
void write_xdmf(const std::string& dir, const config& cfg,
                const std::vector<std::pair<std::int64_t, std::string>>& snapshots);

/// Collective: loads the populations, step and monitor of a snapshot into `s` (whose grid must
/// match; any decomposition and rank count). Throws gaea::error (every rank) for a missing
/// file, a different grid, or a file without the datasets and attributes above.
snapshot_extra read_snapshot(solver& s, const std::string& file);

}  // namespace lbm
