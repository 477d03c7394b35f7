/*
 * ga_read_inc_bench.c -- reference for bench/counter_latency (the paper's Fig. 10):
 * Global Arrays' shared counter, NGA_Read_inc on one C_LONG element owned by rank 0
 * (Debian 5.8.2 on ARMCI-MPI: an MPI-3 passive-target fetch-and-op).
 *
 * Ranks 1..P-1 call NGA_Read_inc(+1) back to back, K times each, timing every call with
 * MPI_Wtime. Rank 0 is either idle (waits in MPI_Barrier) or runs back-to-back compute kernels
 * of C us without library calls, calling MPI_Test on a non-blocking barrier between kernels
 * (its only chance to progress MPI, like gaea::poll() in counter_latency). Reported per state:
 * the average and maximum latency over ranks 1..P-1, medians over R repetitions (after one
 * warm-up repetition). The counter's final value is checked against the number of calls.
 *
 * Options: --reps R (3) --iters K (1000) --compute-us C (300)
 * Output (rank 0): a table and one JSON line.
 * Build: see bench/reference/CMakeLists.txt (ga-config --libs, gfortran, m).
 * Run:   mpirun --allow-run-as-root --oversubscribe -np 4 ./ga_read_inc_bench
 */
#include <ga.h>
#include <macdecls.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Computes for `us` microseconds without calling a library (MPI_Wtime is a clock read). */
static double kernel(double us, double x) {
  const double until = MPI_Wtime() + us * 1e-6;
  int i;
  do {
    for (i = 0; i < 64; i++)
      x = x * 1.0000001 + 1e-9;
  } while (MPI_Wtime() < until);
  return x;
}

/* One repetition; returns avg and max latency (us) over ranks 1..P-1 on every rank. */
static void run(int g_a, int compute, double compute_us, int iters, double* avg_us,
                double* max_us) {
  int me = GA_Nodeid(), nproc = GA_Nnodes(), i, done = 0;
  int sub[1] = {0};
  double sum = 0, mx = 0, in[2], out[2];
  MPI_Request req;
  if (me == 0) {
    if (compute) {
      volatile double sink = 0;
      MPI_Ibarrier(MPI_COMM_WORLD, &req);
      while (!done) {
        sink = kernel(compute_us, sink);
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
      }
    }
  } else {
    for (i = 0; i < iters; i++) {
      const double t0 = MPI_Wtime();
      (void)NGA_Read_inc(g_a, sub, 1);
      const double t = (MPI_Wtime() - t0) * 1e6;
      sum += t;
      if (t > mx) mx = t;
    }
    if (compute) {
      MPI_Ibarrier(MPI_COMM_WORLD, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  in[0] = sum;
  in[1] = 0;
  MPI_Allreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *avg_us = out[0] / ((double)iters * (nproc - 1));
  MPI_Allreduce(&mx, max_us, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
  int reps = 3, iters = 1000, me, nproc, g_a, i, s, r, bad = 0;
  int dims[1], chunk[1], lo[1], hi[1], sub[1] = {0};
  double compute_us = 300;
  double *avg, *mx, res_avg[2], res_max[2];
  long expected = 0, got;
  char name[] = "read_inc_counter";

  MPI_Init(&argc, &argv);
  GA_Initialize();
  me = GA_Nodeid();
  nproc = GA_Nnodes();
  for (i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--reps") == 0)
      reps = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--iters") == 0)
      iters = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--compute-us") == 0)
      compute_us = atof(argv[i + 1]);
    else
      bad = 1;
  }
  if (bad || (argc % 2) == 0 || reps <= 0 || iters <= 0 || compute_us <= 0 || nproc < 2) {
    if (me == 0)
      fprintf(stderr, "usage: %s [--reps R] [--iters K] [--compute-us C] (at least 2 ranks)\n",
              argv[0]);
    GA_Terminate();
    MPI_Finalize();
    return 2;
  }

  dims[0] = nproc;
  chunk[0] = 1;
  g_a = NGA_Create(C_LONG, 1, dims, name, chunk);
  if (!g_a) GA_Error("NGA_Create failed", 0);
  GA_Zero(g_a);
  NGA_Distribution(g_a, 0, lo, hi);
  if (lo[0] != 0) GA_Error("element 0 is not on rank 0", lo[0]);

  avg = malloc((size_t)reps * sizeof(double));
  mx = malloc((size_t)reps * sizeof(double));
  for (s = 0; s < 2; s++) {
    double a, m;
    run(g_a, s, compute_us, iters, &a, &m); /* warm-up */
    expected += (long)iters * (nproc - 1);
    for (r = 0; r < reps; r++) {
      run(g_a, s, compute_us, iters, &avg[r], &mx[r]);
      expected += (long)iters * (nproc - 1);
    }
    res_avg[s] = median(avg, reps);
    res_max[s] = median(mx, reps);
  }
  GA_Sync();
  NGA_Get(g_a, sub, sub, &got, sub);
  if (got != expected) GA_Error("counter value differs from the number of increments", got);

  if (me == 0) {
    printf("\nGlobal Arrays NGA_Read_inc, counter on rank 0 (%d ranks, median of %d reps)\n", nproc,
           reps);
    printf("%-9s %-13s %-8s %10s %10s\n", "system", "variant", "rank0", "avg us", "max us");
    for (s = 0; s < 2; s++)
      printf("%-9s %-13s %-8s %10.2f %10.1f\n", "GA", "read_inc", s ? "compute" : "idle",
             res_avg[s], res_max[s]);
    printf(
        "{\"bench\":\"ga_read_inc\",\"system\":\"GlobalArrays-5.8.2/ARMCI-MPI\",\"ranks\":%d,"
        "\"compute_us\":%.1f,\"iters\":%d,\"reps\":%d,"
        "\"idle_avg_us\":%.4f,\"idle_max_us\":%.4f,"
        "\"compute_avg_us\":%.4f,\"compute_max_us\":%.4f}\n",
        nproc, compute_us, iters, reps, res_avg[0], res_max[0], res_avg[1], res_max[1]);
    fflush(stdout);
  }
  free(avg);
  free(mx);
  GA_Destroy(g_a);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
