#pragma once
/// \file
/// HDF5 input and output of the LU mini-app's matrix, through the global-array layer's
/// collective I/O (gaea/ga/io.hpp): no HDF5 code of its own.

#include <span>
#include <string>

#include "tiled_matrix.hpp"

namespace lu {

/// Rows of the square 2-D dataset `dataset` in `path` (not collective: each rank looks itself).
/// Throws gaea::error naming the file and dataset if either is missing, or if the dataset is
/// not a square 2-D array of double, float, int64 or int32.
index_t h5_matrix_extent(const std::string& path, const std::string& dataset);

/// Collective. Reads `dataset` into `m` (converted to double: a double dataset goes straight
/// into m's tiles; the other types through a scratch array of that type with m's layout).
/// Throws gaea::error (every rank) naming the file on failure.
void h5_read_matrix(const std::string& path, const std::string& dataset, tiled_matrix& m);

/// Collective. Writes the factors in `m` as dataset "LU" (L below the diagonal, unit diagonal
/// implied; U on and above it) and, when pivoting was used, "pivots" (int64, 0-based LAPACK
/// convention), plus int64 attributes "n" and "block" on "LU" (besides ga::write's own). One
/// ga::h5_writer: a temporary file renamed to `path` once complete.
void h5_write_factors(const std::string& path, const tiled_matrix& m,
                      std::span<const index_t> pivots);

}  // namespace lu
