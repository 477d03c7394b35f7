/* GA_Dgop (sum) and GA_Brdcst latency, for bench/compare_ga_coll.sh: one source built against
 * Debian's GA 5.8.2 (ARMCI-MPI) and against Gaea's GA C API (ref_system.h says which).
 *
 * For every size: warm-up calls, then R repetitions of one run each; a run is
 *   GA_Sync; for i in 1..iters: { t0; call; t1; GA_Sync }
 * with only the call timed (MPI_Wtime). A rank's figure is the mean per call; rank 0 reports the
 * average over ranks of every repetition and their median. Iterations: --iters up to 8 KiB,
 * then iters x 8 KiB / size (at least --min-iters); warm-up likewise.
 * After the timed calls of every repetition, one more call is checked on every rank: GA_Dgop's
 * sum of small integers (exact in any order) and GA_Brdcst's bytes from root 0, both changing
 * from repetition to repetition; a mismatch ends the job (GA_Error).
 *
 * Sizes: GA_Dgop 1 .. --max-doubles (512Ki) doubles, GA_Brdcst 8 B .. --max-bytes (4 MiB), each
 * x --factor (4), the maximum always included.
 * Options: --ops dgop,brdcst --reps R (5) --iters N (100) --warmup W (10) --min-iters M (4)
 *          --factor F (4) --max-doubles N --max-bytes B
 * Output (rank 0): one JSON line per operation and size:
 *   {"bench":"ga_coll","system":...,"op":"dgop","count":n,"bytes":8n,"ranks":P,"iters":k,
 *    "us":median,"reps_us":[...]}
 * Build: see bench/reference/CMakeLists.txt.  Run: mpirun -np 4 ./ga_coll_bench */
#include <ga.h>
#include <macdecls.h>
#include <mpi.h>

#include "ref_stats.h"
#include "ref_system.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LARGE_MESSAGE 8192L
#define MAX_REPS 100

struct options {
  int dgop, brdcst, reps, iters, warmup, min_iters;
  long factor, max_doubles, max_bytes;
};

static int me, np;

/* Element k of rank `src`'s input to the sum of repetition `salt`: small integers. */
static double term(int src, unsigned salt, long k) {
  return (double)(((unsigned)src * 131u + salt * 7u + (unsigned)k * 13u + (unsigned)(k >> 8)) %
                  1021u);
}

/* Byte k of the root's buffer in repetition `salt`. */
static char pattern(unsigned salt, long k) {
  return (char)((salt * 7u + (unsigned)k * 13u + (unsigned)(k >> 8)) & 0xffu);
}

static void fill_terms(double* x, long n, unsigned salt) {
  long k;
  for (k = 0; k < n; k++)
    x[k] = term(me, salt, k);
}

static void fill_bytes(char* b, long n, unsigned salt) {
  long k;
  for (k = 0; k < n; k++)
    b[k] = me == 0 ? pattern(salt, k) : (char)0xee;
}

/* One call of `op` on `n` elements (dgop: doubles of x; brdcst: bytes of b). */
static void call(int dgop, double* x, char* b, long n) {
  static char plus[] = "+";
  if (dgop)
    GA_Dgop(x, (int)n, plus);
  else
    GA_Brdcst(b, (int)n, 0);
}

/* The checked call of repetition `salt`; ends the job on a wrong element. */
static void checked_call(int dgop, double* x, char* b, long n, unsigned salt) {
  long k, bad = 0;
  int r;
  if (dgop) {
    fill_terms(x, n, salt);
  } else {
    fill_bytes(b, n, salt);
  }
  call(dgop, x, b, n);
  for (k = 0; k < n; k++) {
    if (dgop) {
      double want = 0;
      for (r = 0; r < np; r++)
        want += term(r, salt, k);
      bad += x[k] != want;
    } else {
      bad += b[k] != pattern(salt, k);
    }
  }
  if (bad) {
    fprintf(stderr, "ga_coll_bench: rank %d: %s of %ld elements: %ld wrong\n", me,
            dgop ? "GA_Dgop" : "GA_Brdcst", n, bad);
    GA_Error("ga_coll_bench: wrong result", (int)bad);
  }
}

/* Mean per-call time [us] of `iters` calls, averaged over the ranks. */
static double timed_run(int dgop, double* x, char* b, long n, int iters) {
  double total = 0, mine, sum;
  int i;
  GA_Sync();
  for (i = 0; i < iters; i++) {
    double t0 = MPI_Wtime();
    call(dgop, x, b, n);
    total += MPI_Wtime() - t0;
    GA_Sync();
  }
  mine = total / iters * 1e6;
  MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum / np;
}

static void measure(const struct options* o, int dgop, double* x, char* b, long n, unsigned* salt) {
  const long bytes = dgop ? 8 * n : n;
  const double scale = bytes <= LARGE_MESSAGE ? 1.0 : (double)LARGE_MESSAGE / (double)bytes;
  const int iters = o->iters * scale > o->min_iters ? (int)(o->iters * scale) : o->min_iters;
  const int warm = o->warmup == 0 ? 0 : (o->warmup * scale > 1 ? (int)(o->warmup * scale) : 1);
  double us[MAX_REPS];
  int i, r;
  if (dgop) fill_terms(x, n, *salt);
  for (i = 0; i < warm; i++) {
    call(dgop, x, b, n);
    GA_Sync();
  }
  for (r = 0; r < o->reps; r++) {
    us[r] = timed_run(dgop, x, b, n, iters);
    checked_call(dgop, x, b, n, ++*salt);
  }
  if (me == 0) {
    printf(
        "{\"bench\":\"ga_coll\",\"system\":\"%s\",\"op\":\"%s\",\"count\":%ld,\"bytes\":%ld,"
        "\"ranks\":%d,\"iters\":%d,\"us\":%.4f,\"reps_us\":[",
        REF_SYSTEM_SHORT, dgop ? "dgop" : "brdcst", n, bytes, np, iters, ref_median(us, o->reps));
    for (r = 0; r < o->reps; r++)
      printf("%s%.4f", r ? "," : "", us[r]);
    printf("]}\n");
    fflush(stdout);
  }
}

/* Sizes first, first*f, ... and `last` (always). */
static void sweep(const struct options* o, int dgop, double* x, char* b, long first, long last,
                  unsigned* salt) {
  long n;
  for (n = first; n < last; n *= o->factor)
    measure(o, dgop, x, b, n, salt);
  measure(o, dgop, x, b, last, salt);
}

int main(int argc, char** argv) {
  struct options o = {1, 1, 5, 100, 10, 4, 4, 512L * 1024, 4L << 20};
  double* x;
  char* b;
  unsigned salt = 0;
  int i;
  for (i = 1; i + 1 < argc; i += 2) {
    const char *k = argv[i], *v = argv[i + 1];
    if (!strcmp(k, "--ops")) {
      o.dgop = strstr(v, "dgop") != NULL;
      o.brdcst = strstr(v, "brdcst") != NULL;
    } else if (!strcmp(k, "--reps")) {
      o.reps = atoi(v);
    } else if (!strcmp(k, "--iters")) {
      o.iters = atoi(v);
    } else if (!strcmp(k, "--warmup")) {
      o.warmup = atoi(v);
    } else if (!strcmp(k, "--min-iters")) {
      o.min_iters = atoi(v);
    } else if (!strcmp(k, "--factor")) {
      o.factor = atol(v);
    } else if (!strcmp(k, "--max-doubles")) {
      o.max_doubles = atol(v);
    } else if (!strcmp(k, "--max-bytes")) {
      o.max_bytes = atol(v);
    } else {
      fprintf(stderr, "ga_coll_bench: unknown option %s\n", k);
      return 2;
    }
  }
  if (o.reps < 1 || o.reps > MAX_REPS || o.iters < 1 || o.min_iters < 1 || o.factor < 2 ||
      o.max_doubles < 1 || o.max_bytes < 8 || o.max_bytes > 1L << 30 || o.max_doubles > 1L << 27) {
    fprintf(stderr, "ga_coll_bench: bad options (reps 1..%d, factor >= 2, sizes)\n", MAX_REPS);
    return 2;
  }
  MPI_Init(&argc, &argv);
  GA_Initialize();
  MA_init(C_DBL, 1000000, 1000000);
  me = GA_Nodeid();
  np = GA_Nnodes();
  x = malloc(sizeof(double) * (size_t)o.max_doubles);
  b = malloc((size_t)o.max_bytes);
  if (!x || !b) GA_Error("ga_coll_bench: out of memory", 0);
  if (me == 0)
    printf(
        "# ga_coll_bench (%s): %d ranks, %d reps, latency per call [us], average over ranks, "
        "median over reps\n",
        REF_SYSTEM, np, o.reps);
  if (o.dgop) sweep(&o, 1, x, b, 1, o.max_doubles, &salt);
  if (o.brdcst) sweep(&o, 0, x, b, 8, o.max_bytes, &salt);
  free(b);
  free(x);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
