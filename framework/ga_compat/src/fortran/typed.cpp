// GA's typed Fortran spellings of the whole-array and patch operations: ga_[cdisz]add,
// ga_[cdisz]add_patch, ga_[cdisz]fill_patch, ga_[cdisz]scal(e), ga_[cdisz]scal_patch and
// their nga_ forms, plus ga_sgemm and ga_cgemm. Each is the generic call (math.cpp) with the
// scalar's type checked against the array's: MT_INT scalars are this build's INTEGER. GA's own
// integer ga_iscal* reject every array (a test that is always true); here they work.

#include <string>

#include "detail/fortran.hpp"

using namespace gaea::ga_compat::fortran;
using gaea::error;

extern "C" {
// The generic forms (math.cpp).
void ga_add_(void* alpha, fint* g_a, void* beta, fint* g_b, fint* g_c);
void nga_add_patch_(void* alpha, fint* g_a, fint* alo, fint* ahi, void* beta, fint* g_b, fint* blo,
                    fint* bhi, fint* g_c, fint* clo, fint* chi);
void ga_add_patch_(void* alpha, fint* g_a, fint* ailo, fint* aihi, fint* ajlo, fint* ajhi,
                   void* beta, fint* g_b, fint* bilo, fint* bihi, fint* bjlo, fint* bjhi, fint* g_c,
                   fint* cilo, fint* cihi, fint* cjlo, fint* cjhi);
void nga_fill_patch_(fint* g_a, fint* lo, fint* hi, void* value);
void ga_fill_patch_(fint* g_a, fint* ilo, fint* ihi, fint* jlo, fint* jhi, void* value);
void ga_scale_(fint* g_a, void* alpha);
void nga_scale_patch_(fint* g_a, fint* lo, fint* hi, void* alpha);
void ga_scale_patch_(fint* g_a, fint* ilo, fint* ihi, fint* jlo, fint* jhi, void* alpha);
}

namespace {

// gaea::error naming `fn` unless array g_a holds elements of Fortran type `type`.
void require_type(const fint* g_a, fint type, const char* fn) {
  api(fn, [&] {
    int t = 0, n = 0;
    std::int64_t d[GA_MAX_DIM] = {};
    NGA_Inquire64(h(g_a), &t, &n, d);
    if (t != c_type(type, fn))
      throw error(std::string(fn) + ": the array's elements are not of the scalar's type");
  });
}

}  // namespace

// One family per element type: `L` the letter, `T` the MT_ code.
#define GAEA_GA_TYPED_FAMILY(L, T)                                                                \
  void nga_##L##add_(void* alpha, fint* g_a, void* beta, fint* g_b, fint* g_c) {                  \
    require_type(g_c, T, "nga_" #L "add");                                                        \
    ga_add_(alpha, g_a, beta, g_b, g_c);                                                          \
  }                                                                                               \
  void ga_##L##add_patch_(void* alpha, fint* g_a, fint* ailo, fint* aihi, fint* ajlo, fint* ajhi, \
                          void* beta, fint* g_b, fint* bilo, fint* bihi, fint* bjlo, fint* bjhi,  \
                          fint* g_c, fint* cilo, fint* cihi, fint* cjlo, fint* cjhi) {            \
    require_type(g_c, T, "ga_" #L "add_patch");                                                   \
    ga_add_patch_(alpha, g_a, ailo, aihi, ajlo, ajhi, beta, g_b, bilo, bihi, bjlo, bjhi, g_c,     \
                  cilo, cihi, cjlo, cjhi);                                                        \
  }                                                                                               \
  void nga_##L##add_patch_(void* alpha, fint* g_a, fint* alo, fint* ahi, void* beta, fint* g_b,   \
                           fint* blo, fint* bhi, fint* g_c, fint* clo, fint* chi) {               \
    require_type(g_c, T, "nga_" #L "add_patch");                                                  \
    nga_add_patch_(alpha, g_a, alo, ahi, beta, g_b, blo, bhi, g_c, clo, chi);                     \
  }                                                                                               \
  void ga_##L##fill_patch_(fint* g_a, fint* ilo, fint* ihi, fint* jlo, fint* jhi, void* v) {      \
    require_type(g_a, T, "ga_" #L "fill_patch");                                                  \
    ga_fill_patch_(g_a, ilo, ihi, jlo, jhi, v);                                                   \
  }                                                                                               \
  void nga_##L##fill_patch_(fint* g_a, fint* lo, fint* hi, void* v) {                             \
    require_type(g_a, T, "nga_" #L "fill_patch");                                                 \
    nga_fill_patch_(g_a, lo, hi, v);                                                              \
  }                                                                                               \
  void ga_##L##scale_(fint* g_a, void* alpha) {                                                   \
    require_type(g_a, T, "ga_" #L "scale");                                                       \
    ga_scale_(g_a, alpha);                                                                        \
  }                                                                                               \
  void nga_##L##scale_(fint* g_a, void* alpha) {                                                  \
    require_type(g_a, T, "nga_" #L "scale");                                                      \
    ga_scale_(g_a, alpha);                                                                        \
  }                                                                                               \
  void ga_##L##scal_patch_(fint* g_a, fint* ilo, fint* ihi, fint* jlo, fint* jhi, void* alpha) {  \
    require_type(g_a, T, "ga_" #L "scal_patch");                                                  \
    ga_scale_patch_(g_a, ilo, ihi, jlo, jhi, alpha);                                              \
  }                                                                                               \
  void nga_##L##scale_patch_(fint* g_a, fint* lo, fint* hi, void* alpha) {                        \
    require_type(g_a, T, "nga_" #L "scale_patch");                                                \
    nga_scale_patch_(g_a, lo, hi, alpha);                                                         \
  }

extern "C" {

GAEA_GA_TYPED_FAMILY(c, MT_F_SCPL)
GAEA_GA_TYPED_FAMILY(d, MT_F_DBL)
GAEA_GA_TYPED_FAMILY(i, MT_F_INT)
GAEA_GA_TYPED_FAMILY(s, MT_F_REAL)
GAEA_GA_TYPED_FAMILY(z, MT_F_DCPL)

// ga_dscal and ga_dadd are in math.cpp; the other ga_[cisz]scal and ga_[cisz]add spellings:
void ga_cadd_(void* alpha, fint* g_a, void* beta, fint* g_b, fint* g_c) {
  nga_cadd_(alpha, g_a, beta, g_b, g_c);
}
void ga_iadd_(void* alpha, fint* g_a, void* beta, fint* g_b, fint* g_c) {
  nga_iadd_(alpha, g_a, beta, g_b, g_c);
}
void ga_sadd_(void* alpha, fint* g_a, void* beta, fint* g_b, fint* g_c) {
  nga_sadd_(alpha, g_a, beta, g_b, g_c);
}
void ga_zadd_(void* alpha, fint* g_a, void* beta, fint* g_b, fint* g_c) {
  nga_zadd_(alpha, g_a, beta, g_b, g_c);
}
void ga_cscal_(fint* g_a, void* alpha) {
  ga_cscale_(g_a, alpha);
}
void ga_iscal_(fint* g_a, void* alpha) {
  ga_iscale_(g_a, alpha);
}
void ga_sscal_(fint* g_a, void* alpha) {
  ga_sscale_(g_a, alpha);
}
void ga_zscal_(fint* g_a, void* alpha) {
  ga_zscale_(g_a, alpha);
}

// C = alpha op(A) op(B) + beta C computed as C' = op(B') op(A') (see math.cpp).
void ga_sgemm_(const char* ta, const char* tb, fint* m, fint* n, fint* k, float* alpha, fint* g_a,
               fint* g_b, float* beta, fint* g_c, flen la, flen lb) {
  gemm<GA_Sgemm64>("ga_sgemm", ta, tb, m, n, k, alpha, g_a, g_b, beta, g_c, la, lb);
}
void ga_cgemm_(const char* ta, const char* tb, fint* m, fint* n, fint* k, SingleComplex* alpha,
               fint* g_a, fint* g_b, SingleComplex* beta, fint* g_c, flen la, flen lb) {
  gemm<GA_Cgemm64>("ga_cgemm", ta, tb, m, n, k, alpha, g_a, g_b, beta, g_c, la, lb);
}

}  // extern "C"
