// GA's Fortran API: direct access to one block of a block-cyclic array (nga_access_block, by
// number; nga_access_block_grid, by block coordinates), to a rank's whole segment
// (nga_access_block_segment), to one ghost element, and nga_get_ghost_block. Blocks are numbered
// from 0 and their coordinates count from 0, as in GA's Fortran API; the C layer's numbering
// over its reversed grid is the same enumeration, so a block number passes through unchanged.

#include <string>

#include "detail/fortran.hpp"

using namespace gaea::ga_compat::fortran;
using gaea::error;

namespace {

fint array_f_type(int h) {
  int t = 0, n = 0;
  std::int64_t d[GA_MAX_DIM] = {};
  NGA_Inquire64(h, &t, &n, d);
  return f_type(t);
}

// The pointer a C access call gave, as an index into the MA arrays, and its leading extents.
void to_index(int h, int n, void* ptr, const std::int64_t* c_ld, findex* index, fint* ld,
              const char* fn) {
  *index = mb_index(array_f_type(h), ptr, fn);
  if (n > 1 && ld != nullptr) f_extent(c_ld, n - 1, ld, fn);
}

}  // namespace

extern "C" {

void nga_access_block_(fint* g_a, fint* idx, findex* index, fint* ld) {
  const char* fn = "nga_access_block";
  api(fn, [&] {
    const int h = handle(*g_a, fn), n = ndim_of(*g_a, fn);
    std::int64_t c_ld[GA_MAX_DIM] = {};
    void* ptr = nullptr;
    NGA_Access_block64(h, *idx, &ptr, c_ld);
    to_index(h, n, ptr, c_ld, index, ld, fn);
  });
}
void nga_access_block_grid_(fint* g_a, fint* subscript, findex* index, fint* ld) {
  const char* fn = "nga_access_block_grid";
  api(fn, [&] {
    const int h = handle(*g_a, fn), n = ndim_of(*g_a, fn);
    c_values s = c_extent(subscript, n, fn);  // block coordinates from 0: reversed only
    std::int64_t c_ld[GA_MAX_DIM] = {};
    void* ptr = nullptr;
    NGA_Access_block_grid64(h, s.data(), &ptr, c_ld);
    to_index(h, n, ptr, c_ld, index, ld, fn);
  });
}
void nga_access_block_segment_(fint* g_a, fint* proc, findex* index, fint* len) {
  const char* fn = "nga_access_block_segment";
  api(fn, [&] {
    const int h = handle(*g_a, fn);
    std::int64_t n = 0;
    void* ptr = nullptr;
    NGA_Access_block_segment64(h, static_cast<int>(*proc), &ptr, &n);
    *index = mb_index(array_f_type(h), ptr, fn);
    *len = narrow(n, fn, "segment length");
  });
}
void nga_release_block_(fint* g_a, fint* idx) {
  api("nga_release_block",
      [&] { NGA_Release_block(handle(*g_a, "nga_release_block"), static_cast<int>(*idx)); });
}
void nga_release_update_block_(fint* g_a, fint* idx) {
  api("nga_release_update_block", [&] {
    NGA_Release_update_block(handle(*g_a, "nga_release_update_block"), static_cast<int>(*idx));
  });
}
void nga_release_block_grid_(fint* g_a, fint* subscript) {
  const char* fn = "nga_release_block_grid";
  api(fn, [&] {
    const int n = ndim_of(*g_a, fn);
    int s[GA_MAX_DIM] = {};
    for (int d = 0; d < n; ++d)
      s[d] = static_cast<int>(subscript[n - 1 - d]);
    NGA_Release_block_grid(handle(*g_a, fn), s);
  });
}
void nga_release_update_block_grid_(fint* g_a, fint* subscript) {
  const char* fn = "nga_release_update_block_grid";
  api(fn, [&] {
    const int n = ndim_of(*g_a, fn);
    int s[GA_MAX_DIM] = {};
    for (int d = 0; d < n; ++d)
      s[d] = static_cast<int>(subscript[n - 1 - d]);
    NGA_Release_update_block_grid(handle(*g_a, fn), s);
  });
}
void nga_release_block_segment_(fint* g_a, fint* proc) {
  api("nga_release_block_segment", [&] {
    NGA_Release_block_segment(handle(*g_a, "nga_release_block_segment"), static_cast<int>(*proc));
  });
}
void nga_release_update_block_segment_(fint* g_a, fint* proc) {
  api("nga_release_update_block_segment", [&] {
    NGA_Release_update_block_segment(handle(*g_a, "nga_release_update_block_segment"),
                                     static_cast<int>(*proc));
  });
}

// One element of the local block with ghosts: subscript counts from 1 at the first ghost cell.
void nga_access_ghost_element_(fint* g_a, findex* index, fint* subscript, fint* ld) {
  const char* fn = "nga_access_ghost_element";
  api(fn, [&] {
    const int h = handle(*g_a, fn), n = ndim_of(*g_a, fn);
    c_values s = c_subscript(subscript, n, fn);
    std::int64_t c_ld[GA_MAX_DIM] = {};
    void* ptr = nullptr;
    NGA_Access_ghost_element64(h, &ptr, s.data(), c_ld);
    to_index(h, n, ptr, c_ld, index, ld, fn);
  });
}
void nga_release_ghost_element_(fint* g_a, fint* subscript) {
  const char* fn = "nga_release_ghost_element";
  api(fn, [&] {
    c_values s = c_subscript(subscript, ndim_of(*g_a, fn), fn);
    NGA_Release_ghost_element64(handle(*g_a, fn), s.data());
  });
}
void nga_release_update_ghost_element_(fint* g_a, fint* subscript) {
  const char* fn = "nga_release_update_ghost_element";
  api(fn, [&] {
    c_values s = c_subscript(subscript, ndim_of(*g_a, fn), fn);
    NGA_Release_update_ghost_element64(handle(*g_a, fn), s.data());
  });
}

// nga_get with the rank's own ghost cells read where the patch lies in its block with ghosts.
void nga_get_ghost_block_(fint* g_a, fint* lo, fint* hi, void* buf, fint* ld) {
  api("nga_get_ghost_block", [&] {
    nd_patch p = patch(g_a, lo, hi, "nga_get_ghost_block", ld);
    NGA_Get_ghost_block64(p.h, p.lo.data(), p.hi.data(), buf, p.ld.data());
  });
}

}  // extern "C"
