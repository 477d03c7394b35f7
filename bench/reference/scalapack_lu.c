/* scalapack_lu: times ScaLAPACK's pdgetrf (LU with partial pivoting) on an N x N matrix in a
 * 2-D block-cyclic layout, the reference for gaea-lu (bench/lu_scaling.sh).
 *   mpirun -np 4 scalapack_lu N NB [P Q] [REPS]
 * The matrix is uniform in [-0.5, 0.5) with N added to the diagonal (diagonally dominant, as
 * gaea-lu's default), regenerated before every repetition. Prints one JSON line with the median
 * time over REPS (default 3) and Gflop/s = (2/3) N^3 / time. info != 0 exits 1. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* BLACS and ScaLAPACK entry points (Fortran calling convention). */
void Cblacs_pinfo(int* me, int* np);
void Cblacs_get(int ctxt, int what, int* val);
void Cblacs_gridinit(int* ctxt, const char* order, int p, int q);
void Cblacs_gridinfo(int ctxt, int* p, int* q, int* myr, int* myc);
void Cblacs_gridexit(int ctxt);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb,
               const int* irsrc, const int* icsrc, const int* ctxt, const int* lld, int* info);
void pdgetrf_(const int* m, const int* n, double* a, const int* ia, const int* ja, const int* desc,
              int* ipiv, int* info);

static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (argc < 3) {
    if (me == 0) fprintf(stderr, "usage: scalapack_lu N NB [P Q] [REPS]\n");
    MPI_Finalize();
    return 2;
  }
  const int n = atoi(argv[1]), nb = atoi(argv[2]);
  int p = argc > 4 ? atoi(argv[3]) : 0, q = argc > 4 ? atoi(argv[4]) : 0;
  const int reps = argc > 5 ? atoi(argv[5]) : 3;
  if (p * q != np) { /* squarest grid, P <= Q */
    for (p = 1; (p + 1) * (p + 1) <= np; ++p) {
    }
    while (np % p)
      --p;
    q = np / p;
  }
  if (n <= 0 || nb <= 0 || nb > n || reps <= 0) {
    if (me == 0) fprintf(stderr, "scalapack_lu: need 0 < NB <= N and REPS > 0\n");
    MPI_Finalize();
    return 2;
  }
  int ctxt, myr, myc, zero = 0, one = 1, info = 0;
  Cblacs_get(-1, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "Row", p, q);
  Cblacs_gridinfo(ctxt, &p, &q, &myr, &myc);
  const int mloc = numroc_(&n, &nb, &myr, &zero, &p), nloc = numroc_(&n, &nb, &myc, &zero, &q);
  const int lld = mloc > 1 ? mloc : 1;
  int desc[9];
  descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
  double* a = malloc(sizeof(double) * (size_t)lld * (size_t)(nloc > 0 ? nloc : 1));
  int* ipiv = malloc(sizeof(int) * (size_t)(mloc + nb));
  double* times = malloc(sizeof(double) * (size_t)reps);
  for (int r = 0; r < reps; ++r) {
    /* Column-major local storage; global (i, j) from the block-cyclic map. */
    for (int jl = 0; jl < nloc; ++jl) {
      const int j = (jl / nb * q + myc) * nb + jl % nb;
      for (int il = 0; il < mloc; ++il) {
        const int i = (il / nb * p + myr) * nb + il % nb;
        double v = (double)(mix(((uint64_t)i << 32) ^ (uint64_t)j) >> 11) * 0x1.0p-53 - 0.5;
        if (i == j) v += n;
        a[(size_t)jl * (size_t)lld + (size_t)il] = v;
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    pdgetrf_(&n, &n, a, &one, &one, desc, ipiv, &info);
    MPI_Barrier(MPI_COMM_WORLD);
    times[r] = MPI_Wtime() - t0;
    if (info != 0) {
      if (me == 0) fprintf(stderr, "scalapack_lu: pdgetrf info=%d\n", info);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  qsort(times, (size_t)reps, sizeof(double), cmp);
  const double t = times[reps / 2], flops = 2.0 / 3.0 * (double)n * n * n;
  if (me == 0)
    printf(
        "{\"n\":%d,\"block\":%d,\"grid\":\"%dx%d\",\"ranks\":%d,\"time_s\":%.6f,"
        "\"gflops\":%.4f,\"reps\":%d}\n",
        n, nb, p, q, np, t, flops / t * 1e-9, reps);
  free(times);
  free(ipiv);
  free(a);
  Cblacs_gridexit(ctxt);
  MPI_Finalize();
  return 0;
}
