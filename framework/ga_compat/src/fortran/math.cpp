// GA's Fortran API: whole-array and patch operations, element-wise operations, dot products,
// scans, matrix multiplication and printing. Fortran's view of a 2-D array is the transpose of
// the C layer's: transposition flags carry over unchanged, while rows and columns swap (so
// ga_scale_rows is GA_Scale_cols, ga_norm1 of a matrix is the C view's infinity norm, and
// C = op(A) op(B) is computed as C' = op(B') op(A')).

#include <vector>

#include "detail/fortran.hpp"

using namespace gaea::ga_compat::fortran;
using gaea::error;

namespace {

bool is_matrix(const fint* g_a, const char* fn) {
  return ndim_of(*g_a, fn) == 2;
}

// The dot products of two patches: the n-D (nga_) and 2-D (ga_) forms over the C layer's `dot`
// of the element type.
template <class Dot>
auto dot_nd(const char* fn, Dot dot, fint* g_a, const char* ta, fint* alo, fint* ahi, fint* g_b,
            const char* tb, fint* blo, fint* bhi, flen la, flen lb) {
  return api(fn, [&] {
    nd_patch a = patch(g_a, alo, ahi, fn), b = patch(g_b, blo, bhi, fn);
    return dot(a.h, flag(ta, la), a.lo.data(), a.hi.data(), b.h, flag(tb, lb), b.lo.data(),
               b.hi.data());
  });
}
template <class Dot>
auto dot_2d(const char* fn, Dot dot, fint* g_a, const char* ta, fint* ailo, fint* aihi, fint* ajlo,
            fint* ajhi, fint* g_b, const char* tb, fint* bilo, fint* bihi, fint* bjlo, fint* bjhi,
            flen la, flen lb) {
  return api(fn, [&] {
    nd_patch a = patch2(g_a, ailo, aihi, ajlo, ajhi, fn),
             b = patch2(g_b, bilo, bihi, bjlo, bjhi, fn);
    return dot(a.h, flag(ta, la), a.lo.data(), a.hi.data(), b.h, flag(tb, lb), b.lo.data(),
               b.hi.data());
  });
}
// The dot of MT_INT patches: arrays of this build's INTEGER (C_LONG or C_INT).
fint int_dot_patch(int g_a, char ta, std::int64_t* alo, std::int64_t* ahi, int g_b, char tb,
                   std::int64_t* blo, std::int64_t* bhi) {
  if constexpr (sizeof(fint) == 8)
    return static_cast<fint>(NGA_Ldot_patch64(g_a, ta, alo, ahi, g_b, tb, blo, bhi));
  else
    return static_cast<fint>(NGA_Idot_patch64(g_a, ta, alo, ahi, g_b, tb, blo, bhi));
}

// GA's matmul.c takes a transposed operand's bounds in op(X)'s coordinates (ga_ and nga_ forms);
// the C calls take X's own. The ranges of X's two matrix dimensions, as GA picks them
// (gai_setup_2d_patch, Fortran order: the two of extent > 1; for a vector, the wide one and its
// neighbour, the next for the first dimension, else the previous), are exchanged.
void op_to_own(char t, nd_patch& x) {
  if (t == 'n' || t == 'N' || x.n < 2) return;
  auto f = [&x](int d) { return static_cast<std::size_t>(x.n - 1 - d); };  // C index of d
  std::vector<int> wide;
  for (int d = 0; d < x.n; ++d)
    if (x.hi.v[f(d)] > x.lo.v[f(d)]) wide.push_back(d);
  if (wide.size() > 2) return;  // not a matrix: the C call names the problem
  int i = 0, j = 1;
  if (wide.size() == 2) {
    i = wide[0];
    j = wide[1];
  } else if (wide.size() == 1 && wide[0] > 0) {
    i = wide[0] - 1;
    j = wide[0];
  }
  std::swap(x.lo.v[f(i)], x.lo.v[f(j)]);
  std::swap(x.hi.v[f(i)], x.hi.v[f(j)]);
}
}  // namespace

extern "C" {

// ---- whole arrays -----------------------------------------------------------------------------
void ga_zero_(fint* g_a) {
  api("ga_zero", [&] { GA_Zero(h(g_a)); });
}
void ga_fill_(fint* g_a, void* value) {
  api("ga_fill", [&] { GA_Fill(h(g_a), value); });
}
void ga_randomize_(fint* g_a, void* value) {
  api("ga_randomize", [&] { GA_Randomize(h(g_a), value); });
}
void ga_copy_(fint* g_a, fint* g_b) {
  api("ga_copy", [&] { GA_Copy(h(g_a), h(g_b)); });
}
void ga_scale_(fint* g_a, void* alpha) {
  api("ga_scale", [&] { GA_Scale(h(g_a), alpha); });
}
void ga_dscal_(fint* g_a, double* alpha) {
  ga_scale_(g_a, alpha);
}
void ga_add_(void* alpha, fint* g_a, void* beta, fint* g_b, fint* g_c) {
  api("ga_add", [&] { GA_Add(alpha, h(g_a), beta, h(g_b), h(g_c)); });
}
void ga_dadd_(double* alpha, fint* g_a, double* beta, fint* g_b, fint* g_c) {
  ga_add_(alpha, g_a, beta, g_b, g_c);
}
double ga_ddot_(fint* g_a, fint* g_b) {
  return api("ga_ddot", [&] { return GA_Ddot(h(g_a), h(g_b)); });
}
float ga_sdot_(fint* g_a, fint* g_b) {
  return api("ga_sdot", [&] { return GA_Fdot(h(g_a), h(g_b)); });
}
fint ga_idot_(fint* g_a, fint* g_b) {
  return api("ga_idot", [&] {
    if constexpr (sizeof(fint) == 8)
      return static_cast<fint>(GA_Ldot(h(g_a), h(g_b)));
    else
      return static_cast<fint>(GA_Idot(h(g_a), h(g_b)));
  });
}
DoubleComplex ga_zdot_(fint* g_a, fint* g_b) {
  return api("ga_zdot", [&] { return GA_Zdot(h(g_a), h(g_b)); });
}
SingleComplex ga_cdot_(fint* g_a, fint* g_b) {
  return api("ga_cdot", [&] { return GA_Cdot(h(g_a), h(g_b)); });
}
void ga_transpose_(fint* g_a, fint* g_b) {
  api("ga_transpose", [&] { GA_Transpose(h(g_a), h(g_b)); });
}
void ga_symmetrize_(fint* g_a) {
  api("ga_symmetrize", [&] { GA_Symmetrize(h(g_a)); });
}
void ga_norm1_(fint* g_a, double* nm) {
  api("ga_norm1", [&] {
    if (is_matrix(g_a, "ga_norm1"))
      GA_Norm_infinity(h(g_a), nm);
    else
      GA_Norm1(h(g_a), nm);
  });
}
void ga_norm_infinity_(fint* g_a, double* nm) {
  api("ga_norm_infinity", [&] {
    if (is_matrix(g_a, "ga_norm_infinity"))
      GA_Norm1(h(g_a), nm);
    else
      GA_Norm_infinity(h(g_a), nm);
  });
}
void ga_get_diag_(fint* g_a, fint* g_v) {
  api("ga_get_diag", [&] { GA_Get_diag(h(g_a), h(g_v)); });
}
void ga_set_diagonal_(fint* g_a, fint* g_v) {
  api("ga_set_diagonal", [&] { GA_Set_diagonal(h(g_a), h(g_v)); });
}
void ga_add_diagonal_(fint* g_a, fint* g_v) {
  api("ga_add_diagonal", [&] { GA_Add_diagonal(h(g_a), h(g_v)); });
}
void ga_shift_diagonal_(fint* g_a, void* c) {
  api("ga_shift_diagonal", [&] { GA_Shift_diagonal(h(g_a), c); });
}
void ga_zero_diagonal_(fint* g_a) {
  api("ga_zero_diagonal", [&] { GA_Zero_diagonal(h(g_a)); });
}
void ga_scale_rows_(fint* g_a, fint* g_v) {
  api("ga_scale_rows", [&] { GA_Scale_cols(h(g_a), h(g_v)); });
}
void ga_scale_cols_(fint* g_a, fint* g_v) {
  api("ga_scale_cols", [&] { GA_Scale_rows(h(g_a), h(g_v)); });
}

// ---- element-wise -----------------------------------------------------------------------------
void ga_abs_value_(fint* g_a) {
  api("ga_abs_value", [&] { GA_Abs_value(h(g_a)); });
}
void ga_add_constant_(fint* g_a, void* alpha) {
  api("ga_add_constant", [&] { GA_Add_constant(h(g_a), alpha); });
}
void ga_recip_(fint* g_a) {
  api("ga_recip", [&] { GA_Recip(h(g_a)); });
}
void ga_elem_multiply_(fint* g_a, fint* g_b, fint* g_c) {
  api("ga_elem_multiply", [&] { GA_Elem_multiply(h(g_a), h(g_b), h(g_c)); });
}
void ga_elem_divide_(fint* g_a, fint* g_b, fint* g_c) {
  api("ga_elem_divide", [&] { GA_Elem_divide(h(g_a), h(g_b), h(g_c)); });
}
void ga_elem_maximum_(fint* g_a, fint* g_b, fint* g_c) {
  api("ga_elem_maximum", [&] { GA_Elem_maximum(h(g_a), h(g_b), h(g_c)); });
}
void ga_elem_minimum_(fint* g_a, fint* g_b, fint* g_c) {
  api("ga_elem_minimum", [&] { GA_Elem_minimum(h(g_a), h(g_b), h(g_c)); });
}
void ga_abs_value_patch_(fint* g_a, fint* lo, fint* hi) {
  api("ga_abs_value_patch", [&] {
    nd_patch p = patch(g_a, lo, hi, "ga_abs_value_patch");
    GA_Abs_value_patch64(p.h, p.lo.data(), p.hi.data());
  });
}
void ga_add_constant_patch_(fint* g_a, fint* lo, fint* hi, void* alpha) {
  api("ga_add_constant_patch", [&] {
    nd_patch p = patch(g_a, lo, hi, "ga_add_constant_patch");
    GA_Add_constant_patch64(p.h, p.lo.data(), p.hi.data(), alpha);
  });
}
void ga_recip_patch_(fint* g_a, fint* lo, fint* hi) {
  api("ga_recip_patch", [&] {
    nd_patch p = patch(g_a, lo, hi, "ga_recip_patch");
    GA_Recip_patch64(p.h, p.lo.data(), p.hi.data());
  });
}
void ga_elem_multiply_patch_(fint* g_a, fint* alo, fint* ahi, fint* g_b, fint* blo, fint* bhi,
                             fint* g_c, fint* clo, fint* chi) {
  api("ga_elem_multiply_patch", [&] {
    const char* fn = "ga_elem_multiply_patch";
    nd_patch a = patch(g_a, alo, ahi, fn), b = patch(g_b, blo, bhi, fn),
             c = patch(g_c, clo, chi, fn);
    GA_Elem_multiply_patch64(a.h, a.lo.data(), a.hi.data(), b.h, b.lo.data(), b.hi.data(), c.h,
                             c.lo.data(), c.hi.data());
  });
}
void ga_elem_divide_patch_(fint* g_a, fint* alo, fint* ahi, fint* g_b, fint* blo, fint* bhi,
                           fint* g_c, fint* clo, fint* chi) {
  api("ga_elem_divide_patch", [&] {
    const char* fn = "ga_elem_divide_patch";
    nd_patch a = patch(g_a, alo, ahi, fn), b = patch(g_b, blo, bhi, fn),
             c = patch(g_c, clo, chi, fn);
    GA_Elem_divide_patch64(a.h, a.lo.data(), a.hi.data(), b.h, b.lo.data(), b.hi.data(), c.h,
                           c.lo.data(), c.hi.data());
  });
}
void nga_select_elem_(fint* g_a, const char* op, void* val, fint* index, flen len) {
  api("nga_select_elem", [&] {
    const int n = ndim_of(*g_a, "nga_select_elem");
    std::int64_t c[GA_MAX_DIM] = {};
    NGA_Select_elem64(h(g_a), from_fortran(op, len).c_str(), val, c);
    f_subscript(c, n, index, "nga_select_elem");
  });
}

// ---- patches ----------------------------------------------------------------------------------
void nga_zero_patch_(fint* g_a, fint* lo, fint* hi) {
  api("nga_zero_patch", [&] {
    nd_patch p = patch(g_a, lo, hi, "nga_zero_patch");
    NGA_Zero_patch64(p.h, p.lo.data(), p.hi.data());
  });
}
void ga_zero_patch_(fint* g_a, fint* ilo, fint* ihi, fint* jlo, fint* jhi) {
  api("ga_zero_patch", [&] {
    nd_patch p = patch2(g_a, ilo, ihi, jlo, jhi, "ga_zero_patch");
    NGA_Zero_patch64(p.h, p.lo.data(), p.hi.data());
  });
}
void nga_fill_patch_(fint* g_a, fint* lo, fint* hi, void* value) {
  api("nga_fill_patch", [&] {
    nd_patch p = patch(g_a, lo, hi, "nga_fill_patch");
    NGA_Fill_patch64(p.h, p.lo.data(), p.hi.data(), value);
  });
}
void ga_fill_patch_(fint* g_a, fint* ilo, fint* ihi, fint* jlo, fint* jhi, void* value) {
  api("ga_fill_patch", [&] {
    nd_patch p = patch2(g_a, ilo, ihi, jlo, jhi, "ga_fill_patch");
    NGA_Fill_patch64(p.h, p.lo.data(), p.hi.data(), value);
  });
}
void nga_scale_patch_(fint* g_a, fint* lo, fint* hi, void* alpha) {
  api("nga_scale_patch", [&] {
    nd_patch p = patch(g_a, lo, hi, "nga_scale_patch");
    NGA_Scale_patch64(p.h, p.lo.data(), p.hi.data(), alpha);
  });
}
void ga_scale_patch_(fint* g_a, fint* ilo, fint* ihi, fint* jlo, fint* jhi, void* alpha) {
  api("ga_scale_patch", [&] {
    nd_patch p = patch2(g_a, ilo, ihi, jlo, jhi, "ga_scale_patch");
    NGA_Scale_patch64(p.h, p.lo.data(), p.hi.data(), alpha);
  });
}
void nga_copy_patch_(const char* trans, fint* g_a, fint* alo, fint* ahi, fint* g_b, fint* blo,
                     fint* bhi, flen len) {
  api("nga_copy_patch", [&] {
    nd_patch a = patch(g_a, alo, ahi, "nga_copy_patch"), b = patch(g_b, blo, bhi, "nga_copy_patch");
    NGA_Copy_patch64(flag(trans, len), a.h, a.lo.data(), a.hi.data(), b.h, b.lo.data(),
                     b.hi.data());
  });
}
void ga_copy_patch_(const char* trans, fint* g_a, fint* ailo, fint* aihi, fint* ajlo, fint* ajhi,
                    fint* g_b, fint* bilo, fint* bihi, fint* bjlo, fint* bjhi, flen len) {
  api("ga_copy_patch", [&] {
    nd_patch a = patch2(g_a, ailo, aihi, ajlo, ajhi, "ga_copy_patch"),
             b = patch2(g_b, bilo, bihi, bjlo, bjhi, "ga_copy_patch");
    NGA_Copy_patch64(flag(trans, len), a.h, a.lo.data(), a.hi.data(), b.h, b.lo.data(),
                     b.hi.data());
  });
}
void nga_add_patch_(void* alpha, fint* g_a, fint* alo, fint* ahi, void* beta, fint* g_b, fint* blo,
                    fint* bhi, fint* g_c, fint* clo, fint* chi) {
  api("nga_add_patch", [&] {
    const char* fn = "nga_add_patch";
    nd_patch a = patch(g_a, alo, ahi, fn), b = patch(g_b, blo, bhi, fn),
             c = patch(g_c, clo, chi, fn);
    NGA_Add_patch64(alpha, a.h, a.lo.data(), a.hi.data(), beta, b.h, b.lo.data(), b.hi.data(), c.h,
                    c.lo.data(), c.hi.data());
  });
}
void ga_add_patch_(void* alpha, fint* g_a, fint* ailo, fint* aihi, fint* ajlo, fint* ajhi,
                   void* beta, fint* g_b, fint* bilo, fint* bihi, fint* bjlo, fint* bjhi, fint* g_c,
                   fint* cilo, fint* cihi, fint* cjlo, fint* cjhi) {
  api("ga_add_patch", [&] {
    const char* fn = "ga_add_patch";
    nd_patch a = patch2(g_a, ailo, aihi, ajlo, ajhi, fn),
             b = patch2(g_b, bilo, bihi, bjlo, bjhi, fn),
             c = patch2(g_c, cilo, cihi, cjlo, cjhi, fn);
    NGA_Add_patch64(alpha, a.h, a.lo.data(), a.hi.data(), beta, b.h, b.lo.data(), b.hi.data(), c.h,
                    c.lo.data(), c.hi.data());
  });
}
double nga_ddot_patch_(fint* g_a, const char* ta, fint* alo, fint* ahi, fint* g_b, const char* tb,
                       fint* blo, fint* bhi, flen la, flen lb) {
  return dot_nd("nga_ddot_patch", NGA_Ddot_patch64, g_a, ta, alo, ahi, g_b, tb, blo, bhi, la, lb);
}
double ga_ddot_patch_(fint* g_a, const char* ta, fint* ailo, fint* aihi, fint* ajlo, fint* ajhi,
                      fint* g_b, const char* tb, fint* bilo, fint* bihi, fint* bjlo, fint* bjhi,
                      flen la, flen lb) {
  return dot_2d("ga_ddot_patch", NGA_Ddot_patch64, g_a, ta, ailo, aihi, ajlo, ajhi, g_b, tb, bilo,
                bihi, bjlo, bjhi, la, lb);
}
DoubleComplex nga_zdot_patch_(fint* g_a, const char* ta, fint* alo, fint* ahi, fint* g_b,
                              const char* tb, fint* blo, fint* bhi, flen la, flen lb) {
  return dot_nd("nga_zdot_patch", NGA_Zdot_patch64, g_a, ta, alo, ahi, g_b, tb, blo, bhi, la, lb);
}
DoubleComplex ga_zdot_patch_(fint* g_a, const char* ta, fint* ailo, fint* aihi, fint* ajlo,
                             fint* ajhi, fint* g_b, const char* tb, fint* bilo, fint* bihi,
                             fint* bjlo, fint* bjhi, flen la, flen lb) {
  return dot_2d("ga_zdot_patch", NGA_Zdot_patch64, g_a, ta, ailo, aihi, ajlo, ajhi, g_b, tb, bilo,
                bihi, bjlo, bjhi, la, lb);
}
float nga_sdot_patch_(fint* g_a, const char* ta, fint* alo, fint* ahi, fint* g_b, const char* tb,
                      fint* blo, fint* bhi, flen la, flen lb) {
  return dot_nd("nga_sdot_patch", NGA_Fdot_patch64, g_a, ta, alo, ahi, g_b, tb, blo, bhi, la, lb);
}
float ga_sdot_patch_(fint* g_a, const char* ta, fint* ailo, fint* aihi, fint* ajlo, fint* ajhi,
                     fint* g_b, const char* tb, fint* bilo, fint* bihi, fint* bjlo, fint* bjhi,
                     flen la, flen lb) {
  return dot_2d("ga_sdot_patch", NGA_Fdot_patch64, g_a, ta, ailo, aihi, ajlo, ajhi, g_b, tb, bilo,
                bihi, bjlo, bjhi, la, lb);
}
fint nga_idot_patch_(fint* g_a, const char* ta, fint* alo, fint* ahi, fint* g_b, const char* tb,
                     fint* blo, fint* bhi, flen la, flen lb) {
  return dot_nd("nga_idot_patch", int_dot_patch, g_a, ta, alo, ahi, g_b, tb, blo, bhi, la, lb);
}
fint ga_idot_patch_(fint* g_a, const char* ta, fint* ailo, fint* aihi, fint* ajlo, fint* ajhi,
                    fint* g_b, const char* tb, fint* bilo, fint* bihi, fint* bjlo, fint* bjhi,
                    flen la, flen lb) {
  return dot_2d("ga_idot_patch", int_dot_patch, g_a, ta, ailo, aihi, ajlo, ajhi, g_b, tb, bilo,
                bihi, bjlo, bjhi, la, lb);
}
SingleComplex nga_cdot_patch_(fint* g_a, const char* ta, fint* alo, fint* ahi, fint* g_b,
                              const char* tb, fint* blo, fint* bhi, flen la, flen lb) {
  return dot_nd("nga_cdot_patch", NGA_Cdot_patch64, g_a, ta, alo, ahi, g_b, tb, blo, bhi, la, lb);
}
SingleComplex ga_cdot_patch_(fint* g_a, const char* ta, fint* ailo, fint* aihi, fint* ajlo,
                             fint* ajhi, fint* g_b, const char* tb, fint* bilo, fint* bihi,
                             fint* bjlo, fint* bjhi, flen la, flen lb) {
  return dot_2d("ga_cdot_patch", NGA_Cdot_patch64, g_a, ta, ailo, aihi, ajlo, ajhi, g_b, tb, bilo,
                bihi, bjlo, bjhi, la, lb);
}

// ---- scans, pack, enumerate (1-D; lo and hi are 1-based) ---------------------------------------
void ga_scan_add_(fint* g_a, fint* g_b, fint* g_sbit, fint* lo, fint* hi, fint* excl) {
  api("ga_scan_add",
      [&] { GA_Scan_add64(h(g_a), h(g_b), h(g_sbit), *lo - 1, *hi - 1, static_cast<int>(*excl)); });
}
void ga_scan_copy_(fint* g_a, fint* g_b, fint* g_sbit, fint* lo, fint* hi) {
  api("ga_scan_copy", [&] { GA_Scan_copy64(h(g_a), h(g_b), h(g_sbit), *lo - 1, *hi - 1); });
}
void ga_pack_(fint* g_a, fint* g_b, fint* g_sbit, fint* lo, fint* hi, fint* icount) {
  api("ga_pack", [&] {
    std::int64_t n = 0;
    GA_Pack64(h(g_a), h(g_b), h(g_sbit), *lo - 1, *hi - 1, &n);
    *icount = narrow(n, "ga_pack", "count");
  });
}
void ga_unpack_(fint* g_a, fint* g_b, fint* g_sbit, fint* lo, fint* hi, fint* icount) {
  api("ga_unpack", [&] {
    std::int64_t n = 0;
    GA_Unpack64(h(g_a), h(g_b), h(g_sbit), *lo - 1, *hi - 1, &n);
    *icount = narrow(n, "ga_unpack", "count");
  });
}
void ga_patch_enum_(fint* g_a, fint* lo, fint* hi, void* start, void* inc) {
  api("ga_patch_enum", [&] { GA_Patch_enum64(h(g_a), *lo - 1, *hi - 1, start, inc); });
}

// ---- matrix multiplication --------------------------------------------------------------------
void ga_dgemm_(const char* ta, const char* tb, fint* m, fint* n, fint* k, double* alpha, fint* g_a,
               fint* g_b, double* beta, fint* g_c, flen la, flen lb) {
  gemm<GA_Dgemm64>("ga_dgemm", ta, tb, m, n, k, alpha, g_a, g_b, beta, g_c, la, lb);
}
void ga_zgemm_(const char* ta, const char* tb, fint* m, fint* n, fint* k, DoubleComplex* alpha,
               fint* g_a, fint* g_b, DoubleComplex* beta, fint* g_c, flen la, flen lb) {
  gemm<GA_Zgemm64>("ga_zgemm", ta, tb, m, n, k, alpha, g_a, g_b, beta, g_c, la, lb);
}
void ga_matmul_patch_(const char* ta, const char* tb, void* alpha, void* beta, fint* g_a,
                      fint* ailo, fint* aihi, fint* ajlo, fint* ajhi, fint* g_b, fint* bilo,
                      fint* bihi, fint* bjlo, fint* bjhi, fint* g_c, fint* cilo, fint* cihi,
                      fint* cjlo, fint* cjhi, flen la, flen lb) {
  api("ga_matmul_patch", [&] {
    const char* fn = "ga_matmul_patch";
    const char at = flag(ta, la), bt = flag(tb, lb);
    auto matrix = [fn](fint* ilo, fint* ihi, fint* jlo, fint* jhi) {
      const fint lo[2] = {*ilo, *jlo}, hi[2] = {*ihi, *jhi};
      nd_patch x;
      x.n = 2;
      x.lo = c_subscript(lo, 2, fn);
      x.hi = c_subscript(hi, 2, fn);
      return x;
    };
    nd_patch a = matrix(ailo, aihi, ajlo, ajhi), b = matrix(bilo, bihi, bjlo, bjhi);
    op_to_own(at, a);
    op_to_own(bt, b);
    GA_Matmul_patch64(bt, at, alpha, beta, h(g_b), b.lo.v[0], b.hi.v[0], b.lo.v[1], b.hi.v[1],
                      h(g_a), a.lo.v[0], a.hi.v[0], a.lo.v[1], a.hi.v[1], h(g_c), *cjlo - 1,
                      *cjhi - 1, *cilo - 1, *cihi - 1);
  });
}

void nga_matmul_patch_(const char* ta, const char* tb, void* alpha, void* beta, fint* g_a,
                       fint* alo, fint* ahi, fint* g_b, fint* blo, fint* bhi, fint* g_c, fint* clo,
                       fint* chi, flen la, flen lb) {
  api("nga_matmul_patch", [&] {
    const char* fn = "nga_matmul_patch";
    const char at = flag(ta, la), bt = flag(tb, lb);
    nd_patch a = patch(g_a, alo, ahi, fn), b = patch(g_b, blo, bhi, fn),
             c = patch(g_c, clo, chi, fn);
    op_to_own(at, a);
    op_to_own(bt, b);
    NGA_Matmul_patch64(bt, at, alpha, beta, b.h, b.lo.data(), b.hi.data(), a.h, a.lo.data(),
                       a.hi.data(), c.h, c.lo.data(), c.hi.data());
  });
}

// ---- printing ---------------------------------------------------------------------------------
void ga_print_(fint* g_a) {
  api("ga_print", [&] { GA_Print(h(g_a)); });
}
void nga_print_patch_(fint* g_a, fint* lo, fint* hi, fint* pretty) {
  api("nga_print_patch", [&] {
    nd_patch p = patch(g_a, lo, hi, "nga_print_patch");
    NGA_Print_patch64(p.h, p.lo.data(), p.hi.data(), static_cast<int>(*pretty));
  });
}
void ga_print_patch_(fint* g_a, fint* ilo, fint* ihi, fint* jlo, fint* jhi, fint* pretty) {
  api("ga_print_patch", [&] {
    nd_patch p = patch2(g_a, ilo, ihi, jlo, jhi, "ga_print_patch");
    NGA_Print_patch64(p.h, p.lo.data(), p.hi.data(), static_cast<int>(*pretty));
  });
}
void ga_print_distribution_(fint* g_a) {
  api("ga_print_distribution", [&] { GA_Print_distribution(h(g_a)); });
}

// ---- nga_ spellings ---------------------------------------------------------------------------
void nga_zero_(fint* g_a) {
  ga_zero_(g_a);
}
void nga_fill_(fint* g_a, void* value) {
  ga_fill_(g_a, value);
}
void nga_copy_(fint* g_a, fint* g_b) {
  ga_copy_(g_a, g_b);
}
void nga_scale_(fint* g_a, void* alpha) {
  ga_scale_(g_a, alpha);
}
void nga_add_(void* alpha, fint* g_a, void* beta, fint* g_b, fint* g_c) {
  ga_add_(alpha, g_a, beta, g_b, g_c);
}
double nga_ddot_(fint* g_a, fint* g_b) {
  return ga_ddot_(g_a, g_b);
}
void nga_scan_add_(fint* g_a, fint* g_b, fint* g_sbit, fint* lo, fint* hi, fint* excl) {
  ga_scan_add_(g_a, g_b, g_sbit, lo, hi, excl);
}
void nga_scan_copy_(fint* g_a, fint* g_b, fint* g_sbit, fint* lo, fint* hi) {
  ga_scan_copy_(g_a, g_b, g_sbit, lo, hi);
}
void nga_pack_(fint* g_a, fint* g_b, fint* g_sbit, fint* lo, fint* hi, fint* icount) {
  ga_pack_(g_a, g_b, g_sbit, lo, hi, icount);
}
void nga_unpack_(fint* g_a, fint* g_b, fint* g_sbit, fint* lo, fint* hi, fint* icount) {
  ga_unpack_(g_a, g_b, g_sbit, lo, hi, icount);
}
void nga_patch_enum_(fint* g_a, fint* lo, fint* hi, void* start, void* inc) {
  ga_patch_enum_(g_a, lo, hi, start, inc);
}

}  // extern "C"
