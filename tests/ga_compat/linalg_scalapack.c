/* GA C API dense linear algebra at sizes that do not fit the tiles (odd n, 1 to 61; 1 and 3
 * right-hand sides), with the arrays in different distributions (block, block-cyclic with odd
 * tiles, a tiny chunked block): GA_Diag_std, GA_Diag, GA_Diag_seq, GA_Diag_std_seq, GA_Diag_reuse,
 * GA_Lu_solve ('n', 't'), GA_Llt_solve, GA_Solve and GA_Spd_invert, checked by residuals every
 * rank computes from the arrays. On ScaLAPACK builds the process grid is 1 x 1, 2 x 1 or 2 x 2;
 * the return values are GA's: the order of the leading minor that is not positive definite. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ga.h"

#define NMAX 61
#define RHS 3

static int me;

/* A 2-D C_DBL array of rows x cols: block (kind 0), block-cyclic with 5 x 3 tiles (1), or block
 * with 2 x 2 chunks (2). */
static int make(int kind, int rows, int cols, const char* name) {
  int dims[2] = {rows, cols};
  if (kind == 0) return NGA_Create(C_DBL, 2, dims, (char*)name, NULL);
  if (kind == 2) {
    int chunk[2] = {2, 2};
    return NGA_Create(C_DBL, 2, dims, (char*)name, chunk);
  }
  int g = GA_Create_handle(), tile[2] = {5, 3};
  GA_Set_data(g, 2, dims, C_DBL);
  GA_Set_array_name(g, (char*)name);
  GA_Set_block_cyclic(g, tile);
  CHECK(GA_Allocate(g), "allocate %s", name);
  return g;
}

static void put_all(int g, const double* a, int rows, int cols) {
  int lo[2] = {0, 0}, hi[2] = {rows - 1, cols - 1}, ld[1] = {cols};
  GA_Sync();
  if (me == 0) NGA_Put(g, lo, hi, (void*)a, ld);
  GA_Sync();
}

static void get_all(int g, double* a, int rows, int cols) {
  int lo[2] = {0, 0}, hi[2] = {rows - 1, cols - 1}, ld[1] = {cols};
  NGA_Get(g, lo, hi, a, ld);
  GA_Sync(); /* nobody changes g before every rank has read it */
}

/* c = a b, a n x k, b k x m, row-major. */
static void matmul(const double* a, const double* b, double* c, int n, int k, int m) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      double s = 0;
      for (int l = 0; l < k; ++l)
        s += a[i * k + l] * b[l * m + j];
      c[i * m + j] = s;
    }
}

static double max_abs(const double* x, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i)
    m = fmax(m, fabs(x[i]));
  return m;
}

static double a[NMAX * NMAX], s[NMAX * NMAX], c[NMAX * NMAX], v[NMAX * NMAX], w[NMAX * NMAX],
    w2[NMAX * NMAX], b[NMAX * RHS], x[NMAX * RHS], r[NMAX * RHS];

/* max |A V - S V diag(eval)| (S the identity when s is NULL) and max |V^T S V - I| scale. */
static void check_eigen(const char* what, int n, const double* sm, const double* eval) {
  matmul(a, v, w, n, n, n);
  if (sm)
    matmul(sm, v, w2, n, n, n);
  else
    memcpy(w2, v, sizeof(double) * (size_t)(n * n));
  double res = 0;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k)
      res = fmax(res, fabs(w[i * n + k] - eval[k] * w2[i * n + k]));
  CHECK(res < 1e-9 * n, "%s n=%d: residual %g", what, n, res);
  for (int k = 1; k < n; ++k)
    CHECK(eval[k] >= eval[k - 1], "%s n=%d: eigenvalues ascending", what, n);
  for (int k = 0; k < n; ++k) {
    double norm = 0; /* v_k^T S v_k = 1 */
    for (int i = 0; i < n; ++i)
      norm += v[i * n + k] * w2[i * n + k];
    CHECK(fabs(norm - 1.0) < 1e-9, "%s n=%d: eigenvector %d has S-norm %g", what, n, k, norm);
  }
}

static void check_solve(const char* what, int n, int nrhs, const double* m, int transposed) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < nrhs; ++j) {
      double sum = 0;
      for (int l = 0; l < n; ++l)
        sum += (transposed ? m[l * n + i] : m[i * n + l]) * x[l * nrhs + j];
      r[i * nrhs + j] = sum - b[i * nrhs + j];
    }
  CHECK(max_abs(r, n * nrhs) < 1e-9, "%s n=%d nrhs=%d: residual %g", what, n, nrhs,
        max_abs(r, n * nrhs));
}

static void run(int n, int nrhs, int kind_a, int kind_v) {
  double eval[NMAX];
  int ga = make(kind_a, n, n, "A"), gs = make(kind_v, n, n, "S"), gv = make(kind_v, n, n, "V");
  int gb = make(kind_v, n, nrhs, "B");
  /* A symmetric positive definite, S a positive definite metric, C not symmetric. */
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      a[i * n + j] = 1.0 / (1.0 + i + j) + (i == j ? 2.0 + 0.1 * i : 0.0);
      s[i * n + j] = (i == j ? 1.0 + 0.01 * i : 0.0) + 0.02 / (1.0 + abs(i - j));
      c[i * n + j] = sin(1.0 + i + 3.0 * j) + (i == j ? 4.0 : 0.0);
    }
  for (int i = 0; i < n * nrhs; ++i)
    b[i] = (double)(i % 7) - 3.0 + 0.5 * (i % 2);

  put_all(ga, a, n, n);
  GA_Diag_std(ga, gv, eval);
  get_all(gv, v, n, n);
  check_eigen("GA_Diag_std", n, NULL, eval);
  GA_Diag_std_seq(ga, gv, eval);
  get_all(gv, v, n, n);
  check_eigen("GA_Diag_std_seq", n, NULL, eval);

  put_all(gs, s, n, n);
  GA_Diag(ga, gs, gv, eval);
  get_all(gv, v, n, n);
  check_eigen("GA_Diag", n, s, eval);
  GA_Diag_seq(ga, gs, gv, eval);
  get_all(gv, v, n, n);
  check_eigen("GA_Diag_seq", n, s, eval);
  GA_Diag_reuse(0, ga, gs, gv, eval);
  GA_Diag_reuse(1, ga, gs, gv, eval);
  get_all(gv, v, n, n);
  check_eigen("GA_Diag_reuse", n, s, eval);

  put_all(gb, b, n, nrhs);
  CHECK(GA_Llt_solve(ga, gb) == 0, "GA_Llt_solve n=%d of an SPD matrix", n);
  get_all(gb, x, n, nrhs);
  check_solve("GA_Llt_solve", n, nrhs, a, 0);
  put_all(gb, b, n, nrhs);
  CHECK(GA_Solve(ga, gb) == 0, "GA_Solve n=%d of an SPD matrix: Cholesky", n);
  get_all(gb, x, n, nrhs);
  check_solve("GA_Solve", n, nrhs, a, 0);

  put_all(ga, c, n, n);
  put_all(gb, b, n, nrhs);
  GA_Lu_solve('n', ga, gb);
  get_all(gb, x, n, nrhs);
  check_solve("GA_Lu_solve('n')", n, nrhs, c, 0);
  put_all(gb, b, n, nrhs);
  GA_Lu_solve('T', ga, gb);
  get_all(gb, x, n, nrhs);
  check_solve("GA_Lu_solve('T')", n, nrhs, c, 1);

  /* Not positive definite from the leading minor of order k + 1 on (A's element (k, k) made
   * negative): Cholesky says k + 1 and leaves B as it was, GA_Solve solves with LU. */
  const int k = n / 2;
  for (int i = 0; i < n * n; ++i)
    w[i] = a[i];
  w[k * n + k] = -100.0;
  put_all(ga, w, n, n);
  put_all(gb, b, n, nrhs);
  int rc = GA_Llt_solve(ga, gb);
  get_all(gb, x, n, nrhs);
#ifdef GAEA_LINALG_EIGEN
  CHECK(rc > 0, "GA_Llt_solve n=%d of a matrix that is not SPD: %d", n, rc);
#else
  CHECK(rc == k + 1, "GA_Llt_solve n=%d: %d (leading minor %d is not positive definite)", n, rc,
        k + 1);
#endif
  for (int i = 0; i < n * nrhs; ++i)
    CHECK(x[i] == b[i], "GA_Llt_solve n=%d: B unchanged after a refused Cholesky", n);
  rc = GA_Solve(ga, gb);
  CHECK(rc > 0, "GA_Solve n=%d: LU used (%d)", n, rc);
  get_all(gb, x, n, nrhs);
  check_solve("GA_Solve (LU)", n, nrhs, w, 0);

  /* SPD inverse: A inv(A) = I; refused (A unchanged) for a matrix that is not SPD. */
  put_all(ga, a, n, n);
  CHECK(GA_Spd_invert(ga) == 0, "GA_Spd_invert n=%d", n);
  get_all(ga, v, n, n);
  matmul(a, v, w2, n, n, n);
  for (int i = 0; i < n; ++i)
    w2[i * n + i] -= 1.0;
  CHECK(max_abs(w2, n * n) < 1e-9, "GA_Spd_invert n=%d: |A inv(A) - I| = %g", n,
        max_abs(w2, n * n));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      CHECK(v[i * n + j] == v[j * n + i], "GA_Spd_invert n=%d: inverse symmetric", n);
  put_all(ga, w, n, n);
  rc = GA_Spd_invert(ga);
  CHECK(rc > 0, "GA_Spd_invert n=%d of a matrix that is not SPD: %d", n, rc);
  get_all(ga, v, n, n);
  for (int i = 0; i < n * n; ++i)
    CHECK(v[i] == w[i], "GA_Spd_invert n=%d: A unchanged after a refusal", n);

  GA_Destroy(gb);
  GA_Destroy(gv);
  GA_Destroy(gs);
  GA_Destroy(ga);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  me = GA_Nodeid();
  run(1, 1, 0, 0);
  run(7, RHS, 0, 1);
  run(37, 1, 1, 2);
  run(NMAX, RHS, 2, 0);
  if (me == 0) printf("ga_compat linalg_scalapack: all checks passed on %d ranks\n", GA_Nnodes());
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
