#pragma once
// GA's copies between arrays on different process groups (copy, copy_patch): collective over the
// smaller group only; each of its members moves the part in its own tiles with one-sided calls.

#include <vector>

#include "gaea/ga/global_array.hpp"

namespace gaea::ga::detail {

// Puts `part` of tile `t` (global indices inside t.box) into `other`'s patch `there` (same
// extents), or gets it from there into the tile. The tile's storage strides (ghosts, block-cyclic
// local matrices) are the buffer's leading dimensions.
template <class T>
void tile_part_transfer(const tile_view<T>& t, const patch& part, bool put,
                        const global_array<T>& other, const patch& there) {
  const std::size_t n = t.strides.size();
  std::vector<index_t> ld(n > 0 ? n - 1 : 0);
  index_t need = 1, at = 0;
  for (std::size_t d = 0; d < n; ++d) {
    if (d + 1 < n) ld[d] = t.strides[d] / t.strides[d + 1];
    need += (part.extent(static_cast<int>(d)) - 1) * t.strides[d];
    at += (part.lo[d] - t.box.lo[d]) * t.strides[d];
  }
  const user_buffer buf{t.origin + at, static_cast<std::size_t>(need), ld};
  if (put)
    other.core().put_blocking(there, buf);
  else
    other.core().get_blocking(there, buf);
}

// b[pb] = a[pa] (equal extents) where a and b live on different groups: the members of the
// smaller group take part (the other ranks do not call), as GA 5.8 does.
template <class T>
void copy_across_groups(const global_array<T>& a, const patch& pa, global_array<T>& b,
                        const patch& pb) {
  const bool put = a.group().size() <= b.group().size();
  array_core& smaller = put ? a.core() : b.core();
  a.core().fence();
  b.core().fence();
  smaller.barrier();
  const global_array<T>& mine = put ? a : b;
  const patch& here = put ? pa : pb;
  const patch& there = put ? pb : pa;
  for (const auto& t : mine.local_tiles()) {
    const patch part = t.box.intersect(here);
    if (part.empty()) continue;
    patch other = part;
    for (std::size_t d = 0; d < other.lo.size(); ++d) {
      other.lo[d] += there.lo[d] - here.lo[d];
      other.hi[d] += there.lo[d] - here.lo[d];
    }
    tile_part_transfer(t, part, put, put ? b : a, other);
  }
  if (put) b.core().fence();
  smaller.barrier();
}

}  // namespace gaea::ga::detail
