// GA's Fortran API: transfers of one field of each element (nga_get_field, nga_put_field and
// their non-blocking forms) over the C layer's: `fsize` bytes at byte `foff` of every element of
// a patch, packed in the buffer (leading extents `ld` counted in fields).

#include <limits>
#include <string>

#include "detail/fortran.hpp"

using namespace gaea::ga_compat::fortran;
using gaea::error;

namespace {

// The C field calls take `int` subscripts.
struct int_patch {
  int h = 0;
  int lo[GA_MAX_DIM] = {}, hi[GA_MAX_DIM] = {}, ld[GA_MAX_DIM] = {};
};

int to_int(std::int64_t v, const char* fn) {
  if (v > std::numeric_limits<int>::max() || v < std::numeric_limits<int>::min())
    throw error(std::string(fn) + ": subscript or extent " + std::to_string(v) +
                " beyond the C field calls' int");
  return static_cast<int>(v);
}

int_patch field_patch(const fint* g_a, const fint* lo, const fint* hi, const fint* ld,
                      const char* fn) {
  const nd_patch p = patch(g_a, lo, hi, fn, ld);
  int_patch r;
  r.h = p.h;
  for (int d = 0; d < p.n; ++d) {
    r.lo[d] = to_int(p.lo.v[static_cast<std::size_t>(d)], fn);
    r.hi[d] = to_int(p.hi.v[static_cast<std::size_t>(d)], fn);
    if (d + 1 < p.n) r.ld[d] = to_int(p.ld.v[static_cast<std::size_t>(d)], fn);
  }
  return r;
}

template <class Call>
void field(const char* fn, fint* g_a, fint* lo, fint* hi, fint* foff, fint* fsize, void* buf,
           fint* ld, Call call) {
  api(fn, [&] {
    int_patch p = field_patch(g_a, lo, hi, ld, fn);
    call(p.h, p.lo, p.hi, to_int(*foff, fn), to_int(*fsize, fn), buf, p.ld);
  });
}
template <class Call>
void field_nb(const char* fn, fint* g_a, fint* lo, fint* hi, fint* foff, fint* fsize, void* buf,
              fint* ld, fint* nb, Call call) {
  api(fn, [&] {
    int_patch p = field_patch(g_a, lo, hi, ld, fn);
    ga_nbhdl_t h = 0;
    call(p.h, p.lo, p.hi, to_int(*foff, fn), to_int(*fsize, fn), buf, p.ld, &h);
    *nb = narrow(h, fn, "request handle");
  });
}

}  // namespace

extern "C" {

void nga_get_field_(fint* g_a, fint* lo, fint* hi, fint* foff, fint* fsize, void* buf, fint* ld) {
  field("nga_get_field", g_a, lo, hi, foff, fsize, buf, ld, NGA_Get_field);
}
void nga_put_field_(fint* g_a, fint* lo, fint* hi, fint* foff, fint* fsize, void* buf, fint* ld) {
  field("nga_put_field", g_a, lo, hi, foff, fsize, buf, ld, NGA_Put_field);
}
void nga_nbget_field_(fint* g_a, fint* lo, fint* hi, fint* foff, fint* fsize, void* buf, fint* ld,
                      fint* nb) {
  field_nb("nga_nbget_field", g_a, lo, hi, foff, fsize, buf, ld, nb, NGA_Nbget_field);
}
void nga_nbput_field_(fint* g_a, fint* lo, fint* hi, fint* foff, fint* fsize, void* buf, fint* ld,
                      fint* nb) {
  field_nb("nga_nbput_field", g_a, lo, hi, foff, fsize, buf, ld, nb, NGA_Nbput_field);
}

}  // extern "C"
