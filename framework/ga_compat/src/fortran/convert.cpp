// The Fortran API's conversions: strings, subscript order, type codes, MA indices.

#include <algorithm>
#include <cstring>

#include "detail/fortran.hpp"
#include "macdecls.h"

// The MA arrays of mafdecls.fh are Fortran common blocks (/mbc_dbl/ dbl_mb, …) that the program
// defines; weak, so that a program without them still links (its indices are then only
// consistent, never usable as dbl_mb(index)).
extern "C" {
__attribute__((weak)) extern char mbc_byte_[];
__attribute__((weak)) extern char mbc_int_[];
__attribute__((weak)) extern char mbc_log_[];
__attribute__((weak)) extern char mbc_real_[];
__attribute__((weak)) extern char mbc_dbl_[];
__attribute__((weak)) extern char mbc_scpl_[];
__attribute__((weak)) extern char mbc_dcpl_[];
}

namespace gaea::ga_compat::fortran {

namespace {

alignas(64) char fallback_base[64];

std::string str(std::int64_t v) {
  return std::to_string(v);
}

void check_ndim(int n, const char* fn) {
  if (n < 0 || n > GA_MAX_DIM)
    throw error(std::string(fn) + ": " + str(n) + " dimensions (1 to " + str(GA_MAX_DIM) + ")");
}

// The common block of a Fortran type and its element size.
struct mb_block {
  const char* base;
  std::size_t size;
};

mb_block block_of(fint type, const char* fn) {
  auto pick = [](const char* sym) -> const char* { return sym ? sym : fallback_base; };
  switch (type) {
    case MT_F_BYTE:
    case MT_C_CHAR:
      return {pick(mbc_byte_), 1};
    case MT_F_INT:
      return {pick(mbc_int_), sizeof(fint)};
    case MT_F_LOG:
      return {pick(mbc_log_), sizeof(fint)};
    case MT_F_REAL:
    case MT_C_FLOAT:
      return {pick(mbc_real_), 4};
    case MT_F_DBL:
    case MT_C_DBL:
      return {pick(mbc_dbl_), 8};
    case MT_F_SCPL:
    case MT_C_SCPL:
      return {pick(mbc_scpl_), 8};
    case MT_F_DCPL:
    case MT_C_DCPL:
      return {pick(mbc_dcpl_), 16};
    case MT_C_INT:
      if (sizeof(fint) == 4) return {pick(mbc_int_), 4};
      break;
    case MT_C_LONGINT:
    case MT_C_LONGLONG:
      if (sizeof(fint) == 8) return {pick(mbc_int_), 8};
      break;
    default:
      break;
  }
  throw error(std::string(fn) + ": type " + str(type) +
              " has no Fortran MA array (byte_mb, int_mb, log_mb, real_mb, dbl_mb, scpl_mb, "
              "dcpl_mb) in a " +
              str(sizeof(fint)) + "-byte INTEGER build");
}

}  // namespace

std::string from_fortran(const char* s, flen len) {
  if (s == nullptr) return {};
  std::size_t n = len;
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\0'))
    --n;
  return std::string(s, n);
}

void to_fortran(const std::string& v, char* s, flen len) {
  if (s == nullptr) return;
  const std::size_t n = std::min<std::size_t>(v.size(), len);
  std::memcpy(s, v.data(), n);
  std::memset(s + n, ' ', len - n);
}

c_values c_subscript(const fint* f, int ndim, const char* fn) {
  check_ndim(ndim, fn);
  c_values c;
  c.n = ndim;
  for (int i = 0; i < ndim; ++i)
    c.v[i] = static_cast<std::int64_t>(f[ndim - 1 - i]) - 1;
  return c;
}

c_values c_extent(const fint* f, int n, const char* fn) {
  check_ndim(n, fn);
  c_values c;
  c.n = n;
  for (int i = 0; i < n; ++i)
    c.v[i] = static_cast<std::int64_t>(f[n - 1 - i]);
  return c;
}

void f_subscript(const std::int64_t* c, int ndim, fint* f, const char* fn) {
  for (int i = 0; i < ndim; ++i)
    f[i] = narrow(c[ndim - 1 - i] + 1, fn, "subscript");
}

void f_extent(const std::int64_t* c, int n, fint* f, const char* fn) {
  for (int i = 0; i < n; ++i)
    f[i] = narrow(c[n - 1 - i], fn, "extent");
}

int handle(fint g_a, const char* fn) {
  if (g_a < std::numeric_limits<int>::min() || g_a > std::numeric_limits<int>::max())
    throw error(std::string(fn) + ": " + str(g_a) + " is not a global array handle");
  return static_cast<int>(g_a);
}

int ndim_of(fint g_a, const char* fn) {
  (void)fn;
  return GA_Ndim(handle(g_a, fn));
}

int c_type(fint type, const char* fn) {
  switch (type) {
    case MT_F_INT:
    case MT_F_LOG:
      return sizeof(fint) == 8 ? C_LONG : C_INT;
    case MT_F_REAL:
      return C_FLOAT;
    case MT_F_DBL:
      return C_DBL;
    case MT_F_SCPL:
      return C_SCPL;
    case MT_F_DCPL:
      return C_DCPL;
    case MT_F_BYTE:
      return C_CHAR;
    case C_CHAR:
    case C_INT:
    case C_LONG:
    case C_LONGLONG:
    case C_FLOAT:
    case C_DBL:
    case C_SCPL:
    case C_DCPL:
      return static_cast<int>(type);
    default:
      if (type >= detail::first_registered_type)
        return static_cast<int>(type);  // nga_register_type
      throw error(std::string(fn) + ": unknown type " + str(type) +
                  " (MT_INT, MT_LOG, MT_REAL, MT_DBL, MT_SCPL, MT_DCPL or a C type)");
  }
}

fint f_type(int type) {
  switch (type) {
    case C_INT:
      return sizeof(fint) == 4 ? MT_F_INT : C_INT;
    case C_LONG:
    case C_LONGLONG:
      return sizeof(fint) == 8 ? MT_F_INT : type;
    case C_FLOAT:
      return MT_F_REAL;
    case C_DBL:
      return MT_F_DBL;
    case C_SCPL:
      return MT_F_SCPL;
    case C_DCPL:
      return MT_F_DCPL;
    default:
      return type;
  }
}

std::size_t f_type_size(fint type, const char* fn) {
  return block_of(type, fn).size;
}

std::size_t mb_shift(fint type, const void* ptr, const char* fn) {
  const mb_block b = block_of(type, fn);
  const auto off = reinterpret_cast<std::intptr_t>(ptr) - reinterpret_cast<std::intptr_t>(b.base);
  const auto s = static_cast<std::intptr_t>(b.size);
  return static_cast<std::size_t>(((-off) % s + s) % s);
}

findex mb_index(fint type, const void* ptr, const char* fn) {
  const mb_block b = block_of(type, fn);
  const auto off = reinterpret_cast<std::intptr_t>(ptr) - reinterpret_cast<std::intptr_t>(b.base);
  const auto s = static_cast<std::intptr_t>(b.size);
  if (off % s != 0)
    throw error(std::string(fn) + ": the memory is not a whole number of " + str(s) +
                "-byte elements from the MA common block of type " + str(type));
  return static_cast<findex>(off / s + 1);
}

nd_patch patch(const fint* g_a, const fint* lo, const fint* hi, const char* fn, const fint* ld) {
  nd_patch p;
  p.h = handle(*g_a, fn);
  p.n = ndim_of(*g_a, fn);
  p.lo = c_subscript(lo, p.n, fn);
  p.hi = c_subscript(hi, p.n, fn);
  if (ld != nullptr && p.n > 1) p.ld = c_extent(ld, p.n - 1, fn);
  return p;
}

nd_patch patch2(const fint* g_a, const fint* ilo, const fint* ihi, const fint* jlo, const fint* jhi,
                const char* fn, const fint* ld) {
  const int n = ndim_of(*g_a, fn);
  if (n > 2)
    throw error(std::string(fn) + ": a " + std::to_string(n) +
                "-D array (the 2-D ga_ form takes 1-D and 2-D arrays; use nga_)");
  const fint lo[2] = {*ilo, *jlo}, hi[2] = {*ihi, *jhi};
  return patch(g_a, lo, hi, fn, ld);
}

}  // namespace gaea::ga_compat::fortran
