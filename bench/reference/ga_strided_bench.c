/*
 * ga_strided_bench.c -- Global Arrays (Debian 5.8.2, ARMCI-MPI) side of bench/ga_strided.cpp:
 * the same three experiments on the same shapes, so bench/compare_strided.sh can put them side
 * by side.
 *   strided: rank 0 gets (puts) a 1 MiB 2-D patch of rank 1's block with rows of `chunk` bytes
 *            (64 B .. 256 KiB); per repetition K transfers (puts end with GA_Fence); MB/s (1e6);
 *            median over R repetitions (one warm-up repetition dropped).
 *   acc:     ranks 1..P-1 NGA_Acc at once into rank 0's block (1 KiB .. 256 KiB patches, rows of
 *            at most 512 B); per repetition K accumulates and a fence; the slowest rank's time
 *            per accumulate in us; median over R.
 *   nbget:   rank 0 keeps `depth` (1, 8) NGA_NbGet of 8 B / 64 KiB from rank 1 in flight;
 *            thousands of operations per second; median over R.
 * Options: --reps R (5) --iters K (20) --quick
 *          --acc-bytes B: only the acc experiment, on one patch of B bytes (<= 1 MiB; the
 *          accumulate sweep, bench/compare_acc_sweep.sh)
 * Output: one JSON line per row on rank 0 (the same keys as ga_strided, "system":"ga").
 */
#include <ga.h>
#include <macdecls.h>
#include <mpi.h>

#include "ref_stats.h"
#include "ref_system.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A rows x (width * nproc) array with one rows x width block per rank. */
static int column_blocks(int rows, int width, int nproc, char* name) {
  int dims[2] = {rows, width * nproc}, block[2] = {1, nproc}, i;
  int* map = malloc((size_t)(1 + nproc) * sizeof(int));
  int g;
  map[0] = 0;
  for (i = 0; i < nproc; i++)
    map[1 + i] = i * width;
  g = NGA_Create_irreg(C_DBL, 2, dims, name, block, map);
  free(map);
  if (!g) GA_Error("NGA_Create_irreg failed", rows);
  GA_Zero(g);
  return g;
}

int main(int argc, char** argv) {
  int reps = 5, iters = 20, quick = 0, acc_bytes = 0, me, nproc, i, r, k;
  double* samples;
  double* buf;
  MPI_Init(&argc, &argv);
  GA_Initialize();
  me = GA_Nodeid();
  nproc = GA_Nnodes();
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) {
      quick = 1;
      reps = 3;
      iters = 4;
    } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc) {
      iters = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--acc-bytes") == 0 && i + 1 < argc) {
      acc_bytes = atoi(argv[++i]);
    }
  }
  if (nproc < 2 || reps <= 0 || iters <= 0 || acc_bytes < 0 || acc_bytes > (1 << 20) ||
      acc_bytes % 8 != 0) {
    if (me == 0) fprintf(stderr, "ga_strided_bench: needs >= 2 ranks and positive options\n");
    GA_Terminate();
    MPI_Finalize();
    return 2;
  }
  samples = malloc((size_t)(reps + 1) * sizeof(double));
  buf = malloc((size_t)1 << 20);
  for (i = 0; i < (1 << 17); i++)
    buf[i] = 1.0;

  if (acc_bytes == 0) { /* strided */
    const int all[] = {64, 256, 1024, 4096, 16384, 65536, 262144}, few[] = {64, 4096, 262144};
    const int* chunks = quick ? few : all;
    int nchunks = quick ? 3 : 7, c;
    for (c = 0; c < nchunks; c++) {
      int w = chunks[c] / 8, rows = (1 << 20) / chunks[c];
      int g = column_blocks(rows, w, nproc, "strided");
      int lo[2] = {0, w}, hi[2] = {rows - 1, 2 * w - 1}, ld[1] = {w};
      double mbs[2];
      if (me == 0) {
        for (k = 0; k < 2; k++) {
          for (r = 0; r < reps + 1; r++) {
            double t0 = MPI_Wtime();
            if (k) GA_Init_fence();
            for (i = 0; i < iters; i++) {
              if (k)
                NGA_Put(g, lo, hi, buf, ld);
              else
                NGA_Get(g, lo, hi, buf, ld);
            }
            if (k) GA_Fence();
            samples[r] = (double)(1 << 20) * iters / (MPI_Wtime() - t0) * 1e-6;
          }
          mbs[k] = ref_median(samples + 1, reps);
        }
        printf("{\"bench\":\"strided\",\"system\":\"" REF_SYSTEM_SHORT
               "\",\"chunk\":%d,\"rows\":%d,\"get\":%.2f,"
               "\"put\":%.2f}\n",
               chunks[c], rows, mbs[0], mbs[1]);
      }
      GA_Sync();
      GA_Destroy(g);
    }
  }
  { /* acc */
    const int all[] = {1024, 16384, 262144}, few[] = {1024, 262144};
    const int* sizes = acc_bytes > 0 ? &acc_bytes : quick ? few : all;
    int nsizes = acc_bytes > 0 ? 1 : quick ? 2 : 3, s;
    for (s = 0; s < nsizes; s++) {
      int w = (sizes[s] < 512 ? sizes[s] : 512) / 8, rows = sizes[s] / 8 / w;
      int g = column_blocks(rows, w, nproc, "acc");
      int lo[2] = {0, 0}, hi[2] = {rows - 1, w - 1}, ld[1] = {w};
      double one = 1.0;
      for (r = 0; r < reps + 1; r++) {
        double t, tmax;
        GA_Sync();
        t = MPI_Wtime();
        if (me != 0) {
          GA_Init_fence();
          for (i = 0; i < iters; i++)
            NGA_Acc(g, lo, hi, buf, ld, &one);
          GA_Fence();
        }
        t = MPI_Wtime() - t;
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        samples[r] = tmax / iters * 1e6;
      }
      if (me == 0)
        printf("{\"bench\":\"acc\",\"system\":\"" REF_SYSTEM_SHORT
               "\",\"bytes\":%d,\"origins\":%d,\"us\":%.3f}\n",
               sizes[s], nproc - 1, ref_median(samples + 1, reps));
      GA_Sync();
      GA_Destroy(g);
    }
  }
  if (acc_bytes == 0) { /* nbget */
    const int block = (1 << 16) / 8;
    int dims[1] = {block * nproc}, chunk[1] = {block};
    int g = NGA_Create(C_DBL, 1, dims, "nbget", chunk);
    int sizes[2] = {1, block}, depths[2] = {1, 8}, si, di;
    ga_nbhdl_t h[8];
    GA_Zero(g);
    for (si = 0; si < 2 && me == 0; si++)
      for (di = 0; di < 2; di++) {
        int depth = depths[di], ops = quick ? 200 : (sizes[si] == 1 ? 20000 : 2000);
        int lo[1] = {block}, hi[1] = {block + sizes[si] - 1}, ld[1] = {1};
        for (r = 0; r < reps + 1; r++) {
          double t0 = MPI_Wtime();
          for (i = 0; i < ops; i++) {
            if (i >= depth) NGA_NbWait(&h[i % depth]);
            NGA_NbGet(g, lo, hi, buf + (size_t)(i % depth) * block, ld, &h[i % depth]);
          }
          for (i = 0; i < depth && i < ops; i++)
            NGA_NbWait(&h[i]);
          samples[r] = ops / (MPI_Wtime() - t0) * 1e-3;
        }
        printf("{\"bench\":\"nbget\",\"system\":\"" REF_SYSTEM_SHORT
               "\",\"bytes\":%d,\"depth\":%d,\"kops\":%.2f}\n",
               sizes[si] * 8, depth, ref_median(samples + 1, reps));
      }
    GA_Sync();
    GA_Destroy(g);
  }
  free(samples);
  free(buf);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
