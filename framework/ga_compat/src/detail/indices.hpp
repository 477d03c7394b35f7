#pragma once
// Conversions of GA's C index arguments (int or int64_t arrays, C order, 0-based, inclusive)
// to Gaea's patches, leading extents and buffer spans. Templated on the index type so that
// every NGA_* call and its 64-bit twin share one implementation.

#include <cstdint>
#include <span>
#include <string>

#include "gaea/base/error.hpp"
#include "gaea/ga/patch.hpp"

namespace gaea::ga_compat::detail {

/// `n` entries of `v` as a ga::index; gaea::error naming `what` when `v` is null or n is out of
/// 1..7.
template <class I>
ga::index to_index(const I* v, int n, const char* what) {
  if (n < 0 || n > ga::max_dims)
    throw error(std::string(what) + ": " + std::to_string(n) + " dimensions (1 to " +
                std::to_string(ga::max_dims) + " supported)");
  if (v == nullptr && n > 0) throw error(std::string(what) + " is a null pointer");
  ga::index out;
  for (int d = 0; d < n; ++d)
    out.push_back(static_cast<ga::index_t>(v[d]));
  return out;
}

/// The patch [lo, hi] of an `ndim`-dimensional array.
template <class I>
ga::patch to_patch(const I* lo, const I* hi, int ndim) {
  return {to_index(lo, ndim, "lo"), to_index(hi, ndim, "hi")};
}

/// Writes `v` into the caller's array of `n` entries.
template <class I>
void from_index(const ga::index& v, I* out, const char* what) {
  if (out == nullptr) throw error(std::string(what) + " is a null pointer");
  for (std::size_t d = 0; d < v.size(); ++d)
    out[d] = static_cast<I>(v[d]);
}

/// The leading extents of a local buffer (ndim-1 entries; none for 1-D). A null `ld` means
/// the patch's own extents (GA requires `ld` for ndim > 1; accepting null is harmless).
template <class I>
ga::index to_ld(const I* ld, const ga::patch& p) {
  if (p.ndim() <= 1 || ld == nullptr) {
    ga::index out;
    for (int d = 1; d < p.ndim(); ++d)
      out.push_back(p.extent(d));
    return out;
  }
  return to_index(ld, p.ndim() - 1, "ld");
}

/// Elements a buffer laid out with leading extents `ld` needs to hold patch `p` (the offset of
/// its last element plus one). Validation of ld against the extents is Gaea's.
inline std::size_t buffer_elements(const ga::patch& p, const ga::index& ld) {
  if (p.empty()) return 0;
  std::int64_t stride = 1, last = 0;
  for (int d = p.ndim() - 1; d >= 0; --d) {
    last += (p.extent(d) - 1) * stride;
    if (d > 0) stride *= std::max<std::int64_t>(ld[static_cast<std::size_t>(d - 1)], 1);
  }
  return static_cast<std::size_t>(last + 1);
}

/// A typed span over a caller's `void*` buffer of `n` elements.
template <class T>
std::span<T> buffer(void* buf, std::size_t n, const char* fn_name) {
  if (buf == nullptr && n > 0) throw error(std::string(fn_name) + ": null buffer");
  return {static_cast<T*>(buf), n};
}

}  // namespace gaea::ga_compat::detail
