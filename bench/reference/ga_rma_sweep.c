/*
 * ga_rma_sweep.c -- get/put latency and bandwidth of Global Arrays (C API, Debian 5.8.2 on
 * ARMCI-MPI) from 8 B to 4 MiB: the reference for `get_bench --sweep` (bench/get_bench.cpp),
 * measured the same way and printed with the same JSON keys (bench/compare_rma_nodes.sh).
 *
 * Rank 0 is the origin, rank 1 the passive target (it waits in GA_Sync); launched with
 * `mpirun --map-by node` on two hosts, the two are on different hosts. For every size:
 *   get latency    NGA_Get;                                  time per op
 *   put latency    GA_Init_fence + NGA_Put + GA_Fence;       time per op
 *   get bandwidth  a window of D NGA_NbGet kept in flight (NGA_NbWait on the oldest before its
 *                  slot is reused), each into its own slot of a page-aligned buffer
 *   put bandwidth  the same with NGA_NbPut, between GA_Init_fence and one GA_Fence per
 *                  repetition (inside the timing)
 * After a warm-up of 8 B gets (max(100 ms, 5 repetitions)), each measurement: a warm-up that
 * also calibrates K so that one repetition lasts about --rep-ms, then R timed repetitions of K
 * ops. Reported: median and best over repetitions. (How much of the window really overlaps is
 * up to ARMCI-MPI: some of its versions complete an NbGet/NbPut before returning. The figure
 * is what a GA program gets from NbGet/NbPut here.)
 *
 * Options: --reps R (7) --rep-ms T (20) --depth D (8)
 *          --sizes LIST (8,64,512,4KiB,32KiB,256KiB,1MiB,4MiB; multiples of 8 B)
 * Output (rank 0): a table, then one JSON line {"bench":"rma_sweep",...,"rows":[...]}.
 * Build: see bench/reference/CMakeLists.txt (ga-config --libs, gfortran, m).
 * Run:   mpirun --allow-run-as-root -np 2 ./ga_rma_sweep
 */
#include <ga.h>
#include <macdecls.h>
#include <mpi.h>

#include "ref_array.h"
#include "ref_stats.h"
#include "ref_system.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 32
#define MAX_K 1000000L

/* What one batch of k operations needs. */
struct sweep_ctx {
  int g_a;
  int lo[1], hi[1], ld[1];
  double* buf; /* depth slots of slot_elems doubles */
  long slot_elems;
  int depth;
  ga_nbhdl_t* handles; /* depth handles */
  int* in_flight;      /* 1 while handles[i] is outstanding */
};

typedef void (*batch_fn)(struct sweep_ctx*, long k);

static void get_lat(struct sweep_ctx* c, long k) {
  long i;
  for (i = 0; i < k; i++)
    NGA_Get(c->g_a, c->lo, c->hi, c->buf, c->ld);
}

static void put_lat(struct sweep_ctx* c, long k) {
  long i;
  for (i = 0; i < k; i++) {
    GA_Init_fence();
    NGA_Put(c->g_a, c->lo, c->hi, c->buf, c->ld);
    GA_Fence();
  }
}

static void window(struct sweep_ctx* c, long k, int put) {
  long i;
  int s;
  for (i = 0; i < k; i++) {
    s = (int)(i % c->depth);
    if (c->in_flight[s]) NGA_NbWait(&c->handles[s]); /* frees the slot before it is reused */
    if (put)
      NGA_NbPut(c->g_a, c->lo, c->hi, c->buf + (size_t)s * (size_t)c->slot_elems, c->ld,
                &c->handles[s]);
    else
      NGA_NbGet(c->g_a, c->lo, c->hi, c->buf + (size_t)s * (size_t)c->slot_elems, c->ld,
                &c->handles[s]);
    c->in_flight[s] = 1;
  }
  for (s = 0; s < c->depth; s++)
    if (c->in_flight[s]) {
      NGA_NbWait(&c->handles[s]);
      c->in_flight[s] = 0;
    }
}

static void get_bw(struct sweep_ctx* c, long k) {
  window(c, k, 0);
}

static void put_bw(struct sweep_ctx* c, long k) {
  GA_Init_fence();
  window(c, k, 1);
  GA_Fence();
}

/* Seconds per op of `reps` repetitions of f(k), k calibrated so that one repetition lasts about
 * rep_s (same procedure as time_per_op in bench/get_bench.cpp). Writes reps values to out. */
static long time_per_op(batch_fn f, struct sweep_ctx* c, int reps, double rep_s, double* out) {
  long k = 1;
  int r;
  f(c, 2); /* first use */
  for (;;) {
    double t = MPI_Wtime(), dt;
    f(c, k);
    dt = MPI_Wtime() - t;
    if (dt >= rep_s / 4 || k >= MAX_K) {
      double want = ceil((double)k * rep_s / (dt > 1e-9 ? dt : 1e-9));
      k = want < 1 ? 1 : (want > (double)MAX_K ? MAX_K : (long)want);
      break;
    }
    k *= 2;
  }
  for (r = 0; r < reps; r++) {
    double t = MPI_Wtime();
    f(c, k);
    out[r] = (MPI_Wtime() - t) / (double)k;
  }
  return k;
}

static double min_of(const double* v, int n) {
  double m = v[0];
  int i;
  for (i = 1; i < n; i++)
    if (v[i] < m) m = v[i];
  return m;
}

/* "4096", "4KiB", "4K", "1MiB", "1M" -> bytes; 0 when malformed. */
static long parse_bytes(const char* s, char** end) {
  long v = strtol(s, end, 10), mult = 1;
  if (*end == s || v <= 0) return 0;
  if (strncmp(*end, "KiB", 3) == 0) {
    mult = 1024;
    *end += 3;
  } else if (strncmp(*end, "MiB", 3) == 0) {
    mult = 1024 * 1024;
    *end += 3;
  } else if (**end == 'K') {
    mult = 1024;
    *end += 1;
  } else if (**end == 'M') {
    mult = 1024 * 1024;
    *end += 1;
  } else if (**end == 'B') {
    *end += 1;
  }
  return v * mult;
}

int main(int argc, char** argv) {
  long sizes[MAX_SIZES] = {8, 64, 512, 4L << 10, 32L << 10, 256L << 10, 1L << 20, 4L << 20};
  int nsizes = 8, reps = 7, depth = 8, me, nproc, g_a, i, s, bad = 0;
  double rep_ms = 20;
  long max_bytes = 0, block;
  int lo[1], hi[1];
  char name[] = "ga_rma_sweep";
  char host0[MPI_MAX_PROCESSOR_NAME] = {0}, host1[MPI_MAX_PROCESSOR_NAME] = {0};
  int hlen = 0, nodes = 1;
  double *gl = NULL, *pl = NULL, *gb = NULL, *pb = NULL;
  double res[MAX_SIZES][8];
  long ks[MAX_SIZES][4];
  char* raw = NULL;
  struct sweep_ctx c;

  MPI_Init(&argc, &argv);
  GA_Initialize();
  me = GA_Nodeid();
  nproc = GA_Nnodes();

  for (i = 1; i < argc && !bad; i++) {
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    char* end = NULL;
    if (!v) {
      bad = 1;
    } else if (strcmp(argv[i], "--reps") == 0) {
      reps = atoi(v);
      bad = reps <= 0;
    } else if (strcmp(argv[i], "--depth") == 0) {
      depth = atoi(v);
      bad = depth <= 0;
    } else if (strcmp(argv[i], "--rep-ms") == 0) {
      rep_ms = atof(v);
      bad = !(rep_ms > 0);
    } else if (strcmp(argv[i], "--sizes") == 0) {
      const char* p = v;
      nsizes = 0;
      while (!bad) {
        long b = parse_bytes(p, &end);
        if (b <= 0 || b % 8 != 0 || nsizes == MAX_SIZES || (*end != ',' && *end != '\0')) {
          bad = 1;
          break;
        }
        sizes[nsizes++] = b;
        if (*end == '\0') break;
        p = end + 1;
      }
    } else {
      bad = 1;
    }
    i++;
  }
  if (bad || nproc < 2) {
    if (me == 0)
      fprintf(stderr,
              "usage: %s [--reps R] [--rep-ms T] [--depth D] [--sizes 8,64,4KiB,1MiB] "
              "(at least 2 ranks; sizes multiples of 8 B)\n",
              argv[0]);
    GA_Terminate();
    MPI_Finalize();
    return 2;
  }
  for (s = 0; s < nsizes; s++)
    if (sizes[s] > max_bytes) max_bytes = sizes[s];
  block = max_bytes / 8;
  if ((long)nproc * block > 2147483647L) GA_Error("array too large for int dims", 0);

  g_a = ref_create_indexed(name, nproc, me, (int)block);
  MPI_Get_processor_name(me == 1 ? host1 : host0, &hlen);
  MPI_Bcast(host0, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Bcast(host1, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 1, MPI_COMM_WORLD);
  { /* Hosts as MPI sees them (ARMCI-MPI reports one "cluster node" per process). */
    MPI_Comm node;
    int node_rank, leader;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank);
    leader = node_rank == 0;
    MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
  }
  GA_Sync();

  NGA_Distribution(g_a, 1, lo, hi);
  if (hi[0] - lo[0] + 1 < block) GA_Error("rank 1 owns less than the largest size", hi[0]);

  if (me == 0) {
    size_t bytes = (size_t)max_bytes * (size_t)depth;
    int wlo[1] = {lo[0]}, whi[1] = {lo[0] + (int)block - 1};
    memset(&c, 0, sizeof c);
    c.g_a = g_a;
    c.ld[0] = 1;
    c.slot_elems = block;
    c.depth = depth;
    gl = malloc((size_t)reps * sizeof(double));
    pl = malloc((size_t)reps * sizeof(double));
    gb = malloc((size_t)reps * sizeof(double));
    pb = malloc((size_t)reps * sizeof(double));
    c.handles = malloc((size_t)depth * sizeof(ga_nbhdl_t));
    c.in_flight = calloc((size_t)depth, sizeof(int));
    /* Page-aligned slots (a 16-mod-64 destination slows glibc's memcpy on some CPUs). */
    raw = malloc(bytes + 4096);
    if (!gl || !pl || !gb || !pb || !c.handles || !c.in_flight || !raw)
      GA_Error("malloc failed", 0);
    c.buf = (double*)(void*)(((uintptr_t)raw + 4095) & ~(uintptr_t)4095);

    /* Correctness: one get of the whole patch, then a put of new values read back. */
    NGA_Get(g_a, wlo, whi, c.buf, c.ld);
    for (i = 0; i < block; i++)
      if (c.buf[i] != (double)(wlo[0] + i)) GA_Error("wrong data from NGA_Get at", i);
    for (i = 0; i < block; i++)
      c.buf[i] = -(double)i;
    GA_Init_fence();
    NGA_Put(g_a, wlo, whi, c.buf, c.ld);
    GA_Fence();
    NGA_Get(g_a, wlo, whi, c.buf + block, c.ld);
    for (i = 0; i < block; i++)
      if (c.buf[block + i] != -(double)i) GA_Error("wrong data after NGA_Put at", i);

    { /* Warm-up of the path as a whole, as in get_bench --sweep: max(100 ms, 5 reps) of 8 B. */
      const double until = MPI_Wtime() + (rep_ms * 5e-3 > 0.1 ? rep_ms * 5e-3 : 0.1);
      while (MPI_Wtime() < until)
        NGA_Get(g_a, wlo, wlo, c.buf, c.ld);
    }
    for (s = 0; s < nsizes; s++) {
      const double rep_s = rep_ms * 1e-3, b = (double)sizes[s];
      c.lo[0] = lo[0];
      c.hi[0] = lo[0] + (int)(sizes[s] / 8) - 1;
      ks[s][0] = time_per_op(get_lat, &c, reps, rep_s, gl);
      ks[s][1] = time_per_op(put_lat, &c, reps, rep_s, pl);
      ks[s][2] = time_per_op(get_bw, &c, reps, rep_s, gb);
      ks[s][3] = time_per_op(put_bw, &c, reps, rep_s, pb);
      res[s][0] = ref_median(gl, reps) * 1e6;
      res[s][1] = min_of(gl, reps) * 1e6;
      res[s][2] = ref_median(pl, reps) * 1e6;
      res[s][3] = min_of(pl, reps) * 1e6;
      res[s][4] = b / ref_median(gb, reps) * 1e-9;
      res[s][5] = b / min_of(gb, reps) * 1e-9;
      res[s][6] = b / ref_median(pb, reps) * 1e-9;
      res[s][7] = b / min_of(pb, reps) * 1e-9;
    }
  }
  GA_Sync(); /* rank 1 (and others) wait here while rank 0 measures */

  if (me == 0) {
    const char* osc = getenv("OMPI_MCA_osc");
    const char* pml = getenv("OMPI_MCA_pml");
    printf(
        "\nGA get/put sweep, rank 0 (%s) -> rank 1 (%s), %d ranks on %d node(s); median (best) "
        "of %d reps of ~%.0f ms; bandwidth: %d NbGet/NbPut in flight\n",
        host0, host1, nproc, nodes, reps, rep_ms, depth);
    printf("%10s %20s %20s %20s %20s\n", "bytes", "get lat [us]", "put+fence lat [us]",
           "get bw [GB/s]", "put bw [GB/s]");
    for (s = 0; s < nsizes; s++)
      printf("%10ld %11.3f (%6.3f) %11.3f (%6.3f) %11.3f (%6.3f) %11.3f (%6.3f)\n", sizes[s],
             res[s][0], res[s][1], res[s][2], res[s][3], res[s][4], res[s][5], res[s][6],
             res[s][7]);
    printf("{\"bench\":\"rma_sweep\",\"system\":\"" REF_SYSTEM
           "/pml=%s/osc=%s\","
           "\"ranks\":%d,\"nodes\":%d,\"origin_host\":\"%s\",\"target_host\":\"%s\","
           "\"same_node\":%s,\"reps\":%d,\"rep_ms\":%.1f,\"depth\":%d,"
           "\"lat_method\":\"NGA_Get; GA_Init_fence + NGA_Put + GA_Fence\","
           "\"bw_method\":\"window of depth NGA_NbGet/NGA_NbPut; puts end with GA_Fence\","
           "\"rows\":[",
           pml ? pml : "default", osc ? osc : "default", nproc, nodes, host0, host1,
           strcmp(host0, host1) == 0 ? "true" : "false", reps, rep_ms, depth);
    for (s = 0; s < nsizes; s++)
      printf(
          "%s{\"bytes\":%ld,\"get_lat_us\":%.4f,\"get_lat_us_min\":%.4f,\"put_lat_us\":%.4f,"
          "\"put_lat_us_min\":%.4f,\"get_bw_GBs\":%.5f,\"get_bw_GBs_max\":%.5f,"
          "\"put_bw_GBs\":%.5f,\"put_bw_GBs_max\":%.5f,\"ops_per_rep\":[%ld,%ld,%ld,%ld]}",
          s ? "," : "", sizes[s], res[s][0], res[s][1], res[s][2], res[s][3], res[s][4], res[s][5],
          res[s][6], res[s][7], ks[s][0], ks[s][1], ks[s][2], ks[s][3]);
    printf("]}\n");
    fflush(stdout);
    free(gl);
    free(pl);
    free(gb);
    free(pb);
    free(c.handles);
    free(c.in_flight);
    free(raw);
  }

  GA_Destroy(g_a);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
