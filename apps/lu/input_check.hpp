#pragma once
/// \file
/// Validation of a matrix read with --input: every element must be finite (a NaN or infinity
/// would only show up as a failed residual check after the whole factorisation).

#include <string>

#include "tiled_matrix.hpp"

namespace lu {

/// Collective: checks the elements this rank holds of `m`; when any rank finds a non-finite
/// one, every rank throws gaea::error naming `path`, `dataset`, the element (row, column) and
/// its value (the lowest such rank's first one).
void check_input_finite(const tiled_matrix& m, const std::string& path, const std::string& dataset);

}  // namespace lu
