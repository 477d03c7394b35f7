#pragma once
/// \file
/// Index types and patches of N-dimensional global arrays.
/// Conventions (as in Global Arrays): arrays are row-major (the last dimension is contiguous) and
/// patches use *inclusive* bounds lo..hi, 0-based.

#include <cstdint>
#include <string>
#include <vector>

namespace gaea::ga {

using index_t = std::int64_t;
using index = std::vector<index_t>;

/// Most dimensions an array may have.
inline constexpr int max_dims = 7;

/// An inclusive box [lo, hi] of an N-dimensional index space. Empty when any lo[d] > hi[d]
/// (only produced by queries: user patches with lo > hi are rejected).
struct patch {
  index lo;
  index hi;

  int ndim() const noexcept { return static_cast<int>(lo.size()); }
  bool empty() const noexcept;
  /// Extent of dimension d (hi - lo + 1), 0 when empty.
  index_t extent(int d) const noexcept;
  /// Number of elements.
  index_t elements() const noexcept;
  /// Intersection with `o` (may be empty).
  patch intersect(const patch& o) const;
  /// "[lo0:hi0, lo1:hi1]"
  std::string str() const;
  friend bool operator==(const patch&, const patch&) = default;
};

}  // namespace gaea::ga
