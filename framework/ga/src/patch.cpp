// gaea::ga::index and patch: size checks, extents, intersection and text.

#include "gaea/ga/patch.hpp"

#include <algorithm>

#include "gaea/base/error.hpp"

namespace gaea::ga {

void index::check_size(std::size_t n) {
  if (n > static_cast<std::size_t>(max_dims))
    throw error("gaea::ga::index: " + std::to_string(n) + " dimensions; 1 to " +
                std::to_string(max_dims) + " are supported");
}

bool patch::empty() const noexcept {
  for (std::size_t d = 0; d < lo.size(); ++d)
    if (lo[d] > hi[d]) return true;
  return false;
}

index_t patch::extent(int d) const noexcept {
  const auto i = static_cast<std::size_t>(d);
  return lo[i] > hi[i] ? 0 : hi[i] - lo[i] + 1;
}

index_t patch::elements() const noexcept {
  if (lo.empty() || empty()) return 0;
  index_t n = 1;
  for (int d = 0; d < ndim(); ++d)
    n *= extent(d);
  return n;
}

patch patch::intersect(const patch& o) const {
  patch r{lo, hi};
  for (std::size_t d = 0; d < lo.size(); ++d) {
    r.lo[d] = std::max(lo[d], o.lo[d]);
    r.hi[d] = std::min(hi[d], o.hi[d]);
  }
  return r;
}

std::string patch::str() const {
  std::string s = "[";
  for (std::size_t d = 0; d < lo.size(); ++d) {
    if (d) s += ", ";
    s += std::to_string(lo[d]) + ":" + std::to_string(hi[d]);
  }
  return s + "]";
}

}  // namespace gaea::ga
