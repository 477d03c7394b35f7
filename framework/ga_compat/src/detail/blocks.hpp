#pragma once
// Blocks of an array's tile grid as GA numbers them: NGA_Access_block's index and, for
// block-cyclic arrays, NGA_Distribution's process id.

#include <cstddef>
#include <string>
#include <vector>

#include "gaea/base/error.hpp"
#include "gaea/ga/distribution.hpp"

namespace gaea::ga_compat::detail {

/// Number of blocks of a tile grid.
inline ga::index_t block_count(const std::vector<int>& grid) {
  ga::index_t total = 1;
  for (int g : grid)
    total *= g;
  return total;
}

/// Tile-grid coordinates of block `idx` (0 <= idx < block_count), numbered in C order over the
/// grid (last dimension fastest), as GA numbers them.
inline ga::index block_coords(const std::vector<int>& grid, ga::index_t idx) {
  ga::index c(grid.size(), 0);
  for (std::size_t k = grid.size(); k-- > 0;) {
    c[k] = idx % grid[k];
    idx /= grid[k];
  }
  return c;
}

/// The box of the block at tile-grid coordinates `c`; gaea::error naming `who` for coordinates
/// outside the grid.
inline ga::patch block_box(const ga::distribution& d, const ga::index& c, const std::string& who) {
  const auto& grid = d.grid();
  ga::patch box{ga::index(grid.size(), 0), ga::index(grid.size(), 0)};
  for (std::size_t k = 0; k < grid.size(); ++k) {
    if (c[k] < 0 || c[k] >= grid[k])
      throw error(who + ": block coordinate " + std::to_string(c[k]) + " in dimension " +
                  std::to_string(k) + " (the grid has " + std::to_string(grid[k]) + " blocks)");
    box.lo[k] = d.boundaries(static_cast<int>(k))[static_cast<std::size_t>(c[k])];
    box.hi[k] = d.boundaries(static_cast<int>(k))[static_cast<std::size_t>(c[k]) + 1] - 1;
  }
  return box;
}

}  // namespace gaea::ga_compat::detail
