/*
 * ga_get_bench.c -- reference get latency / bandwidth benchmark for
 * Global Arrays (C API, Debian 5.8.2 built on ARMCI-MPI).
 *
 * What it measures (rank 0 is the origin, rank 1 the passive target):
 *   (a) 8-byte get latency: NGA_Get of one double from a patch owned by
 *       rank 1.  1000 warm-up gets, then R repetitions of K gets; each
 *       repetition is timed with MPI_Wtime and gives a mean latency in us.
 *       Reported: median and min over the R repetitions.
 *   (b) 1 MiB get bandwidth: NGA_Get of 131072 doubles (1 MiB), all owned
 *       by rank 1, into a page-aligned buffer.  10 warm-up gets, then R
 *       repetitions of K gets; each repetition gives bytes / time in GB/s
 *       (1e9 bytes/s).  Reported: median and max over the R repetitions.
 * Rank 1 (and any further rank) does nothing but wait in GA_Sync while
 * rank 0 measures.  The array is 1-D, one 1 MiB block per rank; the block
 * of rank 1 is looked up with NGA_Distribution.  A single 1 MiB get is
 * checked for correct contents before timing.
 *
 * Options: --reps R (default 7) --lat-iters K (default 10000)
 *          --bw-iters K (default 200)
 * Output (rank 0 only): one human-readable line per metric, then one JSON line.
 *
 * Build: mpicc -std=c99 -O2 ga_get_bench.c \
 *          $(/usr/lib/x86_64-linux-gnu/ga/openmpi/bin/ga-config --libs) \
 *          -lgfortran -lm -o ga_get_bench
 *        (ga-config --libs names -lscalapack-openmpi: needs libscalapack-openmpi-dev)
 * Run:   mpirun --allow-run-as-root -np 2 ./ga_get_bench
 */
#include <ga.h>
#include <macdecls.h>
#include <mpi.h>

#include "ref_array.h"
#include "ref_stats.h"
#include "ref_system.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_BYTES (1024 * 1024)
#define BLOCK_ELEMS (BLOCK_BYTES / (int)sizeof(double))
#define LAT_WARMUP 1000
#define BW_WARMUP 10

static int parse_positive(const char* opt, const char* val) {
  char* end;
  long v;
  if (!val) {
    fprintf(stderr, "missing value for %s\n", opt);
    return -1;
  }
  v = strtol(val, &end, 10);
  if (*end != '\0' || v <= 0 || v > 1000000000L) {
    fprintf(stderr, "bad value for %s: %s\n", opt, val);
    return -1;
  }
  return (int)v;
}

int main(int argc, char** argv) {
  int reps = 7, lat_iters = 10000, bw_iters = 200;
  int me, nproc, g_a, i, r, bad = 0;
  int lo[1], hi[1], ld[1] = {1};
  int lat_lo[1], lat_hi[1], bw_lo[1], bw_hi[1];
  char name[] = "ga_get_bench";
  double *lat_us = NULL, *bw_gbs = NULL, *buf = NULL, one = 0.0;
  char* raw = NULL;

  MPI_Init(&argc, &argv);
  GA_Initialize();
  me = GA_Nodeid();
  nproc = GA_Nnodes();

  for (i = 1; i < argc && !bad; i++) {
    int* dst = NULL;
    if (strcmp(argv[i], "--reps") == 0)
      dst = &reps;
    else if (strcmp(argv[i], "--lat-iters") == 0)
      dst = &lat_iters;
    else if (strcmp(argv[i], "--bw-iters") == 0)
      dst = &bw_iters;
    if (!dst) {
      if (me == 0)
        fprintf(stderr,
                "unknown option %s\n"
                "usage: %s [--reps R] [--lat-iters K] [--bw-iters K]\n",
                argv[i], argv[0]);
      bad = 1;
    } else if ((*dst = parse_positive(argv[i], i + 1 < argc ? argv[i + 1] : NULL)) < 0) {
      bad = 1;
    } else {
      i++;
    }
  }
  if (!bad && nproc < 2) {
    if (me == 0) fprintf(stderr, "needs at least 2 ranks\n");
    bad = 1;
  }
  if (bad) {
    GA_Terminate();
    MPI_Finalize();
    return 1;
  }

  /* One 1 MiB block per rank, filled with the global index. */
  g_a = ref_create_indexed(name, nproc, me, BLOCK_ELEMS);
  GA_Sync();

  /* Patches owned entirely by rank 1. */
  NGA_Distribution(g_a, 1, lo, hi);
  if (hi[0] - lo[0] + 1 < BLOCK_ELEMS)
    GA_Error("rank 1 block smaller than 1 MiB", hi[0] - lo[0] + 1);
  lat_lo[0] = lat_hi[0] = lo[0];
  bw_lo[0] = lo[0];
  bw_hi[0] = lo[0] + BLOCK_ELEMS - 1;

  if (me == 0) {
    double t0, t1;
    lat_us = malloc((size_t)reps * sizeof(double));
    bw_gbs = malloc((size_t)reps * sizeof(double));
    /* Page-aligned destination: with a malloc'ed (16 mod 64) buffer, glibc's
     * rep-movsb memcpy on AMD Zen runs ~10x slower and would dominate. */
    raw = malloc(BLOCK_BYTES + 4096);
    if (!lat_us || !bw_gbs || !raw) GA_Error("malloc failed", 0);
    buf = (double*)(void*)(((uintptr_t)raw + 4095) & ~(uintptr_t)4095);

    /* Correctness check of one full-block get. */
    NGA_Get(g_a, bw_lo, bw_hi, buf, ld);
    for (i = 0; i < BLOCK_ELEMS; i++)
      if (buf[i] != (double)(bw_lo[0] + i)) GA_Error("wrong data from NGA_Get at", i);

    /* (a) 8-byte latency */
    for (i = 0; i < LAT_WARMUP; i++)
      NGA_Get(g_a, lat_lo, lat_hi, &one, ld);
    for (r = 0; r < reps; r++) {
      t0 = MPI_Wtime();
      for (i = 0; i < lat_iters; i++)
        NGA_Get(g_a, lat_lo, lat_hi, &one, ld);
      t1 = MPI_Wtime();
      lat_us[r] = (t1 - t0) * 1e6 / lat_iters;
    }
    if (one != (double)lat_lo[0]) GA_Error("wrong data from 8-byte NGA_Get", 0);

    /* (b) 1 MiB bandwidth */
    for (i = 0; i < BW_WARMUP; i++)
      NGA_Get(g_a, bw_lo, bw_hi, buf, ld);
    for (r = 0; r < reps; r++) {
      t0 = MPI_Wtime();
      for (i = 0; i < bw_iters; i++)
        NGA_Get(g_a, bw_lo, bw_hi, buf, ld);
      t1 = MPI_Wtime();
      bw_gbs[r] = (double)BLOCK_BYTES * bw_iters / (t1 - t0) / 1e9;
    }
  }
  GA_Sync(); /* rank 1 (and others) wait here, passive, while rank 0 measures */

  if (me == 0) {
    double lat_med = ref_median(lat_us, reps), lat_min = lat_us[0];
    double bw_med = ref_median(bw_gbs, reps), bw_max = bw_gbs[0];
    for (r = 1; r < reps; r++) {
      if (lat_us[r] < lat_min) lat_min = lat_us[r];
      if (bw_gbs[r] > bw_max) bw_max = bw_gbs[r];
    }
    printf("GA get latency 8 B : median %.3f us, min %.3f us (%d reps x %d gets, %d ranks)\n",
           lat_med, lat_min, reps, lat_iters, nproc);
    printf(
        "GA get bandwidth 1 MiB : median %.3f GB/s, max %.3f GB/s (%d reps x %d gets, %d ranks)\n",
        bw_med, bw_max, reps, bw_iters, nproc);
    printf("{\"system\":\"" REF_SYSTEM
           "\",\"ranks\":%d,"
           "\"get_lat_8B_us_median\":%.4f,\"get_lat_8B_us_min\":%.4f,"
           "\"get_bw_1MiB_GBs_median\":%.4f,\"get_bw_1MiB_GBs_max\":%.4f,\"reps\":%d}\n",
           nproc, lat_med, lat_min, bw_med, bw_max, reps);
    fflush(stdout);
    free(lat_us);
    free(bw_gbs);
    free(raw);
  }

  GA_Destroy(g_a);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
