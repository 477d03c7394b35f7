#pragma once
// GA's Fortran API over the C layer: the Fortran INTEGER type and the conversions every wrapper
// needs. The src/fortran/*.cpp files are compiled twice, with GAEA_FORTRAN_INTEGER_BYTES 4
// (default INTEGER) and 8 (-fdefault-integer-8): one library per size, same symbol names.

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "detail/state.hpp"
#include "ga.h"

#if !defined(GAEA_FORTRAN_INTEGER_BYTES) || \
    (GAEA_FORTRAN_INTEGER_BYTES != 4 && GAEA_FORTRAN_INTEGER_BYTES != 8)
#error "GAEA_FORTRAN_INTEGER_BYTES must be 4 or 8"
#endif

namespace gaea::ga_compat::fortran {

/// Fortran default INTEGER (and LOGICAL, which has its size) of this build.
using fint = std::conditional_t<GAEA_FORTRAN_INTEGER_BYTES == 8, std::int64_t, std::int32_t>;
/// GA_ACCESS_INDEX_TYPE and MA_ACCESS_INDEX_TYPE, an index into the MA arrays (dbl_mb, …):
/// integer*8 in both builds, as GA's on 64-bit platforms (a global array's memory lies further
/// than 2^31 elements from the MA common blocks).
using findex = std::int64_t;
/// The length gfortran passes (by value, after the other arguments) for each CHARACTER argument.
using flen = std::size_t;

using detail::api;

/// Fortran .true./.false. as gfortran stores them.
constexpr fint to_logical(bool b) {
  return b ? 1 : 0;
}

/// A CHARACTER argument without its blank padding.
std::string from_fortran(const char* s, flen len);
/// Copies `v` into a CHARACTER argument, blank padded (cut when longer).
void to_fortran(const std::string& v, char* s, flen len);

/// `v` as a Fortran INTEGER; gaea::error naming `fn` and `what` when it does not fit (a 4-byte
/// INTEGER build given a value beyond 2^31).
template <class I>
fint narrow(I v, const char* fn, const char* what) {
  if constexpr (sizeof(I) > sizeof(fint) || std::is_unsigned_v<I>) {
    if (v > static_cast<I>(std::numeric_limits<fint>::max()) ||
        (std::is_signed_v<I> && v < static_cast<I>(std::numeric_limits<fint>::min())))
      throw error(std::string(fn) + ": " + what + " " + std::to_string(v) + " does not fit a " +
                  std::to_string(sizeof(fint)) +
                  "-byte INTEGER (build with -fdefault-integer-8 and link "
                  "gaea_ga_compat_fortran_i8)");
  }
  return static_cast<fint>(v);
}

/// Up to GA_MAX_DIM 64-bit values in the C layer's order, for its `64` calls.
struct c_values {
  std::array<std::int64_t, GA_MAX_DIM> v{};
  int n = 0;
  std::int64_t* data() { return v.data(); }
};

/// Fortran subscripts (1-based, first index fastest) of an ndim array in C order (0-based, last
/// fastest): reversed, minus one.
c_values c_subscript(const fint* f, int ndim, const char* fn);
/// Fortran extents (dims, chunk, ld, block, nblock) in C order: reversed.
c_values c_extent(const fint* f, int n, const char* fn);
/// C subscripts (0-based) back to Fortran's order and base.
void f_subscript(const std::int64_t* c, int ndim, fint* f, const char* fn);
/// C extents back to Fortran's order.
void f_extent(const std::int64_t* c, int n, fint* f, const char* fn);

/// A patch of an array and the leading extents of a local buffer, in the C layer's terms.
struct nd_patch {
  int h = 0;  ///< the C layer's handle
  int n = 0;  ///< dimensions
  c_values lo, hi, ld;
};
/// The patch lo..hi (Fortran subscripts) of array g_a, with a buffer's leading extents `ld`
/// (n-1 of them; none when null, or for a 1-D array).
nd_patch patch(const fint* g_a, const fint* lo, const fint* hi, const char* fn,
               const fint* ld = nullptr);
/// The 2-D (ga_) forms' patch: rows ilo..ihi, columns jlo..jhi (a 1-D array takes ilo..ihi
/// only); gaea::error naming `fn` for an array of more dimensions.
nd_patch patch2(const fint* g_a, const fint* ilo, const fint* ihi, const fint* jlo, const fint* jhi,
                const char* fn, const fint* ld = nullptr);

/// Dimensions of array `g_a` (checks the handle).
int ndim_of(fint g_a, const char* fn);
/// The C layer's handle for a Fortran one.
int handle(fint g_a, const char* fn);

/// The C type code of a type a Fortran program names (MT_F_INT is an INTEGER of this build's
/// size, MT_F_DBL is C_DBL, …); C codes pass through.
int c_type(fint type, const char* fn);
/// The Fortran type code (MT_F_*) of a C type code, for inquiries.
fint f_type(int type);

/// Element size of Fortran/C MA type code `type` in this build (MT_F_INT: sizeof(fint)).
std::size_t f_type_size(fint type, const char* fn);

/// GA's Fortran index of `ptr` into the MA common block of Fortran type `type` (dbl_mb for
/// MT_F_DBL, int_mb for MT_F_INT, …): ptr is element index(1-based) of that array. gaea::error
/// naming `fn` when `ptr` is not a whole number of elements from the block.
findex mb_index(fint type, const void* ptr, const char* fn);
/// Bytes `ptr` must move up so that mb_index can name it (0 unless the common block is less
/// aligned than the element size).
std::size_t mb_shift(fint type, const void* ptr, const char* fn);

/// The first character of a Fortran CHARACTER argument ('N' when it is empty).
inline char flag(const char* s, flen len) {
  return len > 0 && s != nullptr ? s[0] : 'N';
}

/// The C handle of Fortran handle *g_a.
inline int h(const fint* g_a) {
  return handle(*g_a, "GA Fortran call");
}

/// ga_[sdcz]gemm: C = alpha op(A) op(B) + beta C, computed as C' = op(B') op(A') since the C
/// layer sees Fortran's column-major matrices transposed.
template <auto Gemm, class S>
void gemm(const char* name, const char* ta, const char* tb, fint* m, fint* n, fint* k, S* alpha,
          fint* g_a, fint* g_b, S* beta, fint* g_c, flen la, flen lb) {
  api(name,
      [&] { Gemm(flag(tb, lb), flag(ta, la), *n, *m, *k, *alpha, h(g_b), h(g_a), *beta, h(g_c)); });
}

}  // namespace gaea::ga_compat::fortran
