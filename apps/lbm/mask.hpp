#pragma once
/// \file
/// Obstacle masks: which cells of the grid are solid, from a PBM/PGM image or an HDF5 dataset.

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "geometry.hpp"

namespace lbm {

struct mask {
  index_t nx = 0, ny = 0;
  std::vector<std::uint8_t> solid;  ///< ny*nx, row 0 = bottom row of the grid (y = 0)
};

/// Netpbm image: PBM (P1, P4: a set bit is solid) or PGM (P2, P5: a value below half of maxval,
/// i.e. dark, is solid). The image's first row is the top of the domain. Throws gaea::error
/// naming `what` for a malformed or truncated image.
mask read_netpbm(std::istream& in, const std::string& what);

/// Reads a mask file: `.h5`/`.hdf5` — the 2-D integer dataset "solid" (1 solid, 0 fluid, any
/// other value is refused; row 0 is y = 0, as written in snapshots); anything else — a Netpbm
/// image. Throws gaea::error naming the file (and the cell and value for a bad one).
mask read_mask(const std::string& path);

}  // namespace lbm
