/* GA C API, dense linear algebra on 2-D C_DBL arrays: GA_Diag_std, GA_Diag (generalized),
 * GA_Lu_solve (plain and transposed), GA_Llt_solve, GA_Solve (Cholesky, then LU for a matrix
 * that is not positive definite) and GA_Spd_invert, checked through residuals computed by every
 * rank from the arrays' contents. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "ga.h"

#define N 24
#define M 3

static int me;

/* Rank 0 overwrites the array: first every rank must be done reading it. */
static void put_all(int g, const double* a, int rows, int cols) {
  int lo[2] = {0, 0}, hi[2] = {rows - 1, cols - 1}, ld[1] = {cols};
  GA_Sync();
  if (me == 0) NGA_Put(g, lo, hi, (void*)a, ld);
  GA_Sync();
}

static void get_all(int g, double* a, int rows, int cols) {
  int lo[2] = {0, 0}, hi[2] = {rows - 1, cols - 1}, ld[1] = {cols};
  NGA_Get(g, lo, hi, a, ld);
}

/* A deterministic symmetric positive definite matrix, and a symmetric indefinite one. */
static void make_spd(double* a) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      a[i * N + j] = 1.0 / (1.0 + i + j) + (i == j ? 2.0 + 0.1 * i : 0.0);
}

static double max_abs_diff(const double* x, const double* y, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i)
    m = fmax(m, fabs(x[i] - y[i]));
  return m;
}

static void matmul(const double* a, const double* b, double* c, int n, int k, int m) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      double s = 0;
      for (int l = 0; l < k; ++l)
        s += a[i * k + l] * b[l * m + j];
      c[i * m + j] = s;
    }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  me = GA_Nodeid();
  int dims[2] = {N, N}, bdims[2] = {N, M};
  int ga = NGA_Create(C_DBL, 2, dims, "A", NULL);
  int gs = NGA_Create(C_DBL, 2, dims, "S", NULL);
  int gv = NGA_Create(C_DBL, 2, dims, "V", NULL);
  int gb = NGA_Create(C_DBL, 2, bdims, "B", NULL);
  static double a[N * N], s[N * N], v[N * N], av[N * N], sv[N * N], b[N * M], x[N * M], ax[N * M];
  double eval[N];

  /* Standard problem: A V = V diag(eval), eigenvalues ascending, V orthonormal. */
  make_spd(a);
  put_all(ga, a, N, N);
  GA_Diag_std(ga, gv, eval);
  get_all(gv, v, N, N);
  matmul(a, v, av, N, N, N);
  for (int k = 0; k < N; ++k) {
    if (k) CHECK(eval[k] >= eval[k - 1], "eigenvalues ascending");
    for (int i = 0; i < N; ++i)
      CHECK(fabs(av[i * N + k] - eval[k] * v[i * N + k]) < 1e-10, "A v = lambda v (%d, %d)", i, k);
    double norm = 0;
    for (int i = 0; i < N; ++i)
      norm += v[i * N + k] * v[i * N + k];
    CHECK(fabs(norm - 1.0) < 1e-12, "eigenvector %d has norm %g", k, norm);
  }

  /* Generalized problem: A V = S V diag(eval). */
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      s[i * N + j] = (i == j ? 1.0 : 0.0) + 0.01 / (1.0 + abs(i - j));
  put_all(gs, s, N, N);
  GA_Diag(ga, gs, gv, eval);
  get_all(gv, v, N, N);
  matmul(a, v, av, N, N, N);
  matmul(s, v, sv, N, N, N);
  for (int k = 0; k < N; ++k)
    for (int i = 0; i < N; ++i)
      CHECK(fabs(av[i * N + k] - eval[k] * sv[i * N + k]) < 1e-10, "A v = lambda S v (%d, %d)", i,
            k);

  /* Linear solves: X = A^-1 B, then A X = B. */
  for (int i = 0; i < N * M; ++i)
    b[i] = (double)(i % 7) - 3.0;
  put_all(gb, b, N, M);
  GA_Lu_solve('n', ga, gb);
  get_all(gb, x, N, M);
  matmul(a, x, ax, N, N, M);
  CHECK(max_abs_diff(ax, b, N * M) < 1e-10, "GA_Lu_solve residual %g", max_abs_diff(ax, b, N * M));

  put_all(gb, b, N, M);
  CHECK(GA_Llt_solve(ga, gb) == 0, "GA_Llt_solve of an SPD matrix succeeds");
  get_all(gb, x, N, M);
  matmul(a, x, ax, N, N, M);
  CHECK(max_abs_diff(ax, b, N * M) < 1e-10, "GA_Llt_solve residual");

  /* Not positive definite: Cholesky refuses, GA_Solve falls back to LU. */
  static double c[N * N];
  for (int i = 0; i < N * N; ++i)
    c[i] = a[i];
  c[0] = -5.0;
  put_all(ga, c, N, N);
  put_all(gb, b, N, M);
  CHECK(GA_Llt_solve(ga, gb) > 0, "GA_Llt_solve reports a matrix that is not SPD");
  get_all(gb, x, N, M);
  CHECK(max_abs_diff(x, b, N * M) == 0.0, "B unchanged after a refused Cholesky solve");
  CHECK(GA_Solve(ga, gb) > 0, "GA_Solve used LU");
  get_all(gb, x, N, M);
  matmul(c, x, ax, N, N, M);
  CHECK(max_abs_diff(ax, b, N * M) < 1e-9, "GA_Solve (LU) residual %g", max_abs_diff(ax, b, N * M));

  /* Transposed LU solve of the non-symmetric matrix C with C[0][1] changed. */
  c[1] = 4.0;
  put_all(ga, c, N, N);
  put_all(gb, b, N, M);
  GA_Lu_solve('t', ga, gb);
  get_all(gb, x, N, M);
  static double ct[N * N];
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      ct[i * N + j] = c[j * N + i];
  matmul(ct, x, ax, N, N, M);
  CHECK(max_abs_diff(ax, b, N * M) < 1e-9, "GA_Lu_solve('t') residual");

  /* SPD inverse in place: A * inv(A) = I. */
  put_all(ga, a, N, N);
  CHECK(GA_Spd_invert(ga) == 0, "GA_Spd_invert");
  get_all(ga, v, N, N);
  matmul(a, v, av, N, N, N);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      CHECK(fabs(av[i * N + j] - (i == j ? 1.0 : 0.0)) < 1e-10, "A inv(A) = I at (%d, %d)", i, j);

  GA_Destroy(gb);
  GA_Destroy(gv);
  GA_Destroy(gs);
  GA_Destroy(ga);
  if (me == 0) printf("ga_compat linalg: all checks passed on %d ranks\n", GA_Nnodes());
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
