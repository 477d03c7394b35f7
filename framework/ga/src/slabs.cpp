// Slabs for the owner-computes algorithms: this rank's tiles, or their part in a region, cut
// into pieces of bounded size.

#include "detail/slabs.hpp"

#include "detail/patch_apply.hpp"

#include <algorithm>

namespace gaea::ga::detail {

std::vector<slab> local_slabs(const distribution& d, int rank, index_t max_elems) {
  std::vector<slab> out;
  for (const tile& t : d.tiles(rank)) {
    const index_t per_index = t.box.elements() / t.box.extent(0);  // elements per index of dim 0
    const index_t step = std::max<index_t>(1, max_elems / std::max<index_t>(per_index, 1));
    for (index_t i = t.box.lo[0]; i <= t.box.hi[0]; i += step) {
      patch b = t.box;
      b.lo[0] = i;
      b.hi[0] = std::min(t.box.hi[0], i + step - 1);
      out.push_back({t, b});
    }
  }
  return out;
}

std::vector<slab> patch_slabs(const distribution& d, int rank, const patch& region,
                              index_t max_elems) {
  std::vector<slab> out;
  const auto cut = static_cast<std::size_t>(live_dims(region)[0]);
  const int c = static_cast<int>(cut);
  for (const tile& t : d.tiles(rank)) {
    const patch piece = t.box.intersect(region);
    if (piece.empty()) continue;
    const index_t per_index = piece.elements() / piece.extent(c);
    const index_t step = std::max<index_t>(1, max_elems / std::max<index_t>(per_index, 1));
    for (index_t i = piece.lo[cut]; i <= piece.hi[cut]; i += step) {
      patch b = piece;
      b.lo[cut] = i;
      b.hi[cut] = std::min(piece.hi[cut], i + step - 1);
      out.push_back({t, b});
    }
  }
  return out;
}

}  // namespace gaea::ga::detail
