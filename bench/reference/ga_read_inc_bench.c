/*
 * ga_read_inc_bench.c -- reference for bench/counter_latency ([PGAS-BGQ Fig. 10]):
 * Global Arrays' shared counter, NGA_Read_inc on one C_LONG element owned by rank 0
 * (Debian 5.8.2 on ARMCI-MPI: an MPI-3 passive-target fetch-and-op).
 *
 * Ranks 1..P-1 call NGA_Read_inc(+1) back to back, K times each, timing every call with
 * MPI_Wtime. Rank 0 is either idle (waits in MPI_Barrier) or runs back-to-back compute kernels
 * of C us without library calls, calling MPI_Test on a non-blocking barrier between kernels
 * (its only chance to progress MPI, like gaea::poll() in counter_latency). Reported per state:
 * the average and maximum latency over ranks 1..P-1, medians over R repetitions (after one
 * warm-up repetition). The counter's final value is checked against the number of calls.
 * On several hosts, the same figures are also given for the requesting ranks on rank 0's host
 * and on other hosts (by MPI processor name).
 *
 * Options: --reps R (3) --iters K (1000) --compute-us C (300)
 * Output (rank 0): a table and one JSON line.
 * Build: see bench/reference/CMakeLists.txt (ga-config --libs, gfortran, m).
 * Run:   mpirun --allow-run-as-root --oversubscribe -np 4 ./ga_read_inc_bench
 */
#include <ga.h>
#include <macdecls.h>
#include <mpi.h>

#include "ref_stats.h"
#include "ref_system.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Sums `v` over the ranks where `mine` is set (0 elsewhere) and returns it on every rank. */
static double sum_where(int mine, double v) {
  double in = mine ? v : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return out;
}

/* One repetition; returns avg and max latency (us) over ranks 1..P-1 on every rank, and the
 * same over the requesting ranks on rank 0's host (side[0..1]: avg, max) and on other hosts
 * (side[2..3]); -1 where no requesting rank is. */
static void run(int g_a, int compute, double compute_us, int iters, int on_host, double* avg_us,
                double* max_us, double side[4]) {
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
  for (i = 0; i < 2; i++) {
    const int mine = me != 0 && on_host == (i == 0);
    const double n = sum_where(mine, iters), s = sum_where(mine, sum);
    double m = mine ? mx : -1, mmax = -1;
    MPI_Allreduce(&m, &mmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    side[2 * i] = n > 0 ? s / n : -1;
    side[2 * i + 1] = n > 0 ? mmax : -1;
  }
}

int main(int argc, char** argv) {
  int reps = 3, iters = 1000, me, nproc, g_a, i, s, r, bad = 0;
  int dims[1], chunk[1], lo[1], hi[1], sub[1] = {0};
  double compute_us = 300;
  double *avg, *mx, *sides, res_avg[2], res_max[2], res_side[2][4];
  long expected = 0, got;
  char name[] = "read_inc_counter";
  char host[MPI_MAX_PROCESSOR_NAME] = {0}, host0[MPI_MAX_PROCESSOR_NAME] = {0};
  int hlen = 0, on_host, on_host_ranks, hosts = 1, k;

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

  /* Which requesting ranks share rank 0's host (by host name), and how many hosts there are. */
  MPI_Get_processor_name(host, &hlen);
  memcpy(host0, host, sizeof host);
  MPI_Bcast(host0, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
  on_host = strcmp(host, host0) == 0;
  {
    MPI_Comm node;
    int node_rank, leader, mine = me != 0 && on_host;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank);
    leader = node_rank == 0;
    MPI_Allreduce(&leader, &hosts, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &on_host_ranks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
  }

  avg = malloc((size_t)reps * sizeof(double));
  mx = malloc((size_t)reps * sizeof(double));
  sides = malloc((size_t)reps * 4 * sizeof(double));
  for (s = 0; s < 2; s++) {
    double a, m, side[4];
    run(g_a, s, compute_us, iters, on_host, &a, &m, side); /* warm-up */
    expected += (long)iters * (nproc - 1);
    for (r = 0; r < reps; r++) {
      run(g_a, s, compute_us, iters, on_host, &avg[r], &mx[r], &sides[4 * r]);
      expected += (long)iters * (nproc - 1);
    }
    res_avg[s] = ref_median(avg, reps);
    res_max[s] = ref_median(mx, reps);
    for (k = 0; k < 4; k++) { /* median over repetitions of each on/off-host figure */
      for (r = 0; r < reps; r++)
        avg[r] = sides[4 * r + k]; /* avg[] is free again: its median is taken */
      res_side[s][k] = ref_median(avg, reps);
    }
  }
  GA_Sync();
  NGA_Get(g_a, sub, sub, &got, sub);
  if (got != expected) GA_Error("counter value differs from the number of increments", got);

  if (me == 0) {
    printf("\nGlobal Arrays NGA_Read_inc, counter on rank 0 (%d ranks, median of %d reps)\n", nproc,
           reps);
    printf("%-9s %-13s %-8s %10s %10s", "system", "variant", "rank0", "avg us", "max us");
    if (hosts > 1)
      printf(" %16s %16s  (requesters: %d on rank 0's host, %d elsewhere; %d hosts)",
             "on-host avg(max)", "off-host avg(max)", on_host_ranks, nproc - 1 - on_host_ranks,
             hosts);
    printf("\n");
    for (s = 0; s < 2; s++) {
      printf("%-9s %-13s %-8s %10.2f %10.1f", "GA", "read_inc", s ? "compute" : "idle", res_avg[s],
             res_max[s]);
      for (k = 0; hosts > 1 && k < 2; k++) {
        if (res_side[s][2 * k] < 0)
          printf(" %16s", "-");
        else
          printf(" %9.2f (%4.0f)", res_side[s][2 * k], res_side[s][2 * k + 1]);
      }
      printf("\n");
    }
    printf("{\"bench\":\"ga_read_inc\",\"system\":\"" REF_SYSTEM
           "\",\"ranks\":%d,"
           "\"compute_us\":%.1f,\"iters\":%d,\"reps\":%d,"
           "\"idle_avg_us\":%.4f,\"idle_max_us\":%.4f,"
           "\"compute_avg_us\":%.4f,\"compute_max_us\":%.4f,\"hosts\":%d",
           nproc, compute_us, iters, reps, res_avg[0], res_max[0], res_avg[1], res_max[1], hosts);
    if (hosts > 1) { /* split by the requesting rank's host; null where no requesting rank is */
      static const char* const key[4] = {"on_node_avg_us", "on_node_max_us", "off_node_avg_us",
                                         "off_node_max_us"};
      printf(",\"owner_node_requesters\":%d,\"other_node_requesters\":%d", on_host_ranks,
             nproc - 1 - on_host_ranks);
      for (s = 0; s < 2; s++)
        for (k = 0; k < 4; k++) {
          if (res_side[s][k] < 0)
            printf(",\"%s_%s\":null", s ? "compute" : "idle", key[k]);
          else
            printf(",\"%s_%s\":%.4f", s ? "compute" : "idle", key[k], res_side[s][k]);
        }
    }
    printf("}\n");
    fflush(stdout);
  }
  free(avg);
  free(mx);
  free(sides);
  GA_Destroy(g_a);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
