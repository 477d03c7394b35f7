// The gaea-lbm model (apps/lbm/solver.cpp, solver::step): update_ghosts of the {9, ny, nx}
// populations (a sync, one strided get per neighbouring edge or corner with all nine
// populations, a barrier), then the sweep over the tile, not overlapped. The sweep is memory
// bound: a cell update moves 9 doubles in and 9 out, and the ranks of a node share its memory
// bandwidth. [PGAS-BGQ §IV.C.2, Fig. 13]
#include <algorithm>
#include <limits>
#include <string>
#include <tuple>

#include "common.hpp"
#include "gaea/model/apps.hpp"
#include "gaea/model/operations.hpp"

namespace gaea::model {

namespace {

// One ghost get: `chunks` runs of `chunk_bytes`, by whichever strided protocol is cheaper (ga
// picks by its calibrated cost model, GAEA_STRIDED=auto).
double ghost_get_s(const machine& m, link_class c, std::int64_t chunks, double chunk_bytes,
                   double hop) {
  const double extra = c == link_class::inter ? 2 * hop : 0;
  return std::min(strided_zero_copy_s(m, c, chunks, chunk_bytes),
                  strided_packed_s(m, c, chunks, chunk_bytes)) +
         extra;
}

}  // namespace

std::pair<std::int64_t, std::int64_t> lbm_default_grid(std::int64_t ranks, std::int64_t ny,
                                                       std::int64_t nx) {
  std::pair<std::int64_t, std::int64_t> best{0, 0};
  double best_cost = std::numeric_limits<double>::max();
  for (std::int64_t py = 1; py <= ranks; ++py) {
    if (ranks % py != 0) continue;
    const std::int64_t px = ranks / py;
    if (py > ny || px > nx) continue;
    const double cost = static_cast<double>(ny) / static_cast<double>(py) +
                        static_cast<double>(nx) / static_cast<double>(px);
    if (cost < best_cost - 1e-9) best_cost = cost, best = {py, px};
  }
  if (best.first == 0)
    throw error("lbm: cannot cut a " + std::to_string(nx) + " x " + std::to_string(ny) +
                " grid into " + std::to_string(ranks) + " tiles of at least one cell");
  return best;
}

lbm_breakdown predict_lbm(const machine& m, const lbm_case& c, const lbm_profile& p) {
  m.check();
  const std::string name = "lbm (" + std::to_string(c.nx) + " x " + std::to_string(c.ny) + ", " +
                           std::to_string(c.ranks) + " ranks)";
  detail::require_positive(c.nx, "nx", name);
  detail::require_positive(c.ny, "ny", name);
  detail::require_positive(c.ranks, "ranks", name);
  std::int64_t py = c.py, px = c.px;
  if (py == 0 && px == 0) {
    std::tie(py, px) = lbm_default_grid(c.ranks, c.ny, c.nx);
  } else if (py < 1 || px < 1 || py * px != c.ranks || py > c.ny || px > c.nx) {
    throw error("model " + name + ": grid " + std::to_string(py) + "x" + std::to_string(px) +
                " must have py * px = " + std::to_string(c.ranks) + " ranks, py <= ny = " +
                std::to_string(c.ny) + " and px <= nx = " + std::to_string(c.nx));
  }
  if (!(p.bytes_per_cell > 0))
    throw error("model " + name + ": bytes_per_cell = " + std::to_string(p.bytes_per_cell) +
                " must be > 0");
  const std::int64_t rpn = detail::ranks_per_node(m, c.ranks);
  const double hop = detail::hops_s(m, c.ranks);

  lbm_breakdown out;
  out.py = py;
  out.px = px;
  const std::int64_t h = (c.ny + py - 1) / py, w = (c.nx + px - 1) / px;
  out.tile_cells = h * w;
  // The node's bandwidth is shared by its ranks; one rank alone runs at its profiled rate.
  const double shared_s =
      m.memory_bytes_per_node > 0
          ? p.bytes_per_cell * static_cast<double>(rpn) / m.memory_bytes_per_node
          : 0;
  const double cell_s = std::max(p.cell_s, shared_s);
  if (!(cell_s > 0))
    throw error("model " + name + ": no per-cell time (profile cell_s and machine '" + m.name +
                "' memory_bytes_per_node are both 0)");
  out.compute_s = static_cast<double>(out.tile_cells) * cell_s;

  // Neighbours of the busiest (interior) tile along each axis: none on a 1-wide axis (a
  // periodic one wraps onto the tile itself: a local copy, not counted), one or two otherwise.
  auto neighbours = [&](std::int64_t parts) -> std::int64_t {
    if (parts == 1) return 0;
    return (c.periodic || parts > 2) ? 2 : 1;
  };
  const std::int64_t nxn = neighbours(px), nyn = neighbours(py);
  const std::int64_t nodes = machine::nodes_for(c.ranks, rpn);
  // Ranks are row-major over the grid: x neighbours are adjacent ranks, y neighbours px apart.
  // Some x pair straddles two nodes unless every node holds whole grid rows.
  const link_class lx =
      nodes > 1 && (px > rpn || rpn % px != 0) ? link_class::inter : link_class::intra;
  const link_class ly = nodes > 1 ? link_class::inter : link_class::intra;
  // Edges along x: a column of h cells, 9 populations, one double per run. Edges along y: a row
  // of w cells per population. Corners: 9 single doubles.
  struct piece {
    link_class c;
    std::int64_t count, chunks;
    double chunk_bytes;
  };
  const piece pieces[] = {{lx, nxn, 9 * h, 8.0},
                          {ly, nyn, 9, 8.0 * static_cast<double>(w)},
                          {nodes > 1 ? link_class::inter : link_class::intra, nxn * nyn, 9, 8.0}};
  double sum = 0, longest_rt = 0, overlapped = 0;
  for (const piece& pc : pieces) {
    if (pc.count == 0) continue;
    const double one = ghost_get_s(m, pc.c, pc.chunks, pc.chunk_bytes, hop);
    const double rt = detail::round_trip_s(m, pc.c, hop);
    out.messages += pc.count;
    out.ghost_bytes += static_cast<double>(pc.count * pc.chunks) * pc.chunk_bytes;
    sum += static_cast<double>(pc.count) * one;
    overlapped += static_cast<double>(pc.count) * rt;
    longest_rt = std::max(longest_rt, rt);
  }
  // All gets are issued, then waited for: their latencies overlap (one round trip remains).
  out.exchange_s = out.messages > 0 ? sum - overlapped + longest_rt : 0;
  out.sync_s = c.ranks > 1 ? 2 * collective_s(m, coll::operation::barrier, 0, c.ranks) : 0;
  out.ghosts_s = out.exchange_s + out.sync_s;
  out.total_s = out.compute_s + out.ghosts_s;
  return out;
}

}  // namespace gaea::model
