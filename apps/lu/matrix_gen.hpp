#pragma once
/// \file
/// Deterministic test matrices: every element is a function of (seed, i, j) only, so a matrix is
/// the same whatever the rank count, block size or process grid, and owners generate their tiles
/// in place (as HPL-MxP does).

#include <cstdint>

namespace lu {

/// Kind of generated matrix.
enum class matrix_kind {
  diag_dominant,  ///< off-diagonal uniform in [-0.5, 0.5), diagonal += n: safe without pivoting
  general,        ///< uniform in [-0.5, 0.5): needs pivoting (--pivot)
};

/// Element (i, j) of the n×n matrix of `kind` from `seed`. Thread-safe (pure).
double matrix_element(matrix_kind kind, std::uint64_t seed, std::int64_t n, std::int64_t i,
                      std::int64_t j) noexcept;
/// The rows×cols block at (i0, j0) of that matrix into `out` (row-major, rows `ld` apart):
/// element for element matrix_element's values, without recomputing the seed's hash per element.
/// Thread-safe on distinct outputs.
void fill_block(matrix_kind kind, std::uint64_t seed, std::int64_t n, std::int64_t i0,
                std::int64_t j0, std::int64_t rows, std::int64_t cols, double* out,
                std::int64_t ld) noexcept;
/// Element i of the right-hand side b from `seed`, uniform in [-0.5, 0.5). Pure.
double rhs_element(std::uint64_t seed, std::int64_t i) noexcept;

}  // namespace lu
