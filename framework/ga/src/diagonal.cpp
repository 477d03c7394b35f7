// Diagonal, row/column scaling and symmetrize: owner-computes over the matrix's tiles, with the
// vector's part of each tile (a contiguous 1-D range) moved by one get or put per tile.
#include <algorithm>
#include <complex>
#include <vector>

#include "detail/slabs.hpp"
#include "gaea/ga/detail/elements.hpp"
#include "gaea/ga/diagonal.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga {

namespace {

template <class T>
void require_matrix(const char* what, const global_array<T>& a) {
  if (a.ndim() != 2)
    throw error(std::string("ga::") + what + ": '" + a.name() + "' has " +
                std::to_string(a.ndim()) + " dimensions; a matrix (2) is needed");
}

// v must be 1-D of length n; `role` says which length that is.
template <class T>
void require_vector(const char* what, const global_array<T>& a, const global_array<T>& v, index_t n,
                    const char* role) {
  if (v.ndim() != 1 || v.dims()[0] != n)
    throw error(std::string("ga::") + what + ": " + detail::shape_of(v) + ", but " +
                detail::shape_of(a) + ", so it must be [" + std::to_string(n) + "] (" + role + ")");
}

template <class T>
index_t diagonal_length(const global_array<T>& a) {
  return std::min(a.dims()[0], a.dims()[1]);
}

// Diagonal indices i of a tile: [lo, hi] (empty when lo > hi).
struct span1 {
  index_t lo, hi;
  bool empty() const { return lo > hi; }
  index_t size() const { return hi - lo + 1; }
};
span1 diagonal_of(const patch& box) {
  return {std::max(box.lo[0], box.lo[1]), std::min(box.hi[0], box.hi[1])};
}

patch range(span1 s) {
  return {{s.lo}, {s.hi}};
}

// Reads v[s] for every tile (all gets in flight together), then calls fn(tile, s, values).
template <class T, class Sel, class Fn>
void with_vector_parts(global_array<T>& a, const global_array<T>& v, Sel select, Fn fn) {
  auto tiles = a.local_tiles();
  std::vector<std::vector<T>> parts(tiles.size());
  std::vector<request> pending;
  std::vector<span1> spans;
  for (std::size_t k = 0; k < tiles.size(); ++k) {
    const span1 s = select(tiles[k].box);
    spans.push_back(s);
    if (s.empty()) continue;
    parts[k].resize(static_cast<std::size_t>(s.size()));
    pending.push_back(v.core().get(range(s), {parts[k].data(), parts[k].size(), {}}));
  }
  wait_all(pending);
  for (std::size_t k = 0; k < tiles.size(); ++k)
    if (!spans[k].empty()) fn(tiles[k], spans[k], parts[k]);
}

template <class T, class F>
void on_diagonal(const char* what, global_array<T>& a, F f) {
  require_matrix(what, a);
  detail::begin_collective(a);
  for (const auto& t : a.local_tiles()) {
    const span1 s = diagonal_of(t.box);
    for (index_t i = s.lo; i <= s.hi; ++i) {
      T& x = t.at({i, i});
      x = f(x);
    }
  }
  a.core().barrier();
}

}  // namespace

template <element T>
void get_diagonal(const global_array<T>& a, global_array<T>& v) {
  require_matrix("get_diagonal", a);
  require_vector("get_diagonal", a, v, diagonal_length(a), "the diagonal's length");
  detail::begin_collective(a, v);
  std::vector<std::vector<T>> parts;
  std::vector<request> pending;
  for (const auto& t : a.local_tiles()) {
    const span1 s = diagonal_of(t.box);
    if (s.empty()) continue;
    std::vector<T>& part = parts.emplace_back();
    for (index_t i = s.lo; i <= s.hi; ++i)
      part.push_back(t.at({i, i}));
    pending.push_back(v.core().put(range(s), {part.data(), part.size(), {}}));
  }
  wait_all(pending);
  v.sync();  // the puts are complete at their owners everywhere
}

template <element T>
void set_diagonal(global_array<T>& a, const global_array<T>& v) {
  require_matrix("set_diagonal", a);
  require_vector("set_diagonal", a, v, diagonal_length(a), "the diagonal's length");
  detail::begin_collective(a, v);
  with_vector_parts(a, v, diagonal_of, [](const tile_view<T>& t, span1 s, std::vector<T>& x) {
    for (index_t i = s.lo; i <= s.hi; ++i)
      t.at({i, i}) = x[static_cast<std::size_t>(i - s.lo)];
  });
  a.core().barrier();
}

template <element T>
void add_diagonal(global_array<T>& a, const global_array<T>& v) {
  require_matrix("add_diagonal", a);
  require_vector("add_diagonal", a, v, diagonal_length(a), "the diagonal's length");
  detail::begin_collective(a, v);
  with_vector_parts(a, v, diagonal_of, [](const tile_view<T>& t, span1 s, std::vector<T>& x) {
    for (index_t i = s.lo; i <= s.hi; ++i) {
      T& y = t.at({i, i});
      y = static_cast<T>(y + x[static_cast<std::size_t>(i - s.lo)]);
    }
  });
  a.core().barrier();
}

template <element T>
void shift_diagonal(global_array<T>& a, T c) {
  on_diagonal("shift_diagonal", a, [c](T x) { return static_cast<T>(x + c); });
}

template <element T>
void zero_diagonal(global_array<T>& a) {
  on_diagonal("zero_diagonal", a, [](T) { return T(0); });
}

template <element T>
void scale_rows(global_array<T>& a, const global_array<T>& v) {
  require_matrix("scale_rows", a);
  require_vector("scale_rows", a, v, a.dims()[0], "the number of rows");
  detail::begin_collective(a, v);
  auto rows = [](const patch& b) { return span1{b.lo[0], b.hi[0]}; };
  with_vector_parts(a, v, rows, [](const tile_view<T>& t, span1 s, std::vector<T>& x) {
    for (index_t i = s.lo; i <= s.hi; ++i)
      for (index_t j = t.box.lo[1]; j <= t.box.hi[1]; ++j) {
        T& y = t.at({i, j});
        y = static_cast<T>(y * x[static_cast<std::size_t>(i - s.lo)]);
      }
  });
  a.core().barrier();
}

template <element T>
void scale_cols(global_array<T>& a, const global_array<T>& v) {
  require_matrix("scale_cols", a);
  require_vector("scale_cols", a, v, a.dims()[1], "the number of columns");
  detail::begin_collective(a, v);
  auto cols = [](const patch& b) { return span1{b.lo[1], b.hi[1]}; };
  with_vector_parts(a, v, cols, [](const tile_view<T>& t, span1 s, std::vector<T>& x) {
    for (index_t i = t.box.lo[0]; i <= t.box.hi[0]; ++i)
      for (index_t j = s.lo; j <= s.hi; ++j) {
        T& y = t.at({i, j});
        y = static_cast<T>(y * x[static_cast<std::size_t>(j - s.lo)]);
      }
  });
  a.core().barrier();
}

template <element T>
void symmetrize(global_array<T>& a) {
  require_matrix("symmetrize", a);
  if (a.dims()[0] != a.dims()[1])
    throw error("ga::symmetrize: " + detail::shape_of(a) + "; a square matrix is needed");
  detail::begin_collective(a);
  // Read every tile's mirror block first; write only after every rank has read.
  const auto tiles = a.local_tiles();
  std::vector<std::vector<T>> mirror(tiles.size());
  std::vector<request> pending;
  for (std::size_t k = 0; k < tiles.size(); ++k) {
    const patch& b = tiles[k].box;
    mirror[k].resize(static_cast<std::size_t>(b.elements()));
    pending.push_back(a.core().get(patch{{b.lo[1], b.lo[0]}, {b.hi[1], b.hi[0]}},
                                   {mirror[k].data(), mirror[k].size(), {}}));
  }
  wait_all(pending);
  a.core().barrier();
  for (std::size_t k = 0; k < tiles.size(); ++k) {
    const auto& t = tiles[k];
    const index_t rows = t.box.extent(0);  // the mirror block is cols x rows, row-major
    for (index_t i = t.box.lo[0]; i <= t.box.hi[0]; ++i)
      for (index_t j = t.box.lo[1]; j <= t.box.hi[1]; ++j) {
        T& y = t.at({i, j});
        const T m =
            mirror[k][static_cast<std::size_t>((j - t.box.lo[1]) * rows + (i - t.box.lo[0]))];
        y = static_cast<T>((y + m) / T(2));
      }
  }
  a.core().barrier();
}

#define GAEA_GA_INSTANTIATE(T, tag, name)                                  \
  template void get_diagonal<T>(const global_array<T>&, global_array<T>&); \
  template void set_diagonal<T>(global_array<T>&, const global_array<T>&); \
  template void add_diagonal<T>(global_array<T>&, const global_array<T>&); \
  template void shift_diagonal<T>(global_array<T>&, T);                    \
  template void zero_diagonal<T>(global_array<T>&);                        \
  template void scale_rows<T>(global_array<T>&, const global_array<T>&);   \
  template void scale_cols<T>(global_array<T>&, const global_array<T>&);   \
  template void symmetrize<T>(global_array<T>&);
GAEA_GA_FOR_EACH_ELEMENT(GAEA_GA_INSTANTIATE)
#undef GAEA_GA_INSTANTIATE

}  // namespace gaea::ga
