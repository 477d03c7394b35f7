/* GA_Diag_std (or, --seq, GA_Diag_std_seq) on an n x n symmetric matrix (default 2000), timed
 * with GA_Wtime between GA_Syncs, for bench/compare_ga_diag.sh: one source built against Debian's
 * GA 5.8.2 and against Gaea's GA C API. Debian's GA has no PeIGS, so its GA_Diag_std ends the job
 * ("peigs not interfaced"): its eigensolver is GA_Diag_std_seq. Every rank fills its own block;
 * the eigenvalue sum is checked against the trace. One JSON line per repetition from rank 0.
 *   mpirun -np 4 ga_diag_bench [--n 2000] [--reps 1] [--seq] */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ga.h"
#include "macdecls.h"

static double element(int i, int j, int n) {
  return 1.0 / (1.0 + i + j) + (i == j ? (double)(i % 97) / n + 1.0 : 0.0);
}

int main(int argc, char** argv) {
  int n = 2000, reps = 1, seq = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--seq")) seq = 1;
    if (i + 1 < argc && !strcmp(argv[i], "--n")) n = atoi(argv[i + 1]);
    if (i + 1 < argc && !strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
  }
  MPI_Init(&argc, &argv);
  GA_Initialize();
  MA_init(C_DBL, 4 * n * n + 1000000, 1000000); /* GA_Diag_std_seq copies the matrices */
  const int me = GA_Nodeid();
  int dims[2] = {n, n};
  int ga = NGA_Create(C_DBL, 2, dims, "A", NULL), gv = NGA_Create(C_DBL, 2, dims, "V", NULL);
  int lo[2], hi[2], ld[1];
  NGA_Distribution(ga, me, lo, hi);
  if (lo[0] >= 0 && hi[0] >= lo[0]) {
    const int rows = hi[0] - lo[0] + 1, cols = hi[1] - lo[1] + 1;
    double* buf = malloc(sizeof(double) * (size_t)rows * (size_t)cols);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j)
        buf[(size_t)i * cols + j] = element(lo[0] + i, lo[1] + j, n);
    ld[0] = cols;
    NGA_Put(ga, lo, hi, buf, ld);
    free(buf);
  }
  double trace = 0;
  for (int i = 0; i < n; ++i)
    trace += element(i, i, n);
  double* eval = malloc(sizeof(double) * (size_t)n);
  for (int r = 0; r < reps; ++r) {
    GA_Sync();
    const double t0 = GA_Wtime();
    if (seq)
      GA_Diag_std_seq(ga, gv, eval);
    else
      GA_Diag_std(ga, gv, eval);
    GA_Sync();
    const double t = GA_Wtime() - t0;
    double sum = 0;
    for (int i = 0; i < n; ++i)
      sum += eval[i];
    if (fabs(sum - trace) > 1e-8 * n) GA_Error("eigenvalue sum differs from the trace", 1);
    if (me == 0)
      printf("{\"bench\":\"%s\",\"n\":%d,\"ranks\":%d,\"rep\":%d,\"seconds\":%.6f}\n",
             seq ? "ga_diag_std_seq" : "ga_diag_std", n, GA_Nnodes(), r, t);
  }
  free(eval);
  GA_Destroy(gv);
  GA_Destroy(ga);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
