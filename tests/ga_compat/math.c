/* GA math operations checked against serial references: whole-array and patch zero/fill/
 * copy/scale/add/dot/norms/transpose/symmetrize/gemm/matmul_patch, element-wise operations,
 * select_elem, diagonal operations, scans, pack/unpack, enumerate, and the print calls.
 * Plain GA C (written for this project): it builds against any GA implementation, and each
 * rank compares what it reads back with its own serial reference; any mismatch on any rank ends
 * the job through GA_Error after every rank has reported its own.
 * Against Debian's GA 5.8 (MATH_LAYOUTS=1: block layouts only) every check agrees except those
 * where GA 5.8 departs from its documentation: GA_Zero_diagonal on more than one rank (it zeroes
 * off-diagonal elements), GA_Matmul_patch (other results for these C-order patches) and
 * NGA_Matmul_patch with transposes (GA 5.8 rejects the shapes). */
#include <complex.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ga.h"
#include "macdecls.h"

typedef double complex zc;

/* |z| without libm (the package test links with pkg-config gaea-ga only): Newton's method. */
static double root(double x) {
  if (x <= 0) return 0;
  double r = x > 1 ? x : 1;
  for (int i = 0; i < 2000; ++i) {
    double next = 0.5 * (r + x / r);
    if (next >= r) break;
    r = next;
  }
  return r;
}
static double mag(zc z) {
  return root(creal(z) * creal(z) + cimag(z) * cimag(z));
}

static int me, nproc;
static long failures;

static const int all_types[] = {MT_C_INT, MT_C_LONGINT, MT_C_FLOAT, MT_C_DBL, MT_C_SCPL, MT_C_DCPL};
enum { ntypes = sizeof(all_types) / sizeof(all_types[0]) };

static const char* type_name(int t) {
  switch (t) {
    case MT_C_INT:
      return "int";
    case MT_C_LONGINT:
      return "long";
    case MT_C_FLOAT:
      return "float";
    case MT_C_DBL:
      return "double";
    case MT_C_SCPL:
      return "scomplex";
    default:
      return "dcomplex";
  }
}
static int is_cplx(int t) {
  return t == MT_C_SCPL || t == MT_C_DCPL;
}
static int is_int(int t) {
  return t == MT_C_INT || t == MT_C_LONGINT;
}
static size_t esize(int t) {
  switch (t) {
    case MT_C_INT:
      return sizeof(int);
    case MT_C_LONGINT:
      return sizeof(long);
    case MT_C_FLOAT:
      return sizeof(float);
    case MT_C_DBL:
      return sizeof(double);
    case MT_C_SCPL:
      return 2 * sizeof(float);
    default:
      return 2 * sizeof(double);
  }
}

/* Element i of a buffer of type t, as a complex double, and back. */
static void put_elem(int t, void* buf, long i, zc v) {
  switch (t) {
    case MT_C_INT:
      ((int*)buf)[i] = (int)creal(v);
      break;
    case MT_C_LONGINT:
      ((long*)buf)[i] = (long)creal(v);
      break;
    case MT_C_FLOAT:
      ((float*)buf)[i] = (float)creal(v);
      break;
    case MT_C_DBL:
      ((double*)buf)[i] = creal(v);
      break;
    case MT_C_SCPL:
      ((float*)buf)[2 * i] = (float)creal(v);
      ((float*)buf)[2 * i + 1] = (float)cimag(v);
      break;
    default:
      ((double*)buf)[2 * i] = creal(v);
      ((double*)buf)[2 * i + 1] = cimag(v);
  }
}
static zc get_elem(int t, const void* buf, long i) {
  switch (t) {
    case MT_C_INT:
      return ((const int*)buf)[i];
    case MT_C_LONGINT:
      return ((const long*)buf)[i];
    case MT_C_FLOAT:
      return ((const float*)buf)[i];
    case MT_C_DBL:
      return ((const double*)buf)[i];
    case MT_C_SCPL:
      return ((const float*)buf)[2 * i] + I * ((const float*)buf)[2 * i + 1];
    default:
      return ((const double*)buf)[2 * i] + I * ((const double*)buf)[2 * i + 1];
  }
}
/* A scalar argument (alpha, value, ...) of type t. */
typedef union {
  int i;
  long l;
  float f;
  double d;
  float c[2];
  double z[2];
} scalar;
static void* scal(int t, scalar* s, zc v) {
  put_elem(t, s, 0, v);
  return s;
}

/* Round a reference value to what type t holds (integer division truncates etc.). */
static zc as_type(int t, zc v) {
  scalar s;
  return get_elem(t, scal(t, &s, v), 0);
}

/* Small integers, exact in every type; the imaginary part only for complex types. */
static zc value(int t, long lin, int seed) {
  double re = (double)((lin * 7 + seed * 13) % 23 - 11);
  double im = (double)((lin * 5 + seed * 3) % 19 - 9);
  return is_cplx(t) ? re + I * im : re;
}

static long elements(int ndim, const int* dims) {
  long n = 1;
  for (int d = 0; d < ndim; ++d)
    n *= dims[d];
  return n;
}

/* Layouts: 0 block, 1 irregular, 2 ghosts, 3 block-cyclic (2-D). MATH_LAYOUTS=n uses the
 * first n only (GA 5.8 itself has no transposed patch copies of block-cyclic arrays). */
static int nlayouts = 4;
static int create(int t, int ndim, int* dims, const char* name, int layout) {
  layout %= nlayouts;
  if (layout == 1) {
    int block[2], map[4], k = 0;
    for (int d = 0; d < ndim; ++d) {
      block[d] = (d == 0 && nproc >= 2) || (d == 1 && nproc >= 4) ? 2 : 1;
      map[k++] = 0;
      if (block[d] == 2) map[k++] = dims[d] / 3 + 1;
    }
    return NGA_Create_irreg(t, ndim, dims, (char*)name, block, map);
  }
  if (layout == 2) {
    int width[2] = {1, 2};
    return NGA_Create_ghosts(t, ndim, dims, width, (char*)name, NULL);
  }
  if (layout == 3 && ndim == 2) {
    int g = GA_Create_handle();
    int block[2] = {4, 3}, grid[2] = {nproc >= 4 ? nproc / 2 : nproc, nproc >= 4 ? 2 : 1};
    GA_Set_data(g, ndim, dims, t);
    GA_Set_array_name(g, (char*)name);
    GA_Set_block_cyclic_proc_grid(g, block, grid);
    if (!GA_Allocate(g)) GA_Error("GA_Allocate failed", 0);
    return g;
  }
  return NGA_Create(t, ndim, dims, (char*)name, NULL);
}

/* Rank 0 writes ref (row-major) to all of g. */
static void load(int g, int t, int ndim, int* dims, const zc* ref) {
  if (me == 0) {
    long n = elements(ndim, dims);
    void* buf = malloc((size_t)n * esize(t));
    int lo[7] = {0}, hi[7], ld[7];
    for (long i = 0; i < n; ++i)
      put_elem(t, buf, i, ref[i]);
    for (int d = 0; d < ndim; ++d) {
      hi[d] = dims[d] - 1;
      if (d > 0) ld[d - 1] = dims[d];
    }
    NGA_Put(g, lo, hi, buf, ld);
    free(buf);
  }
  GA_Sync();
}

static double tolerance(int t) {
  if (is_int(t)) return 0;
  if (t == MT_C_FLOAT || t == MT_C_SCPL) return 1e-4;
  return 1e-10;
}
static int close_enough(int t, zc got, zc want, double scale) {
  return mag(got - want) <= tolerance(t) * (scale + mag(want));
}

static void expect(const char* what, int t, zc got, zc want, double scale) {
  if (!close_enough(t, got, want, scale)) {
    if (failures++ < 20)
      printf("[%d] FAIL %s (%s): got (%g, %g), expected (%g, %g)\n", me, what, type_name(t),
             creal(got), cimag(got), creal(want), cimag(want));
  }
}

/* Every rank reads all of g and compares it with want. */
static void check(const char* what, int g, int t, int ndim, int* dims, const zc* want) {
  long n = elements(ndim, dims);
  void* buf = malloc((size_t)n * esize(t));
  int lo[7] = {0}, hi[7], ld[7];
  for (int d = 0; d < ndim; ++d) {
    hi[d] = dims[d] - 1;
    if (d > 0) ld[d - 1] = dims[d];
  }
  NGA_Get(g, lo, hi, buf, ld);
  for (long i = 0; i < n; ++i) {
    zc got = get_elem(t, buf, i);
    if (!close_enough(t, got, want[i], 100)) {
      if (failures++ < 20)
        printf("[%d] FAIL %s (%s): element %ld is (%g, %g), expected (%g, %g)\n", me, what,
               type_name(t), i, creal(got), cimag(got), creal(want[i]), cimag(want[i]));
      break;
    }
  }
  free(buf);
}

static zc* reference(int t, int ndim, int* dims, int seed) {
  long n = elements(ndim, dims);
  zc* r = malloc((size_t)n * sizeof(zc));
  for (long i = 0; i < n; ++i)
    r[i] = value(t, i, seed);
  return r;
}

#define AT(r, cols, i, j) ((r)[(long)(i) * (cols) + (j)])

/* The middle one of three real values. */
static zc median3(zc x, zc y, zc z) {
  double a = creal(x), b = creal(y), c = creal(z);
  double lo = a < b ? a : b, hi = a < b ? b : a;
  return c < lo ? lo : c > hi ? hi : c;
}

/* The dot product of type t between g_a and g_b (GA: no conjugation). */
static zc dot(int t, int ga, int gb) {
  switch (t) {
    case MT_C_INT:
      return GA_Idot(ga, gb);
    case MT_C_LONGINT:
      return GA_Ldot(ga, gb);
    case MT_C_FLOAT:
      return GA_Fdot(ga, gb);
    case MT_C_DBL:
      return GA_Ddot(ga, gb);
    case MT_C_SCPL: {
      SingleComplex c = GA_Cdot(ga, gb);
      return c.real + I * c.imag;
    }
    default: {
      DoubleComplex z = GA_Zdot(ga, gb);
      return z.real + I * z.imag;
    }
  }
}
static zc dot_patch(int t, int ga, char ta, int* alo, int* ahi, int gb, char tb, int* blo,
                    int* bhi) {
  switch (t) {
    case MT_C_INT:
      return NGA_Idot_patch(ga, ta, alo, ahi, gb, tb, blo, bhi);
    case MT_C_LONGINT:
      return NGA_Ldot_patch(ga, ta, alo, ahi, gb, tb, blo, bhi);
    case MT_C_FLOAT:
      return NGA_Fdot_patch(ga, ta, alo, ahi, gb, tb, blo, bhi);
    case MT_C_DBL:
      return NGA_Ddot_patch(ga, ta, alo, ahi, gb, tb, blo, bhi);
    case MT_C_SCPL: {
      SingleComplex c = NGA_Cdot_patch(ga, ta, alo, ahi, gb, tb, blo, bhi);
      return c.real + I * c.imag;
    }
    default: {
      DoubleComplex z = NGA_Zdot_patch(ga, ta, alo, ahi, gb, tb, blo, bhi);
      return z.real + I * z.imag;
    }
  }
}

/* Zero, fill, copy, scale, add, dot; patch forms; element-wise operations. */
static void test_basic(int t, int la, int lb, int lc) {
  int dims[2] = {13, 11}, m = 13, n = 11;
  long size = (long)m * n;
  int ga = create(t, 2, dims, "A", la), gb = create(t, 2, dims, "B", lb),
      gc = create(t, 2, dims, "C", lc);
  zc *ra = reference(t, 2, dims, 1), *rb = reference(t, 2, dims, 2);
  zc* want = malloc((size_t)size * sizeof(zc));
  scalar s1, s2;
  load(ga, t, 2, dims, ra);
  load(gb, t, 2, dims, rb);
  check("NGA_Put/NGA_Get", ga, t, 2, dims, ra);
  check("NGA_Put/NGA_Get", gb, t, 2, dims, rb);

  GA_Zero(gc);
  for (long i = 0; i < size; ++i)
    want[i] = 0;
  check("GA_Zero", gc, t, 2, dims, want);
  GA_Fill(gc, scal(t, &s1, 3 - 2 * I * is_cplx(t)));
  for (long i = 0; i < size; ++i)
    want[i] = 3 - 2 * I * is_cplx(t);
  check("GA_Fill", gc, t, 2, dims, want);
  GA_Copy(ga, gc);
  check("GA_Copy", gc, t, 2, dims, ra);
  GA_Scale(gc, scal(t, &s1, -2));
  for (long i = 0; i < size; ++i)
    want[i] = -2 * ra[i];
  check("GA_Scale", gc, t, 2, dims, want);
  GA_Add(scal(t, &s1, 2), ga, scal(t, &s2, -3), gb, gc);
  for (long i = 0; i < size; ++i)
    want[i] = 2 * ra[i] - 3 * rb[i];
  check("GA_Add", gc, t, 2, dims, want);
  {
    zc d = 0;
    for (long i = 0; i < size; ++i)
      d += ra[i] * rb[i];
    expect("GA_*dot", t, dot(t, ga, gb), d, 100);
  }

  /* Patches of C, on top of 2a - 3b. */
  {
    int lo[2] = {1, 2}, hi[2] = {5, 9};
    NGA_Zero_patch(gc, lo, hi);
    for (int i = 1; i <= 5; ++i)
      for (int j = 2; j <= 9; ++j)
        AT(want, n, i, j) = 0;
    lo[0] = 4, lo[1] = 0, hi[0] = 8, hi[1] = 3;
    NGA_Fill_patch(gc, lo, hi, scal(t, &s1, 7));
    for (int i = 4; i <= 8; ++i)
      for (int j = 0; j <= 3; ++j)
        AT(want, n, i, j) = 7;
    lo[0] = 6, lo[1] = 2, hi[0] = 12, hi[1] = 10;
    NGA_Scale_patch(gc, lo, hi, scal(t, &s1, 3));
    for (int i = 6; i <= 12; ++i)
      for (int j = 2; j <= 10; ++j)
        AT(want, n, i, j) *= 3;
    check("NGA_Zero/Fill/Scale_patch", gc, t, 2, dims, want);
  }
  {
    /* c[0:3, 0:5] = a[2:7, 1:4]^T; c[9:12, 4:9] = a[0:3, 5:10] */
    int alo[2] = {2, 1}, ahi[2] = {7, 4}, clo[2] = {0, 0}, chi[2] = {3, 5};
    NGA_Copy_patch('T', ga, alo, ahi, gc, clo, chi);
    for (int i = 0; i <= 3; ++i)
      for (int j = 0; j <= 5; ++j)
        AT(want, n, i, j) = AT(ra, n, 2 + j, 1 + i);
    int alo2[2] = {0, 5}, ahi2[2] = {3, 10}, clo2[2] = {9, 4}, chi2[2] = {12, 9};
    NGA_Copy_patch('N', ga, alo2, ahi2, gc, clo2, chi2);
    for (int i = 0; i <= 3; ++i)
      for (int j = 0; j <= 5; ++j)
        AT(want, n, 9 + i, 4 + j) = AT(ra, n, i, 5 + j);
    check("NGA_Copy_patch", gc, t, 2, dims, want);
    /* Reshape: a[0:3, 0:5] (24 elements) into v[3:26] of a 1-D array, row-major order. */
    int vd[1] = {30}, vlo[1] = {3}, vhi[1] = {26}, rlo[2] = {0, 0}, rhi[2] = {3, 5};
    int gv = create(t, 1, vd, "V", lc);
    zc vw[30] = {0};
    GA_Zero(gv);
    NGA_Copy_patch('N', ga, rlo, rhi, gv, vlo, vhi);
    for (int k = 0; k < 24; ++k)
      vw[3 + k] = AT(ra, n, k / 6, k % 6);
    check("NGA_Copy_patch reshaped", gv, t, 1, vd, vw);
    GA_Destroy(gv);
  }
  {
    /* c[5:9, 5:10] = 2 a[0:4, 0:5] - b[8:12, 5:10] */
    int alo[2] = {0, 0}, ahi[2] = {4, 5}, blo[2] = {8, 5}, bhi[2] = {12, 10}, clo[2] = {5, 5},
        chi[2] = {9, 10};
    NGA_Add_patch(scal(t, &s1, 2), ga, alo, ahi, scal(t, &s2, -1), gb, blo, bhi, gc, clo, chi);
    for (int i = 0; i <= 4; ++i)
      for (int j = 0; j <= 5; ++j)
        AT(want, n, 5 + i, 5 + j) = 2 * AT(ra, n, i, j) - AT(rb, n, 8 + i, 5 + j);
    check("NGA_Add_patch", gc, t, 2, dims, want);
    /* dot of a[0:4, 0:5] with b[2:7, 3:7]^T */
    int blo2[2] = {2, 3}, bhi2[2] = {7, 7};
    zc d = 0;
    for (int i = 0; i <= 4; ++i)
      for (int j = 0; j <= 5; ++j)
        d += AT(ra, n, i, j) * AT(rb, n, 2 + j, 3 + i);
    expect("NGA_*dot_patch", t, dot_patch(t, ga, 'N', alo, ahi, gb, 'T', blo2, bhi2), d, 100);
  }

  /* Element-wise: |a| on a patch, b + 40 (never 0), recip, c = a op b. */
  {
    int lo[2] = {2, 3}, hi[2] = {10, 8};
    GA_Abs_value_patch(ga, lo, hi);
    for (int i = 2; i <= 10; ++i)
      for (int j = 3; j <= 8; ++j)
        AT(ra, n, i, j) = mag(AT(ra, n, i, j));
    check("GA_Abs_value_patch", ga, t, 2, dims, ra);
    GA_Add_constant(gb, scal(t, &s1, 40));
    for (long i = 0; i < size; ++i)
      rb[i] += 40;
    check("GA_Add_constant", gb, t, 2, dims, rb);
    GA_Abs_value(ga);
    for (long i = 0; i < size; ++i)
      ra[i] = mag(ra[i]);
    check("GA_Abs_value", ga, t, 2, dims, ra);
    GA_Add_constant_patch(ga, lo, hi, scal(t, &s1, 1));
    for (int i = 2; i <= 10; ++i)
      for (int j = 3; j <= 8; ++j)
        AT(ra, n, i, j) += 1;
    check("GA_Add_constant_patch", ga, t, 2, dims, ra);

    GA_Copy(gb, gc);
    GA_Recip(gc);
    for (long i = 0; i < size; ++i)
      want[i] = as_type(t, 1 / rb[i]);
    if (is_int(t))
      for (long i = 0; i < size; ++i)
        want[i] = (long)(1 / creal(rb[i]));
    check("GA_Recip", gc, t, 2, dims, want);
    GA_Copy(gb, gc);
    GA_Recip_patch(gc, lo, hi);
    for (long i = 0; i < size; ++i)
      want[i] = rb[i];
    for (int i = 2; i <= 10; ++i)
      for (int j = 3; j <= 8; ++j)
        AT(want, n, i, j) = is_int(t) ? (long)(1 / creal(AT(rb, n, i, j))) : 1 / AT(rb, n, i, j);
    check("GA_Recip_patch", gc, t, 2, dims, want);

    GA_Elem_multiply(ga, gb, gc);
    for (long i = 0; i < size; ++i)
      want[i] = ra[i] * rb[i];
    check("GA_Elem_multiply", gc, t, 2, dims, want);
    GA_Elem_divide(ga, gb, gc);
    for (long i = 0; i < size; ++i)
      want[i] = is_int(t) ? (long)creal(ra[i]) / (long)creal(rb[i]) : ra[i] / rb[i];
    check("GA_Elem_divide", gc, t, 2, dims, want);
    if (!is_cplx(t)) { /* GA compares complex elements its own way; real types only here */
      GA_Elem_maximum(ga, gb, gc);
      for (long i = 0; i < size; ++i)
        want[i] = creal(ra[i]) > creal(rb[i]) ? ra[i] : rb[i];
      check("GA_Elem_maximum", gc, t, 2, dims, want);
      GA_Elem_minimum(ga, gb, gc);
      for (long i = 0; i < size; ++i)
        want[i] = creal(ra[i]) < creal(rb[i]) ? ra[i] : rb[i];
      check("GA_Elem_minimum", gc, t, 2, dims, want);
    }
    /* Patch forms: c[0:4, 0:5] = a[3:7, 2:7] op b[8:12, 5:10] */
    int alo[2] = {3, 2}, ahi[2] = {7, 7}, blo[2] = {8, 5}, bhi[2] = {12, 10}, clo[2] = {0, 0},
        chi[2] = {4, 5};
    for (int op = 0; op < 4; ++op) {
      if (op >= 2 && is_cplx(t)) break;
      GA_Zero(gc);
      for (long i = 0; i < size; ++i)
        want[i] = 0;
      const char* name = "";
      switch (op) {
        case 0:
          GA_Elem_multiply_patch(ga, alo, ahi, gb, blo, bhi, gc, clo, chi);
          name = "GA_Elem_multiply_patch";
          break;
        case 1:
          GA_Elem_divide_patch(ga, alo, ahi, gb, blo, bhi, gc, clo, chi);
          name = "GA_Elem_divide_patch";
          break;
        case 2:
          GA_Elem_maximum_patch(ga, alo, ahi, gb, blo, bhi, gc, clo, chi);
          name = "GA_Elem_maximum_patch";
          break;
        case 3:
          GA_Elem_minimum_patch(ga, alo, ahi, gb, blo, bhi, gc, clo, chi);
          name = "GA_Elem_minimum_patch";
          break;
      }
      for (int i = 0; i <= 4; ++i)
        for (int j = 0; j <= 5; ++j) {
          zc x = AT(ra, n, 3 + i, 2 + j), y = AT(rb, n, 8 + i, 5 + j), r = 0;
          switch (op) {
            case 0:
              r = x * y;
              break;
            case 1:
              r = is_int(t) ? (long)creal(x) / (long)creal(y) : x / y;
              break;
            case 2:
              r = creal(x) > creal(y) ? x : y;
              break;
            case 3:
              r = creal(x) < creal(y) ? x : y;
              break;
          }
          AT(want, n, i, j) = r;
        }
      check(name, gc, t, 2, dims, want);
    }
    if (!is_cplx(t)) { /* median of a, b and c (C holds `want` now), whole and on patches */
      int gm = create(t, 2, dims, "M", la + 1);
      zc* wm = malloc((size_t)size * sizeof(zc));
      GA_Median(ga, gb, gc, gm);
      for (long i = 0; i < size; ++i)
        wm[i] = median3(ra[i], rb[i], want[i]);
      check("GA_Median", gm, t, 2, dims, wm);
      /* m[0:4, 6:10] = median(a[3:7, 2:6], b[8:12, 5:9], c[0:4, 0:4]) */
      int mlo[2] = {0, 6}, mhi[2] = {4, 10}, alo2[2] = {3, 2}, ahi2[2] = {7, 6}, blo2[2] = {8, 5},
          bhi2[2] = {12, 9}, clo2[2] = {0, 0}, chi2[2] = {4, 4};
      GA_Median_patch(ga, alo2, ahi2, gb, blo2, bhi2, gc, clo2, chi2, gm, mlo, mhi);
      for (int i = 0; i <= 4; ++i)
        for (int j = 0; j <= 4; ++j)
          AT(wm, n, i, 6 + j) =
              median3(AT(ra, n, 3 + i, 2 + j), AT(rb, n, 8 + i, 5 + j), AT(want, n, i, j));
      check("GA_Median_patch", gm, t, 2, dims, wm);
      GA_Destroy(gm);
      free(wm);
    }
  }
  GA_Destroy(ga);
  GA_Destroy(gb);
  GA_Destroy(gc);
  free(ra);
  free(rb);
  free(want);
}

/* Norms, transpose, select_elem, diagonal operations and symmetrize (real types). */
static void test_matrix(int t, int la, int lb) {
  int dims[2] = {13, 11}, tdims[2] = {11, 13}, m = 13, n = 11;
  long size = (long)m * n;
  int ga = create(t, 2, dims, "A", la), gt = create(t, 2, tdims, "T", lb);
  zc *ra = reference(t, 2, dims, 3), *want = malloc((size_t)size * sizeof(zc));
  load(ga, t, 2, dims, ra);
  GA_Transpose(ga, gt);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j)
      AT(want, m, i, j) = AT(ra, n, j, i);
  check("GA_Transpose", gt, t, 2, tdims, want);
  {
    /* As GA 5.8's code (and GA's normc): sum and max of |a_ij|, not the matrix norms. */
    double n1 = 0, ninf = 0, got;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        n1 += mag(AT(ra, n, i, j));
        if (mag(AT(ra, n, i, j)) > ninf) ninf = mag(AT(ra, n, i, j));
      }
    GA_Norm1(ga, &got);
    expect("GA_Norm1", MT_C_DBL, got, n1, 1);
    GA_Norm_infinity(ga, &got);
    expect("GA_Norm_infinity", MT_C_DBL, got, ninf, 1);
  }
  if (!is_cplx(t)) {
    /* Unique extremes at (4, 7) and (11, 2). */
    zc big = 100, small = -100;
    int e1[2] = {4, 7}, e2[2] = {11, 2};
    scalar v;
    AT(ra, n, 4, 7) = big;
    AT(ra, n, 11, 2) = small;
    load(ga, t, 2, dims, ra);
    int idx[2] = {-1, -1};
    NGA_Select_elem(ga, "max", &v, idx);
    expect("NGA_Select_elem max", t, get_elem(t, &v, 0), big, 1);
    if (idx[0] != e1[0] || idx[1] != e1[1]) {
      failures++;
      printf("[%d] FAIL NGA_Select_elem max (%s): index (%d, %d)\n", me, type_name(t), idx[0],
             idx[1]);
    }
    NGA_Select_elem(ga, "min", &v, idx);
    expect("NGA_Select_elem min", t, get_elem(t, &v, 0), small, 1);
    if (idx[0] != e2[0] || idx[1] != e2[1]) {
      failures++;
      printf("[%d] FAIL NGA_Select_elem min (%s): index (%d, %d)\n", me, type_name(t), idx[0],
             idx[1]);
    }
  }
  {
    /* Diagonal of a 13 x 11 matrix: 11 elements. Row and column vectors. */
    int k = n, kd[1] = {n}, md[1] = {m}, nd[1] = {n};
    int gv = create(t, 1, kd, "V", la), gr = create(t, 1, md, "R", lb),
        gk = create(t, 1, nd, "K", 0);
    zc *rv = reference(t, 1, kd, 4), *rr = reference(t, 1, md, 5), *rk = reference(t, 1, nd, 6);
    zc* got = malloc((size_t)k * sizeof(zc));
    load(gv, t, 1, kd, rv);
    load(gr, t, 1, md, rr);
    load(gk, t, 1, nd, rk);
    load(ga, t, 2, dims, ra);
    int gd = create(t, 1, kd, "D", lb);
    GA_Get_diag(ga, gd);
    for (int i = 0; i < k; ++i)
      got[i] = AT(ra, n, i, i);
    check("GA_Get_diag", gd, t, 1, kd, got);
    GA_Add_diagonal(ga, gv);
    for (int i = 0; i < k; ++i)
      AT(ra, n, i, i) += rv[i];
    check("GA_Add_diagonal", ga, t, 2, dims, ra);
    scalar s;
    GA_Shift_diagonal(ga, scal(t, &s, 5));
    for (int i = 0; i < k; ++i)
      AT(ra, n, i, i) += 5;
    check("GA_Shift_diagonal", ga, t, 2, dims, ra);
    GA_Scale_rows(ga, gr);
    GA_Scale_cols(ga, gk);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        AT(ra, n, i, j) *= rr[i] * rk[j];
    check("GA_Scale_rows/cols", ga, t, 2, dims, ra);
    GA_Set_diagonal(ga, gv);
    for (int i = 0; i < k; ++i)
      AT(ra, n, i, i) = rv[i];
    check("GA_Set_diagonal", ga, t, 2, dims, ra);
    GA_Zero_diagonal(ga);
    for (int i = 0; i < k; ++i)
      AT(ra, n, i, i) = 0;
    check("GA_Zero_diagonal", ga, t, 2, dims, ra);
    GA_Destroy(gv);
    GA_Destroy(gr);
    GA_Destroy(gk);
    GA_Destroy(gd);
    free(rv);
    free(rr);
    free(rk);
    free(got);
  }
  if (t == MT_C_DBL) { /* GA implements symmetrize for double only */
    int sd[2] = {12, 12};
    int gs = create(t, 2, sd, "S", lb);
    zc *rs = reference(t, 2, sd, 7), *ws = malloc(144 * sizeof(zc));
    load(gs, t, 2, sd, rs);
    GA_Symmetrize(gs);
    for (int i = 0; i < 12; ++i)
      for (int j = 0; j < 12; ++j)
        AT(ws, 12, i, j) = 0.5 * (AT(rs, 12, i, j) + AT(rs, 12, j, i));
    check("GA_Symmetrize", gs, t, 2, sd, ws);
    GA_Destroy(gs);
    free(rs);
    free(ws);
  }
  GA_Destroy(ga);
  GA_Destroy(gt);
  free(ra);
  free(want);
}

/* GA_[DSZC]gemm, GA_Matmul_patch and NGA_Matmul_patch. */
static void gemm_call(int t, char ta, char tb, int m, int n, int k, zc alpha, int ga, int gb,
                      zc beta, int gc) {
  switch (t) {
    case MT_C_DBL:
      GA_Dgemm(ta, tb, m, n, k, creal(alpha), ga, gb, creal(beta), gc);
      break;
    case MT_C_FLOAT:
      GA_Sgemm(ta, tb, m, n, k, (float)creal(alpha), ga, gb, (float)creal(beta), gc);
      break;
    case MT_C_DCPL: {
      DoubleComplex a = {creal(alpha), cimag(alpha)}, b = {creal(beta), cimag(beta)};
      GA_Zgemm(ta, tb, m, n, k, a, ga, gb, b, gc);
      break;
    }
    default: {
      SingleComplex a = {(float)creal(alpha), (float)cimag(alpha)},
                    b = {(float)creal(beta), (float)cimag(beta)};
      GA_Cgemm(ta, tb, m, n, k, a, ga, gb, b, gc);
    }
  }
}

static void test_gemm(int t, int la, int lb, int lc) {
  const int m = 9, n = 7, k = 6;
  for (int pass = 0; pass < 4; ++pass) {
    char ta = pass & 1 ? 'T' : 'N', tb = pass & 2 ? 'T' : 'N';
    int da[2] = {ta == 'N' ? m : k, ta == 'N' ? k : m},
        db[2] = {tb == 'N' ? k : n, tb == 'N' ? n : k}, dc[2] = {m, n};
    int ga = create(t, 2, da, "A", la), gb = create(t, 2, db, "B", lb),
        gc = create(t, 2, dc, "C", lc);
    zc *ra = reference(t, 2, da, 1), *rb = reference(t, 2, db, 2), *rc = reference(t, 2, dc, 3);
    zc alpha = is_cplx(t) ? 2 - I : 2, beta = is_cplx(t) ? 0.5 + I : -1;
    load(ga, t, 2, da, ra);
    load(gb, t, 2, db, rb);
    load(gc, t, 2, dc, rc);
    gemm_call(t, ta, tb, m, n, k, alpha, ga, gb, beta, gc);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        zc s = 0;
        for (int p = 0; p < k; ++p)
          s += (ta == 'N' ? AT(ra, k, i, p) : AT(ra, m, p, i)) *
               (tb == 'N' ? AT(rb, n, p, j) : AT(rb, k, j, p));
        AT(rc, n, i, j) = alpha * s + beta * AT(rc, n, i, j);
      }
    check("GA_*gemm", gc, t, 2, dc, rc);
    GA_Destroy(ga);
    GA_Destroy(gb);
    GA_Destroy(gc);
    free(ra);
    free(rb);
    free(rc);
  }
  if (t == MT_C_DBL || t == MT_C_DCPL) {
    /* c[2:6, 1:8] = alpha a[1:5, 3:6] b[0:3, 2:9] + beta c (GA_), then the transposed NGA_ form:
     * c[2:6, 1:8] = alpha a[3:6, 1:5]^T b[2:9, 0:3]^T + beta c. */
    int dims[2] = {12, 12};
    int ga = create(t, 2, dims, "A", la), gb = create(t, 2, dims, "B", lb),
        gc = create(t, 2, dims, "C", lc);
    zc *ra = reference(t, 2, dims, 4), *rb = reference(t, 2, dims, 5),
       *rc = reference(t, 2, dims, 6);
    scalar sa, sb;
    zc alpha = 3, beta = -2;
    load(ga, t, 2, dims, ra);
    load(gb, t, 2, dims, rb);
    load(gc, t, 2, dims, rc);
    GA_Matmul_patch('N', 'N', scal(t, &sa, alpha), scal(t, &sb, beta), ga, 1, 5, 3, 6, gb, 0, 3, 2,
                    9, gc, 2, 6, 1, 8);
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 8; ++j) {
        zc s = 0;
        for (int p = 0; p < 4; ++p)
          s += AT(ra, 12, 1 + i, 3 + p) * AT(rb, 12, p, 2 + j);
        AT(rc, 12, 2 + i, 1 + j) = alpha * s + beta * AT(rc, 12, 2 + i, 1 + j);
      }
    check("GA_Matmul_patch", gc, t, 2, dims, rc);
    int alo[2] = {3, 1}, ahi[2] = {6, 5}, blo[2] = {2, 0}, bhi[2] = {9, 3}, clo[2] = {2, 1},
        chi[2] = {6, 8};
    NGA_Matmul_patch('T', 'T', scal(t, &sa, alpha), scal(t, &sb, beta), ga, alo, ahi, gb, blo, bhi,
                     gc, clo, chi);
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 8; ++j) {
        zc s = 0;
        for (int p = 0; p < 4; ++p)
          s += AT(ra, 12, 3 + p, 1 + i) * AT(rb, 12, 2 + j, p);
        AT(rc, 12, 2 + i, 1 + j) = alpha * s + beta * AT(rc, 12, 2 + i, 1 + j);
      }
    check("NGA_Matmul_patch", gc, t, 2, dims, rc);
    GA_Destroy(ga);
    GA_Destroy(gb);
    GA_Destroy(gc);
    free(ra);
    free(rb);
    free(rc);
  }
}

/* Scans, pack/unpack and enumerate on 1-D arrays with an int mask. */
static void test_scan(int t, int ls, int lm) {
  enum { n = 37, lo = 3, hi = 33 };
  int dims[1] = {n};
  int gs = create(t, 1, dims, "src", ls), gd = create(t, 1, dims, "dst", lm),
      gm = create(MT_C_INT, 1, dims, "mask", lm ^ 1);
  zc *rs = reference(t, 1, dims, 1), *want = malloc(n * sizeof(zc)), *mask = calloc(n, sizeof(zc));
  static const int starts[] = {3, 5, 6, 17, 30};
  for (int i = 0; i < (int)(sizeof starts / sizeof *starts); ++i)
    mask[starts[i]] = 1 + i % 2;
  load(gs, t, 1, dims, rs);
  load(gm, MT_C_INT, 1, dims, mask);
  for (int excl = 0; excl <= 2; ++excl) {
    zc acc = 0;
    GA_Zero(gd);
    for (int i = 0; i < n; ++i)
      want[i] = 0;
    for (int i = lo; i <= hi; ++i) {
      int start = creal(mask[i]) != 0;
      if (excl == 2) {
        if (start) acc = rs[i];
        want[i] = acc;
      } else {
        zc before = start ? 0 : acc;
        acc = before + rs[i];
        want[i] = excl ? before : acc;
      }
    }
    if (excl == 2)
      GA_Scan_copy(gs, gd, gm, lo, hi);
    else
      GA_Scan_add(gs, gd, gm, lo, hi, excl);
    check(excl == 2 ? "GA_Scan_copy"
          : excl    ? "GA_Scan_add exclusive"
                    : "GA_Scan_add",
          gd, t, 1, dims, want);
  }
  {
    int count = -1, c = 0;
    GA_Zero(gd);
    for (int i = 0; i < n; ++i)
      want[i] = 0;
    for (int i = lo; i <= hi; ++i)
      if (creal(mask[i]) != 0) want[c++] = rs[i];
    GA_Pack(gs, gd, gm, lo, hi, &count);
    check("GA_Pack", gd, t, 1, dims, want);
    if (count != c) {
      failures++;
      printf("[%d] FAIL GA_Pack (%s): count %d, expected %d\n", me, type_name(t), count, c);
    }
    int gu = create(t, 1, dims, "unpacked", ls);
    zc* wu = calloc(n, sizeof(zc));
    GA_Zero(gu);
    count = -1;
    GA_Unpack(gd, gu, gm, lo, hi, &count);
    c = 0;
    for (int i = lo; i <= hi; ++i)
      if (creal(mask[i]) != 0) wu[i] = want[c++];
    check("GA_Unpack", gu, t, 1, dims, wu);
    GA_Destroy(gu);
    free(wu);
  }
  {
    scalar s0, s1;
    GA_Zero(gd);
    GA_Patch_enum(gd, 4, 30, scal(t, &s0, 10), scal(t, &s1, 3));
    for (int i = 0; i < n; ++i)
      want[i] = i >= 4 && i <= 30 ? 10 + 3 * (i - 4) : 0;
    check("GA_Patch_enum", gd, t, 1, dims, want);
  }
  GA_Destroy(gs);
  GA_Destroy(gd);
  GA_Destroy(gm);
  free(rs);
  free(want);
  free(mask);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  if (!MA_init(MT_DBL, 100000, 100000)) GA_Error("MA_init failed", 0);
  me = GA_Nodeid();
  nproc = GA_Nnodes();
  if (getenv("MATH_LAYOUTS")) nlayouts = atoi(getenv("MATH_LAYOUTS"));

  for (int k = 0; k < ntypes; ++k) {
    int t = all_types[k];
    const char* only = getenv("MATH_ONLY_TYPE"); /* debugging aid: run one element type */
    if (only && strcmp(only, type_name(t)) != 0) continue;
    for (int l = 0; l < nlayouts; ++l)
      test_basic(t, l, (l + 1) % nlayouts, (l + 2) % nlayouts);
    test_matrix(t, k % nlayouts, (k + 1) % nlayouts);
    if (!is_int(t)) test_gemm(t, k % nlayouts, (k + 2) % nlayouts, (k + 3) % nlayouts);
    if (t != MT_C_SCPL && t != MT_C_DCPL) test_scan(t, k % 3, (k + 1) % 3);
  }

  /* The print calls run (their output is for people). */
  {
    int dims[2] = {3, 4};
    int g = NGA_Create(MT_C_DBL, 2, dims, "printed", NULL);
    double one = 1;
    GA_Fill(g, &one);
    GA_Print(g);
    GA_Print_patch(g, 0, 1, 1, 2, 1);
    GA_Print_distribution(g);
    GA_Summarize(0);
    GA_Destroy(g);
  }

  long total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (total)
    GA_Error("ga_compat math: checks failed (see above); failures on all ranks:", (int)total);
  if (me == 0) printf("ga_compat math: passed on %d ranks\n", nproc);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
