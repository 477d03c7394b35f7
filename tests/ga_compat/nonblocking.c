/* GA C API, non-blocking transfers and element lists: NGA_NbPut/NbGet/NbAcc (and 64-bit) with
 * NGA_NbWait/NbTest, NGA_Gather/Scatter/Scatter_acc (pointer and flat subscripts, 64-bit),
 * NGA_Read_inc and the gather/scatter buffer hints — checked against values every rank can
 * compute. A GA-style program: plain C, ga.h and macdecls.h only. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "ga.h"
#include "macdecls.h"

static int me, nproc;

enum { ROWS = 29, COLS = 17 };

static double value_at(int i, int j) {
  return 100.0 * i + j;
}

/* Each rank puts its rows with one non-blocking put per row, all outstanding at once; every
 * rank then gets the whole array row by row with non-blocking gets (completed by NbTest polling
 * and NbWait) and accumulates into it with non-blocking accs. */
static void test_nb_put_get_acc(void) {
  int dims[2] = {ROWS, COLS};
  int g = NGA_Create(C_DBL, 2, dims, "nb", NULL);
  CHECK(g != 0, "NGA_Create");
  GA_Zero(g);
  double* rows = malloc(sizeof(double) * ROWS * COLS);
  ga_nbhdl_t* h = malloc(sizeof(ga_nbhdl_t) * ROWS);
  int mine = 0;
  for (int i = me; i < ROWS; i += nproc, ++mine) {
    int lo[2] = {i, 0}, hi[2] = {i, COLS - 1}, ld[1] = {COLS};
    for (int j = 0; j < COLS; ++j)
      rows[i * COLS + j] = value_at(i, j);
    NGA_NbPut(g, lo, hi, &rows[i * COLS], ld, &h[mine]);
  }
  for (int k = 0; k < mine; ++k)
    NGA_NbWait(&h[k]);
  for (int k = 0; k < mine; ++k)
    NGA_NbWait(&h[k]); /* a completed handle: returns at once, as in GA */
  GA_Sync();

  double* got = malloc(sizeof(double) * ROWS * COLS);
  for (int k = 0; k < ROWS * COLS; ++k)
    got[k] = -1.0;
  for (int i = 0; i < ROWS; ++i) {
    int lo[2] = {i, 0}, hi[2] = {i, COLS - 1}, ld[1] = {COLS};
    NGA_NbGet(g, lo, hi, &got[i * COLS], ld, &h[i]);
  }
  int pending = ROWS, spins = 0;
  while (pending > 0 && spins++ < 100000) {
    pending = 0;
    for (int i = 0; i < ROWS; ++i)
      pending += !NGA_NbTest(&h[i]); /* 1 once complete (GA 5.8) */
  }
  for (int i = 0; i < ROWS; ++i)
    GA_NbWait(&h[i]);
  for (int i = 0; i < ROWS; ++i) {
    CHECK(NGA_NbTest(&h[i]) == 1, "NbTest of a waited handle");
    for (int j = 0; j < COLS; ++j)
      CHECK(got[i * COLS + j] == value_at(i, j), "nb get (%d,%d) = %g, expected %g", i, j,
            got[i * COLS + j], value_at(i, j));
  }
  GA_Sync();

  /* Everyone adds 3 * (i + 1) to column block [4, 9] of every row, one NbAcc per row. */
  double add[ROWS * 6], alpha = 3.0;
  for (int i = 0; i < ROWS; ++i) {
    int lo[2] = {i, 4}, hi[2] = {i, 9}, ld[1] = {6};
    for (int j = 0; j < 6; ++j)
      add[i * 6 + j] = i + 1;
    NGA_NbAcc(g, lo, hi, &add[i * 6], ld, &alpha, &h[i]);
  }
  for (int i = 0; i < ROWS; ++i)
    NGA_NbWait(&h[i]);
  GA_Sync();
  {
    int lo[2] = {0, 0}, hi[2] = {ROWS - 1, COLS - 1}, ld[1] = {COLS};
    NGA_Get(g, lo, hi, got, ld);
    for (int i = 0; i < ROWS; ++i)
      for (int j = 0; j < COLS; ++j) {
        const double want = value_at(i, j) + (j >= 4 && j <= 9 ? 3.0 * (i + 1) * nproc : 0.0);
        CHECK(got[i * COLS + j] == want, "nb acc (%d,%d) = %g, expected %g", i, j,
              got[i * COLS + j], want);
      }
  }
  GA_Sync();

  /* 64-bit forms on an int array. */
  int dims1[1] = {50};
  int gi = NGA_Create(C_INT, 1, dims1, "nb64", NULL);
  GA_Zero(gi);
  if (me == nproc - 1) {
    int v[50];
    for (int k = 0; k < 50; ++k)
      v[k] = 7 * k;
    int64_t lo[1] = {0}, hi[1] = {49};
    ga_nbhdl_t hp;
    NGA_NbPut64(gi, lo, hi, v, NULL, &hp);
    NGA_NbWait(&hp);
  }
  GA_Sync();
  {
    int v[20], one[20], ia = 1;
    int64_t lo[1] = {10}, hi[1] = {29};
    for (int k = 0; k < 20; ++k)
      one[k] = 1;
    ga_nbhdl_t ha, hg;
    NGA_NbAcc64(gi, lo, hi, one, NULL, &ia, &ha);
    NGA_NbWait(&ha);
    GA_Sync();
    NGA_NbGet64(gi, lo, hi, v, NULL, &hg);
    NGA_NbWait(&hg);
    for (int k = 0; k < 20; ++k)
      CHECK(v[k] == 7 * (k + 10) + nproc, "nb64 [%d] = %d", k + 10, v[k]);
  }
  GA_Destroy(gi);
  GA_Destroy(g);
  free(rows);
  free(got);
  free(h);
}

/* Gather, scatter and scatter_acc with GA's two subscript layouts (pointers and flat), 32- and
 * 64-bit, on a 2-D double array and a complex array. */
static void test_gather_scatter(void) {
  int dims[2] = {13, 11};
  int g = NGA_Create(C_DBL, 2, dims, "elems", NULL);
  GA_Zero(g);
  /* Rank r scatters the elements (i, j) with (i + j) % nproc == r. */
  int n = 0;
  int* flat = malloc(sizeof(int) * 2 * 13 * 11);
  int** ptrs = malloc(sizeof(int*) * 13 * 11);
  double* v = malloc(sizeof(double) * 13 * 11);
  for (int i = 0; i < 13; ++i)
    for (int j = 0; j < 11; ++j)
      if ((i + j) % nproc == me) {
        flat[2 * n] = i;
        flat[2 * n + 1] = j;
        ptrs[n] = &flat[2 * n];
        v[n] = value_at(i, j);
        ++n;
      }
  NGA_Scatter(g, v, ptrs, n);
  GA_Sync();
  /* Everyone gathers the whole array (flat subscripts), in reverse order. */
  int total = 13 * 11;
  int* all = malloc(sizeof(int) * 2 * total);
  double* got = malloc(sizeof(double) * total);
  for (int k = 0; k < total; ++k) {
    const int lin = total - 1 - k;
    all[2 * k] = lin / 11;
    all[2 * k + 1] = lin % 11;
  }
  NGA_Gather_flat(g, got, all, total);
  for (int k = 0; k < total; ++k)
    CHECK(got[k] == value_at(all[2 * k], all[2 * k + 1]), "gather_flat %d = %g", k, got[k]);
  GA_Sync();
  /* Scatter_acc: every rank adds 0.5 * 2 to the diagonal (pointer subscripts), then
   * Scatter_acc_flat adds 1 * 1 to row 0. */
  int diag[11][2];
  int* dptr[11];
  double twos[11], ones[11], half = 0.5, unit = 1.0;
  int row0[2 * 11];
  for (int k = 0; k < 11; ++k) {
    diag[k][0] = k;
    diag[k][1] = k;
    dptr[k] = diag[k];
    twos[k] = 2.0;
    ones[k] = 1.0;
    row0[2 * k] = 0;
    row0[2 * k + 1] = k;
  }
  NGA_Scatter_acc(g, twos, dptr, 11, &half);
  NGA_Scatter_acc_flat(g, ones, row0, 11, &unit);
  GA_Sync();
  NGA_Gather(g, got, dptr, 11);
  for (int k = 0; k < 11; ++k) {
    const double want = value_at(k, k) + nproc * (1.0 + (k == 0 ? 1.0 : 0.0));
    CHECK(got[k] == want, "scatter_acc diagonal %d = %g, expected %g", k, got[k], want);
  }
  GA_Sync();
  /* Scatter_flat overwrites row 12, then 64-bit pointer-form gather reads it. */
  if (me == 0) {
    int r12[2 * 11];
    double vals[11];
    for (int k = 0; k < 11; ++k) {
      r12[2 * k] = 12;
      r12[2 * k + 1] = k;
      vals[k] = -k;
    }
    NGA_Scatter_flat(g, vals, r12, 11);
  }
  GA_Sync();
  {
    int64_t s[11][2];
    int64_t* sp[11];
    double out[11];
    for (int k = 0; k < 11; ++k) {
      s[k][0] = 12;
      s[k][1] = k;
      sp[k] = s[k];
    }
    NGA_Gather64(g, out, sp, 11);
    for (int k = 0; k < 11; ++k)
      CHECK(out[k] == -k, "gather64 row 12 [%d] = %g", k, out[k]);
    int64_t f64[2 * 11];
    for (int k = 0; k < 11; ++k) {
      f64[2 * k] = 12;
      f64[2 * k + 1] = k;
    }
    GA_Sync();
    double inc[11], a1 = 1.0;
    for (int k = 0; k < 11; ++k)
      inc[k] = 1.0;
    NGA_Scatter_acc_flat64(g, inc, f64, 11, &a1);
    GA_Sync();
    NGA_Gather_flat64(g, out, f64, 11);
    for (int k = 0; k < 11; ++k)
      CHECK(out[k] == -k + nproc, "scatter_acc_flat64 row 12 [%d] = %g", k, out[k]);
  }
  GA_Destroy(g);

  /* A complex array through the same path. */
  int zd[1] = {9};
  int gz = NGA_Create(C_DCPL, 1, zd, "zelems", NULL);
  GA_Zero(gz);
  if (me == 0) {
    DoubleComplex z[9];
    int zs[9];
    for (int k = 0; k < 9; ++k) {
      z[k].real = k;
      z[k].imag = -2.0 * k;
      zs[k] = 8 - k;
    }
    NGA_Scatter_flat(gz, z, zs, 9);
  }
  GA_Sync();
  {
    DoubleComplex z[9];
    int zs[9];
    for (int k = 0; k < 9; ++k)
      zs[k] = k;
    NGA_Gather_flat(gz, z, zs, 9);
    for (int k = 0; k < 9; ++k)
      CHECK(z[k].real == 8 - k && z[k].imag == -2.0 * (8 - k), "complex gather [%d]", k);
  }
  GA_Destroy(gz);
  free(flat);
  free(ptrs);
  free(v);
  free(all);
  free(got);
}

/* NGA_Read_inc hands out every ticket exactly once (C_INT and C_LONG arrays); the tickets of all
 * ranks are collected in another array and checked there. */
static void test_read_inc(void) {
  int one[1] = {1}, two[2] = {3, 4};
  int gc = NGA_Create(C_LONG, 1, one, "counter", NULL);
  int gi = NGA_Create(C_INT, 2, two, "icounter", NULL);
  GA_Zero(gc);
  GA_Zero(gi);
  enum { K = 40 };
  long mine[2 * K];
  int sub0[1] = {0}, sub[2] = {2, 3};
  int64_t sub64[2] = {2, 3};
  for (int k = 0; k < K; ++k) {
    mine[k] = NGA_Read_inc(gc, sub0, 3);
    mine[K + k] = k % 2 ? NGA_Read_inc(gi, sub, 1) : NGA_Read_inc64(gi, sub64, 1);
  }
  int tdims[2] = {nproc, 2 * K};
  int gt = NGA_Create(C_LONG, 2, tdims, "tickets", NULL);
  {
    int lo[2] = {me, 0}, hi[2] = {me, 2 * K - 1};
    NGA_Put(gt, lo, hi, mine, NULL);
  }
  GA_Sync();
  long* all = malloc(sizeof(long) * nproc * 2 * K);
  {
    int lo[2] = {0, 0}, hi[2] = {nproc - 1, 2 * K - 1}, ld[1] = {2 * K};
    NGA_Get(gt, lo, hi, all, ld);
  }
  char* seen3 = calloc((size_t)(K * nproc), 1);
  char* seen1 = calloc((size_t)(K * nproc), 1);
  for (int r = 0; r < nproc; ++r)
    for (int k = 0; k < K; ++k) {
      const long a = all[r * 2 * K + k], b = all[r * 2 * K + K + k];
      CHECK(a % 3 == 0 && a >= 0 && a < 3L * K * nproc && !seen3[a / 3], "ticket %ld", a);
      CHECK(b >= 0 && b < (long)K * nproc && !seen1[b], "int ticket %ld", b);
      seen3[a / 3] = 1;
      seen1[b] = 1;
    }
  long fin;
  NGA_Get(gc, sub0, sub0, &fin, NULL);
  CHECK(fin == 3L * K * nproc, "final counter %ld", fin);
  GA_Sync();
  NGA_Alloc_gatscat_buf(100);
  NGA_Free_gatscat_buf();
  free(all);
  free(seen3);
  free(seen1);
  GA_Destroy(gt);
  GA_Destroy(gi);
  GA_Destroy(gc);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  me = GA_Nodeid();
  nproc = GA_Nnodes();
  test_nb_put_get_acc();
  test_gather_scatter();
  test_read_inc();
  GA_Sync();
  if (me == 0) printf("ga_compat nonblocking: all checks passed on %d ranks\n", nproc);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
