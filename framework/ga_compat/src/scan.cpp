// Segmented scans, pack/unpack and enumeration over [lo, hi] of 1-D arrays (GA_Scan_add,
// GA_Scan_copy, GA_Pack, GA_Unpack, GA_Patch_enum) on gaea::ga's scan.hpp. The mask may have any
// element type (nonzero = set); source and destination share one. Segments start at set mask
// elements only, as in GA 5.8 (ga::scan_start::mask_only).
#include <cstdint>
#include <string>
#include <type_traits>

#include "detail/state.hpp"
#include "ga.h"
#include "gaea/ga/scan.hpp"

using namespace gaea::ga_compat::detail;
namespace ga = gaea::ga;
using gaea::error;

namespace {

// fn(src, dst, mask) with the typed arrays.
template <class F>
void with_masked(const char* fn, int g_src, int g_dst, int g_mask, F f) {
  with_arrays(
      fn,
      [&](auto& src, auto& dst) { with_array(g_mask, fn, [&](auto& mask) { f(src, dst, mask); }); },
      g_src, g_dst);
}

template <class I>
void scan_add(const char* fn, int g_a, int g_b, int g_sbit, I lo, I hi, int excl) {
  api(fn, [&] {
    with_masked(fn, g_a, g_b, g_sbit, [&](auto& src, auto& dst, auto& mask) {
      ga::scan_add(src, dst, mask, lo, hi, excl != 0, ga::scan_start::mask_only);
    });
  });
}

template <class I>
void scan_copy(const char* fn, int g_a, int g_b, int g_sbit, I lo, I hi) {
  api(fn, [&] {
    with_masked(fn, g_a, g_b, g_sbit, [&](auto& src, auto& dst, auto& mask) {
      ga::scan_copy(src, dst, mask, lo, hi, ga::scan_start::mask_only);
    });
  });
}

template <class I>
void pack(const char* fn, bool unpack, int g_src, int g_dst, int g_mask, I lo, I hi, I* icount) {
  api(fn, [&] {
    if (!icount) throw error(std::string() + "null icount");
    with_masked(fn, g_src, g_dst, g_mask, [&](auto& src, auto& dst, auto& mask) {
      const ga::index_t n =
          unpack ? ga::unpack(src, dst, mask, lo, hi) : ga::pack(src, dst, mask, lo, hi);
      *icount = static_cast<I>(n);
    });
  });
}

template <class I>
void patch_enum(const char* fn, int g_a, I lo, I hi, void* start, void* inc) {
  api(fn, [&] {
    with_array(g_a, fn, [&](auto& a) {
      using T = element_of<decltype(a)>;
      ga::patch_enum(a, lo, hi, scalar_from<T>(start, fn), scalar_from<T>(inc, fn));
    });
  });
}

}  // namespace

extern "C" {

void GA_Scan_add(int g_a, int g_b, int g_sbit, int lo, int hi, int excl) {
  scan_add("GA_Scan_add", g_a, g_b, g_sbit, lo, hi, excl);
}
void GA_Scan_add64(int g_a, int g_b, int g_sbit, int64_t lo, int64_t hi, int excl) {
  scan_add("GA_Scan_add64", g_a, g_b, g_sbit, lo, hi, excl);
}
void GA_Scan_copy(int g_a, int g_b, int g_sbit, int lo, int hi) {
  scan_copy("GA_Scan_copy", g_a, g_b, g_sbit, lo, hi);
}
void GA_Scan_copy64(int g_a, int g_b, int g_sbit, int64_t lo, int64_t hi) {
  scan_copy("GA_Scan_copy64", g_a, g_b, g_sbit, lo, hi);
}
void GA_Pack(int g_src, int g_dst, int g_mask, int lo, int hi, int* icount) {
  pack("GA_Pack", false, g_src, g_dst, g_mask, lo, hi, icount);
}
void GA_Pack64(int g_src, int g_dst, int g_mask, int64_t lo, int64_t hi, int64_t* icount) {
  pack("GA_Pack64", false, g_src, g_dst, g_mask, lo, hi, icount);
}
void GA_Unpack(int g_src, int g_dst, int g_mask, int lo, int hi, int* icount) {
  pack("GA_Unpack", true, g_src, g_dst, g_mask, lo, hi, icount);
}
void GA_Unpack64(int g_src, int g_dst, int g_mask, int64_t lo, int64_t hi, int64_t* icount) {
  pack("GA_Unpack64", true, g_src, g_dst, g_mask, lo, hi, icount);
}
void GA_Patch_enum(int g_a, int lo, int hi, void* start, void* inc) {
  patch_enum("GA_Patch_enum", g_a, lo, hi, start, inc);
}
void GA_Patch_enum64(int g_a, int64_t lo, int64_t hi, void* start, void* inc) {
  patch_enum("GA_Patch_enum64", g_a, lo, hi, start, inc);
}

}  // extern "C"
