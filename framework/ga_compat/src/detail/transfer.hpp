#pragma once
// The one way the layer starts a put, get or accumulate of a caller's buffer: the blocking calls
// (NGA_Put/Get/Acc, periodic pieces) wait for the request, the NGA_Nb* calls keep it.

#include <span>

#include "detail/indices.hpp"
#include "detail/types.hpp"
#include "gaea/ga/global_array.hpp"

namespace gaea::ga_compat::detail {

enum class xfer { put, get, acc };

/// Starts `op` between a[p] and `buf`, laid out with leading extents `ld`; `alpha` (acc only)
/// points to one element. gaea::error naming `fn` for a null buffer or scalar.
template <class T>
ga::request start_transfer(ga::global_array<T>& a, xfer op, const ga::patch& p, void* buf,
                           const ga::index& ld, const void* alpha, const char* fn) {
  const std::size_t n = buffer_elements(p, ld);
  switch (op) {
    case xfer::put:
      return a.put(p, std::span<const T>(buffer<T>(buf, n, fn)), ga::nonblocking, ld);
    case xfer::get:
      return a.get(p, buffer<T>(buf, n, fn), ga::nonblocking, ld);
    case xfer::acc:
      break;
  }
  return a.acc(p, std::span<const T>(buffer<T>(buf, n, fn)), ga::nonblocking,
               scalar_from<T>(alpha, fn), ld);
}

}  // namespace gaea::ga_compat::detail
