#pragma once
/// \file
/// The fused pull stream-collide kernel over a range of rows of one tile.

#include <cstdint>

#include "geometry.hpp"

namespace lbm {

/// A cell of a row that is not updated by the vectorised fluid loop.
struct special_cell {
  std::int32_t x;     ///< local column
  std::uint8_t kind;  ///< 0: solid (not updated), 1: fluid with a non-fluid neighbour
};

/// Everything the kernel needs about one tile; both population arrays share the layout.
struct kernel_args {
  const double* src = nullptr;  ///< element (0, y0, x0) of the array read (ghosts around it)
  double* dst = nullptr;        ///< element (0, y0, x0) of the array written
  std::int64_t plane = 0;       ///< elements between populations i and i+1
  std::int64_t row = 0;         ///< elements between rows
  std::int64_t width = 0;       ///< interior columns of the tile
  const std::uint8_t* flags = nullptr;      ///< cell classes of the tile and its ghost layer
  std::int64_t flag_row = 0;                ///< width + 2; flags[(r + 1) * flag_row + c + 1]
  const std::int64_t* row_start = nullptr;  ///< specials of row r: [row_start[r], row_start[r+1])
  const special_cell* specials = nullptr;
  const side* sides = nullptr;  ///< the four sides (left, right, bottom, top)
  double omega = 1, fx = 0, fy = 0;
  bool force = false;
  /// Write `dst` with non-temporal stores (no read of the lines before writing them, and no
  /// eviction of `src` from the cache). Same values either way. Off by default: on this
  /// machine's VM it measured slower (1024^2 cavity, 1 thread: 73 against 92-103 MLUPS).
  bool streaming_stores = false;
};

/// Updates interior rows [r0, r1) of the tile: for every fluid cell, pulls the populations of its
/// neighbours from `src` (boundary rules where the neighbour is not fluid), relaxes them and
/// writes `dst`. Rows are independent, so ranges may run concurrently.
void sweep_rows(const kernel_args& a, std::int64_t r0, std::int64_t r1);
/// Updates the cells of rows [r0, r1) and columns [c0, c1) of the tile, as sweep_rows does (a
/// cell's value does not depend on the box it was updated in). Empty boxes do nothing.
void sweep_box(const kernel_args& a, std::int64_t r0, std::int64_t r1, std::int64_t c0,
               std::int64_t c1);

}  // namespace lbm
