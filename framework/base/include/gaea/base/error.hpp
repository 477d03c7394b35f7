#pragma once
/// \file
/// gaea::error, the one exception type that user-facing errors in Gaea throw.

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gaea {

/// Thrown for bad input and for failures the user can act on. The message names the object
/// involved and the offending values (e.g. "global_array 'A': patch lo[1]=7 > hi[1]=3").
/// Never thrown across a progress-thread boundary: errors found there are reported to the origin.
class error : public std::runtime_error {
 public:
  /// An error with the message `what` (naming the object and the values).
  explicit error(const std::string& what) : std::runtime_error(what) {}
};

/// The exception type's name before version 0.2 (the one CamelCase type); use gaea::error.
using Error [[deprecated("gaea::Error is now gaea::error")]] = error;

/// Formats "[a, b, c]" for messages about index vectors.
std::string format_index(std::span<const std::int64_t> v);

/// Throws gaea::error(message) when `condition` is false. For user input only; internal
/// invariants use GAEA_ASSERT (gaea/base/assert.hpp).
inline void require(bool condition, std::string_view message) {
  if (!condition) throw error(std::string(message));
}

}  // namespace gaea
