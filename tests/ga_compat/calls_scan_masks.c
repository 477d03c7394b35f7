/* GA_Scan_add (inclusive, exclusive), GA_Scan_copy, GA_Pack, GA_Unpack and GA_Patch_enum (and
 * their 64-bit twins) on every element type, each with a mask of every element type (nonzero =
 * set; a complex mask element is set when either part is nonzero, a float one even when it
 * truncates to 0), as GA 5.8's code does and GA's own scan/pack tests use. Segments start at set
 * mask elements only: within [lo, hi] the elements before the first set one belong to no
 * segment, and GA_Scan_add leaves them as they are while GA_Scan_copy sets them to 0 (GA 5.8's
 * code). Plain GA C: every rank checks the whole result against its own serial reference. */
#include <complex.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ga.h"
#include "macdecls.h"

typedef double complex zc;

enum { N = 211, NTYPES = 7 };
static const int types[NTYPES] = {C_INT, C_LONG, C_LONGLONG, C_FLOAT, C_DBL, C_SCPL, C_DCPL};
static const char* const names[NTYPES] = {"C_INT", "C_LONG", "C_LONGLONG", "C_FLOAT",
                                          "C_DBL", "C_SCPL", "C_DCPL"};
static int me;

static size_t size_of(int t) {
  switch (t) {
    case C_INT:
    case C_FLOAT:
      return 4;
    case C_DCPL:
      return 16;
    default:
      return 8;
  }
}

static void store(int t, void* buf, int i, zc v) {
  switch (t) {
    case C_INT:
      ((int*)buf)[i] = (int)creal(v);
      break;
    case C_LONG:
      ((long*)buf)[i] = (long)creal(v);
      break;
    case C_LONGLONG:
      ((long long*)buf)[i] = (long long)creal(v);
      break;
    case C_FLOAT:
      ((float*)buf)[i] = (float)creal(v);
      break;
    case C_DBL:
      ((double*)buf)[i] = creal(v);
      break;
    case C_SCPL:
      ((SingleComplex*)buf)[i].real = (float)creal(v);
      ((SingleComplex*)buf)[i].imag = (float)cimag(v);
      break;
    default:
      ((DoubleComplex*)buf)[i].real = creal(v);
      ((DoubleComplex*)buf)[i].imag = cimag(v);
      break;
  }
}

static zc load(int t, const void* buf, int i) {
  switch (t) {
    case C_INT:
      return ((const int*)buf)[i];
    case C_LONG:
      return ((const long*)buf)[i];
    case C_LONGLONG:
      return (double)((const long long*)buf)[i];
    case C_FLOAT:
      return ((const float*)buf)[i];
    case C_DBL:
      return ((const double*)buf)[i];
    case C_SCPL:
      return ((const SingleComplex*)buf)[i].real + I * ((const SingleComplex*)buf)[i].imag;
    default:
      return ((const DoubleComplex*)buf)[i].real + I * ((const DoubleComplex*)buf)[i].imag;
  }
}

static int is_complex(int t) {
  return t == C_SCPL || t == C_DCPL;
}

/* The element as type t holds it (integers drop the fraction, real types the imaginary part). */
static zc as_type(int t, zc v) {
  char tmp[16];
  store(t, tmp, 0, v);
  return load(t, tmp, 0);
}

static int whole_create(int t, const char* name) {
  int dims[1] = {N};
  int g = NGA_Create(t, 1, dims, (char*)name, NULL);
  CHECK(g != 0, "NGA_Create %s", name);
  return g;
}

static void put_all(int g, int t, const zc* v) {
  if (me == 0) {
    void* buf = malloc(N * size_of(t));
    int lo[1] = {0}, hi[1] = {N - 1};
    for (int i = 0; i < N; ++i)
      store(t, buf, i, v[i]);
    NGA_Put(g, lo, hi, buf, NULL);
    free(buf);
  }
  GA_Sync();
}

static int type_index(int t) {
  for (int k = 0; k < NTYPES; ++k)
    if (types[k] == t) return k;
  return 0;
}

/* Array g (type t) must hold want[] (as type t holds it) everywhere. */
static void expect(const char* what, int g, int t, int mt, const zc* want, int lo, int hi) {
  void* buf = malloc(N * size_of(t));
  int alo[1] = {0}, ahi[1] = {N - 1};
  NGA_Get(g, alo, ahi, buf, NULL);
  for (int i = 0; i < N; ++i) {
    const zc got = load(t, buf, i), w = as_type(t, want[i]);
    CHECK(got == w,
          "%s of %s with a %s mask over [%d, %d]: element %d is (%g, %g), expected (%g, %g)", what,
          names[type_index(t)], names[type_index(mt)], lo, hi, i, creal(got), cimag(got), creal(w),
          cimag(w));
  }
  free(buf);
}

static void fill_with(int g, int t, zc v) {
  char value[16];
  store(t, value, 0, v);
  GA_Fill(g, value);
}

/* A mask of type mt: set elements at i % 9 == 4 and i % 13 == 0 from `first` on; its values are
 * nonzero in ways an integer cast or a real part would miss where the type allows. */
static void make_mask(int mt, int first, int empty, zc* m) {
  for (int i = 0; i < N; ++i) {
    m[i] = 0;
    if (empty || i < first || (i % 9 != 4 && i % 13 != 0)) continue;
    if (is_complex(mt))
      m[i] = i % 2 ? 2.0 * I : 1.5; /* imaginary part only, or real part only */
    else if (mt == C_FLOAT || mt == C_DBL)
      m[i] = i % 2 ? 0.25 : -3.0; /* 0.25 truncates to 0 yet is set */
    else
      m[i] = i % 2 ? 1 : -7;
  }
}

static void run(int t, int mt, int lo, int hi, int first, int empty, int use64) {
  const char* tn = names[type_index(t)];
  const char* mn = names[type_index(mt)];
  zc src[N], msk[N], want[N], sentinel = 7;
  for (int i = 0; i < N; ++i)
    src[i] = is_complex(t) ? (i + 1) - I * (i % 5) : (zc)(i + 1);
  make_mask(mt, first, empty, msk);
  int gs = whole_create(t, "src"), gd = whole_create(t, "dst"), gm = whole_create(mt, "mask"),
      gu = whole_create(t, "unpacked");
  put_all(gs, t, src);
  put_all(gm, mt, msk);

  /* Scans: 0 inclusive add, 1 exclusive add, 2 copy. */
  for (int kind = 0; kind < 3; ++kind) {
    fill_with(gd, t, sentinel);
    zc acc = 0;
    int active = 0;
    for (int i = 0; i < N; ++i)
      want[i] = sentinel;
    for (int i = lo; i <= hi; ++i) {
      const int begins = msk[i] != 0;
      active = active || begins;
      if (kind == 2) {
        if (begins) acc = as_type(t, src[i]);
        want[i] = acc; /* 0 before the first set element (GA 5.8) */
      } else if (active) {
        const zc before = begins ? 0 : acc;
        acc = before + as_type(t, src[i]);
        want[i] = kind == 0 ? acc : before;
      }
    }
    if (kind == 2) {
      if (use64)
        GA_Scan_copy64(gs, gd, gm, lo, hi);
      else
        GA_Scan_copy(gs, gd, gm, lo, hi);
    } else if (use64) {
      GA_Scan_add64(gs, gd, gm, lo, hi, kind);
    } else {
      GA_Scan_add(gs, gd, gm, lo, hi, kind);
    }
    expect(kind == 2 ? "GA_Scan_copy"
           : kind    ? "GA_Scan_add exclusive"
                     : "GA_Scan_add",
           gd, t, mt, want, lo, hi);
  }

  /* Pack into dst, then unpack that into a fresh array. */
  fill_with(gd, t, sentinel);
  fill_with(gu, t, sentinel);
  int c = 0;
  for (int i = 0; i < N; ++i)
    want[i] = sentinel;
  for (int i = lo; i <= hi; ++i)
    if (msk[i] != 0) want[c++] = src[i];
  long count = -1;
  if (use64) {
    int64_t n64 = -1;
    GA_Pack64(gs, gd, gm, lo, hi, &n64);
    count = (long)n64;
  } else {
    int n32 = -1;
    GA_Pack(gs, gd, gm, lo, hi, &n32);
    count = n32;
  }
  CHECK(count == c, "GA_Pack of %s with a %s mask over [%d, %d]: icount %ld, expected %d", tn, mn,
        lo, hi, count, c);
  expect("GA_Pack", gd, t, mt, want, lo, hi);
  zc packed[N];
  memcpy(packed, want, sizeof packed);
  for (int i = 0; i < N; ++i)
    want[i] = sentinel;
  c = 0;
  for (int i = lo; i <= hi; ++i)
    if (msk[i] != 0) want[i] = packed[c++];
  if (use64) {
    int64_t n64 = -1;
    GA_Unpack64(gd, gu, gm, lo, hi, &n64);
    count = (long)n64;
  } else {
    int n32 = -1;
    GA_Unpack(gd, gu, gm, lo, hi, &n32);
    count = n32;
  }
  CHECK(count == c, "GA_Unpack of %s with a %s mask over [%d, %d]: icount %ld, expected %d", tn, mn,
        lo, hi, count, c);
  expect("GA_Unpack", gu, t, mt, want, lo, hi);

  GA_Destroy(gu);
  GA_Destroy(gm);
  GA_Destroy(gd);
  GA_Destroy(gs);
}

/* a[i] = start + (i - lo) * inc over [lo, hi]; the rest keeps its values. */
static void run_enum(int t, int lo, int hi, int use64) {
  int g = whole_create(t, "enum");
  char start[16], inc[16];
  const zc s = is_complex(t) ? 2 + 1 * I : 2, d = is_complex(t) ? 3 - 1 * I : 3;
  store(t, start, 0, s);
  store(t, inc, 0, d);
  fill_with(g, t, 5);
  if (use64)
    GA_Patch_enum64(g, lo, hi, start, inc);
  else
    GA_Patch_enum(g, lo, hi, start, inc);
  zc want[N];
  for (int i = 0; i < N; ++i)
    want[i] = i >= lo && i <= hi ? s + (double)(i - lo) * d : 5;
  expect("GA_Patch_enum", g, t, t, want, lo, hi);
  GA_Destroy(g);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  me = GA_Nodeid();
  /* [lo, hi] ranges: the whole array; one starting before the first set mask element (which is
   * at `first`); and the same with no element set at all. */
  for (int a = 0; a < NTYPES; ++a) {
    for (int b = 0; b < NTYPES; ++b) {
      const int use64 = (a + b) % 2;
      run(types[a], types[b], 0, N - 1, 0, 0, use64);
      run(types[a], types[b], N / 5, N - 23, N / 5 + 11, 0, !use64);
      if (b == a) run(types[a], types[b], N / 3, N / 3 + 40, 0, 1, use64);
    }
    run_enum(types[a], 3, N - 10, a % 2);
  }
  GA_Sync();
  if (me == 0) printf("calls_scan_masks: all scans, packs and enumerations agree\n");
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
