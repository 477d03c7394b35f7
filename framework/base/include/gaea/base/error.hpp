#pragma once
/// \file
/// gaea::Error, the one exception type that user-facing errors in Gaea throw.

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gaea {

/// Thrown for bad input and for failures the user can act on. The message names the object
/// involved and the offending values (e.g. "global_array 'A': patch lo[1]=7 > hi[1]=3").
/// Never thrown across a progress-thread boundary: errors found there are reported to the origin.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

/// Formats "[a, b, c]" for messages about index vectors.
std::string format_index(std::span<const std::int64_t> v);

/// Throws gaea::Error(message) when `condition` is false. For user input only; internal
/// invariants use GAEA_ASSERT-free explicit checks that also throw, never abort.
inline void require(bool condition, std::string_view message) {
  if (!condition) throw Error(std::string(message));
}

}  // namespace gaea
