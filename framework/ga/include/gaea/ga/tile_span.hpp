#pragma once
/// \file
/// gaea::ga::tile_span<T, N> — element access to one local tile at the cost of hand-written
/// pointer arithmetic.

#include <array>
#include <concepts>
#include <cstddef>

#include "gaea/ga/patch.hpp"

namespace gaea::ga {

/// A view of rank N of one local tile (from tile_view::span<N>()): `s(i, j, ...)` takes
/// *global* indices, ghost cells included, and costs `origin[(i - lo0) * s0 + (j - lo1)]`: the
/// bounds and strides are plain members a loop keeps in registers. Trivially copyable; valid
/// while the array lives and is not moved. Not bounds-checked (as `std::mdspan`).
template <class T, std::size_t N>
class tile_span {
  static_assert(N >= 1 && N <= static_cast<std::size_t>(max_dims));

 public:
  /// A view whose element lo (interior, global indices) is at `origin`, with the ghost widths and
  /// storage strides (elements) of the tile; normally made by tile_view::span<N>().
  tile_span(T* origin, const std::array<index_t, N>& lo, const std::array<index_t, N>& hi,
            const std::array<index_t, N>& ghosts, const std::array<index_t, N>& strides) noexcept
      : origin_(origin), lo_(lo), hi_(hi), ghosts_(ghosts), strides_(strides) {}

  /// The element at global indices (i, j, ...), one per dimension.
  template <std::convertible_to<index_t>... I>
  requires(sizeof...(I) == N) T& operator()(I... i) const noexcept {
    const std::array<index_t, N> e{static_cast<index_t>(i)...};
    // The last stride is 1 (row-major storage): known here, so loops over it vectorize.
    index_t o = e[N - 1] - lo_[N - 1];
    for (std::size_t d = 0; d + 1 < N; ++d)
      o += (e[d] - lo_[d]) * strides_[d];
    return origin_[o];
  }
  /// First interior index of dimension d (global); the ghost cells extend the interior by
  /// ghost(d) on either side.
  index_t lo(std::size_t d) const noexcept { return lo_[d]; }
  /// Last interior index of dimension d (global).
  index_t hi(std::size_t d) const noexcept { return hi_[d]; }
  /// Ghost width of dimension d (0 when the array has no ghosts).
  index_t ghost(std::size_t d) const noexcept { return ghosts_[d]; }
  /// Storage stride of dimension d in elements (the last one is always 1).
  index_t stride(std::size_t d) const noexcept { return strides_[d]; }
  /// The element lo(0), lo(1), ...
  T* origin() const noexcept { return origin_; }

 private:
  T* origin_;
  std::array<index_t, N> lo_, hi_, ghosts_, strides_;
};

}  // namespace gaea::ga
