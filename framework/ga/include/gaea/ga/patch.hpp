#pragma once
/// \file
/// Index types and patches of N-dimensional global arrays.
/// Conventions (as in Global Arrays): arrays are row-major (the last dimension is contiguous) and
/// patches use *inclusive* bounds lo..hi, 0-based.

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

namespace gaea::ga {

/// An index or extent of a global array (64-bit everywhere).
using index_t = std::int64_t;

/// Most dimensions an array may have.
inline constexpr int max_dims = 7;

/// Up to max_dims indices stored inline: patches and strides never touch the heap on the
/// get/put/acc path. Behaves like a small std::vector<index_t>; converts to a span.
class index {
 public:
  /// Element type (as a container).
  using value_type = index_t;
  /// Mutable iterator.
  using iterator = index_t*;
  /// Read-only iterator.
  using const_iterator = const index_t*;

  index() = default;
  /// The listed indices, e.g. `{0, 9}`. Throws gaea::error if there are more than max_dims.
  index(std::initializer_list<index_t> il) { assign(il.begin(), il.end()); }
  /// `n` copies of `v`. Throws gaea::error if n > max_dims.
  explicit index(std::size_t n, index_t v = 0) {
    // v_ starts zeroed: filling it again (a memset the compiler expands to `rep stos`, slow to
    // start for a few bytes) cost a quarter of an 8-byte get on a node.
    check_size(n);
    n_ = static_cast<std::uint8_t>(n);
    if (v != 0) std::fill_n(v_.begin(), n, v);
  }
  /// A copy of `s` (implicit). Throws gaea::error if it holds more than max_dims indices.
  index(std::span<const index_t> s) { assign(s.begin(), s.end()); }  // NOLINT: implicit on purpose
  /// A copy of `v` (implicit). Throws gaea::error if it holds more than max_dims indices.
  index(const std::vector<index_t>& v) { assign(v.begin(), v.end()); }  // NOLINT

  /// Number of indices (0 to max_dims).
  std::size_t size() const noexcept { return n_; }
  /// True when it holds no index.
  bool empty() const noexcept { return n_ == 0; }
  /// Index `i`; not bounds-checked (as std::vector's operator[]).
  index_t& operator[](std::size_t i) noexcept { return v_[i]; }
  /// Index `i`; not bounds-checked.
  index_t operator[](std::size_t i) const noexcept { return v_[i]; }
  /// The first index (storage for max_dims of them).
  index_t* data() noexcept { return v_.data(); }
  /// The first index (storage for max_dims of them).
  const index_t* data() const noexcept { return v_.data(); }
  /// Iterator to the first index.
  iterator begin() noexcept { return v_.data(); }
  /// Iterator past the last index.
  iterator end() noexcept { return v_.data() + n_; }
  /// Iterator to the first index.
  const_iterator begin() const noexcept { return v_.data(); }
  /// Iterator past the last index.
  const_iterator end() const noexcept { return v_.data() + n_; }
  /// The first index; must not be empty (not checked).
  index_t front() const noexcept { return v_[0]; }
  /// The last index; must not be empty (not checked).
  index_t back() const noexcept { return v_[n_ - 1]; }
  /// Appends `x`. Throws gaea::error if it already holds max_dims indices.
  void push_back(index_t x) {
    check_size(n_ + 1u);
    v_[n_++] = x;
  }
  /// Keeps the first `n` indices, or appends copies of `v` up to `n`. Throws gaea::error if
  /// n > max_dims.
  void resize(std::size_t n, index_t v = 0) {
    check_size(n);
    for (std::size_t i = n_; i < n; ++i)
      v_[i] = v;
    n_ = static_cast<std::uint8_t>(n);
  }
  /// A view of the indices (implicit); valid while this index lives and is not resized.
  operator std::span<const index_t>() const noexcept { return {v_.data(), n_}; }  // NOLINT
  /// Same size and same indices.
  friend bool operator==(const index& a, const index& b) noexcept {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  template <class It>
  void assign(It first, It last) {
    check_size(static_cast<std::size_t>(last - first));
    n_ = static_cast<std::uint8_t>(std::copy(first, last, v_.begin()) - v_.begin());
  }
  static void check_size(std::size_t n);
  std::array<index_t, max_dims> v_{};
  std::uint8_t n_ = 0;
};

/// An inclusive box [lo, hi] of an N-dimensional index space. Empty when any lo[d] > hi[d]
/// (only produced by queries: user patches with lo > hi are rejected).
struct patch {
  /// First index per dimension (inclusive).
  index lo;
  /// Last index per dimension (inclusive).
  index hi;

  /// Number of dimensions (the size of lo).
  int ndim() const noexcept { return static_cast<int>(lo.size()); }
  /// True when lo[d] > hi[d] for some dimension d.
  bool empty() const noexcept;
  /// Extent of dimension d (hi - lo + 1), 0 when empty.
  index_t extent(int d) const noexcept;
  /// Number of elements.
  index_t elements() const noexcept;
  /// Intersection with `o` (may be empty).
  patch intersect(const patch& o) const;
  /// "[lo0:hi0, lo1:hi1]"
  std::string str() const;
  /// Same lo and same hi.
  friend bool operator==(const patch&, const patch&) = default;
};

}  // namespace gaea::ga
