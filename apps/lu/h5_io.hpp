#pragma once
/// \file
/// HDF5 input and output of the LU mini-app's matrix, with parallel HDF5 on the local tiles.
/// Kept in one file so that it can be replaced by the global-array layer's own HDF5 I/O.

#include <span>
#include <string>

#include "tiled_matrix.hpp"

namespace gaea::lu {

/// Rows of the square 2-D dataset `dataset` in `path` (read by each rank on its own).
/// Throws gaea::Error if the file or dataset cannot be opened or the dataset is not square 2-D.
index_t h5_matrix_extent(const std::string& path, const std::string& dataset);

/// Collective. Every rank reads its tiles of `dataset` (converted to double) into `m`.
/// Throws gaea::Error naming the file on failure.
void h5_read_matrix(const std::string& path, const std::string& dataset, tiled_matrix& m);

/// Collective. Writes the factors in `m` as dataset "LU" (L below the diagonal, unit diagonal
/// implied; U on and above it) and, when pivoting was used, "pivots" (int64, 0-based LAPACK
/// convention), plus attributes "n" and "block". Written to "<path>.tmp", then renamed.
void h5_write_factors(const std::string& path, const tiled_matrix& m,
                      std::span<const index_t> pivots);

}  // namespace gaea::lu
