// update_ghosts_async: every ghost region of every local tile is read with one get per source piece
// straight into the ghost cells of local storage (corners included: diagonal regions are read
// from the diagonal owners). Periodic boundaries wrap the source indices.
#include <vector>

#include "detail/op_state.hpp"
#include "gaea/comm/segment.hpp"
#include "gaea/ga/detail/array_core.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga::detail {

namespace {
// A contiguous run [lo, hi] of global indices along one dimension and the shift that brings it
// back into [0, dims) (0 when it is inside already).
struct run {
  index_t lo, hi, shift;
};

// The in-range parts of [a, b] (|a|, |b| within one period of the array), wrapped if periodic.
std::vector<run> wrap(index_t a, index_t b, index_t dims, bool periodic) {
  std::vector<run> out;
  const index_t bounds[3][2] = {{-dims, -1}, {0, dims - 1}, {dims, 2 * dims - 1}};
  const index_t shift[3] = {dims, 0, -dims};
  for (int k = 0; k < 3; ++k) {
    if (k != 1 && !periodic) continue;
    const index_t lo = std::max(a, bounds[k][0]), hi = std::min(b, bounds[k][1]);
    if (lo <= hi) out.push_back({lo, hi, shift[k]});
  }
  return out;
}
}  // namespace

ghost_request array_core::update_ghosts_async(bool periodic) {
  sync();  // interiors are final everywhere
  std::unique_ptr<op_state> st;
  if (dist_.has_ghosts()) {
    st = start(op::update_ghosts);
    const int n = dist_.ndim();
    const auto un = static_cast<std::size_t>(n);
    const index& g = dist_.ghosts();
    const index& dims = dist_.dims();
    auto* base = static_cast<std::byte*>(seg_->local_base());
    const index_t storage = dist_.storage_elements(rank_);
    for (const tile& t : local_tiles_) {
      index ld(un > 1 ? un - 1 : 0);
      for (std::size_t d = 1; d < un; ++d)
        ld[d - 1] = t.box.extent(static_cast<int>(d)) + 2 * g[d];
      // Every direction in {-1, 0, 1}^n except the tile itself.
      index dir(un, -1);
      while (true) {
        bool self = true, usable = true;
        std::vector<std::vector<run>> runs(un);
        for (std::size_t d = 0; d < un; ++d) {
          if (dir[d] != 0) self = false;
          if (dir[d] != 0 && g[d] == 0) usable = false;
          index_t a = t.box.lo[d], b = t.box.hi[d];
          if (dir[d] < 0) a = t.box.lo[d] - g[d], b = t.box.lo[d] - 1;
          if (dir[d] > 0) a = t.box.hi[d] + 1, b = t.box.hi[d] + g[d];
          runs[d] = wrap(a, b, dims[d], periodic);
          if (runs[d].empty()) usable = false;
        }
        if (!self && usable) {
          // Cartesian product of the runs: one get per source piece.
          std::vector<std::size_t> k(un, 0);
          while (true) {
            patch src{index(un), index(un)};
            index dst(un);
            for (std::size_t d = 0; d < un; ++d) {
              const run& r = runs[d][k[d]];
              src.lo[d] = r.lo + r.shift;
              src.hi[d] = r.hi + r.shift;
              dst[d] = r.lo;
            }
            const index_t off = dist_.storage_offset(t, dst);
            get(src,
                user_buffer{base + static_cast<std::size_t>(off) * ops_.size,
                            static_cast<std::size_t>(storage - off), ld},
                *st);
            std::size_t d = un;
            while (d-- > 0) {
              if (++k[d] < runs[d].size()) break;
              k[d] = 0;
            }
            if (d == static_cast<std::size_t>(-1)) break;
          }
        }
        std::size_t d = un;
        while (d-- > 0) {
          if (++dir[d] <= 1) break;
          dir[d] = -1;
        }
        if (d == static_cast<std::size_t>(-1)) break;
      }
    }
  }
  return {st ? request(std::move(st)) : request(),
          [rt = &rt_, g = group_, world = on_world_] { group_barrier(*rt, g, world); }};
}

}  // namespace gaea::ga::detail
