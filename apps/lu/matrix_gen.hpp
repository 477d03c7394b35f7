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
/// Element i of the right-hand side b from `seed`, uniform in [-0.5, 0.5). Pure.
double rhs_element(std::uint64_t seed, std::int64_t i) noexcept;

}  // namespace lu
