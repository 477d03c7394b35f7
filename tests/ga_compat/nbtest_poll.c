/* The polling idiom of GA programs (GA's own nbtestc): keep a non-blocking handle while
 * NGA_NbTest returns 0, drop it once it returns non-zero — GA 5.8's code returns 1 for a
 * completed transfer, 0 while one is in flight. Then NbWait and NbTest on handles already tested
 * complete (GA allows both: the wait returns at once, the test returns 1 again), more handles
 * outstanding at once than GA keeps (256), gets, accumulates, GA_NbTest and the 64-bit calls;
 * a value that is no handle counts as a completed one (GA 5.8).
 * A poll that never ends fails after a deadline instead of hanging. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "ga.h"
#include "macdecls.h"

enum { N = 48, BLOCK = 4, MANY = (N / BLOCK) * (N / BLOCK) + 200 };

static int me, nproc;

static int value_at(int i, int j) {
  return 1000 * i + j;
}

/* Polls handles h[0..n-1] as GA's nbtestc does, until none is left; returns the polls made. */
static long poll_until_done(ga_nbhdl_t* h, int n, int use_ga_name, const char* what) {
  const double deadline = GA_Wtime() + 60.0;
  long polls = 0;
  while (n > 0) {
    int kept = 0;
    for (int k = 0; k < n; ++k) {
      const int done = use_ga_name ? GA_NbTest(&h[k]) : NGA_NbTest(&h[k]);
      CHECK(done == 0 || done == 1, "%s: NbTest returned %d (0 or 1 expected)", what, done);
      if (!done) h[kept++] = h[k];
      ++polls;
    }
    n = kept;
    CHECK(n == 0 || GA_Wtime() < deadline,
          "%s: %d handles still reported in flight by NbTest after 60 s (GA 5.8 returns 1 once "
          "complete)",
          what, n);
  }
  return polls;
}

static void check_block(int g, const char* what, int scale) {
  int lo[2], hi[2], ld[1];
  int* p = NULL;
  NGA_Distribution(g, me, lo, hi);
  if (lo[0] > hi[0]) return;
  NGA_Access(g, lo, hi, &p, ld);
  for (int i = lo[0]; i <= hi[0]; ++i)
    for (int j = lo[1]; j <= hi[1]; ++j)
      CHECK(p[(i - lo[0]) * ld[0] + (j - lo[1])] == scale * value_at(i, j),
            "%s: (%d,%d) = %d, expected %d", what, i, j, p[(i - lo[0]) * ld[0] + (j - lo[1])],
            scale * value_at(i, j));
  NGA_Release(g, lo, hi);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  me = GA_Nodeid();
  nproc = GA_Nnodes();
  int dims[2] = {N, N};
  int g = NGA_Create(C_INT, 2, dims, "polled", NULL);
  CHECK(g != 0, "NGA_Create");
  GA_Zero(g);
  int* buf = malloc(sizeof(int) * N * N);
  ga_nbhdl_t* h = malloc(sizeof(ga_nbhdl_t) * MANY);
  ga_nbhdl_t* copy = malloc(sizeof(ga_nbhdl_t) * MANY);

  /* 1. One put per owner's block from the last rank, polled to completion. */
  if (me == nproc - 1) {
    int* p = buf;
    int n = 0;
    for (int r = 0; r < nproc; ++r) {
      int lo[2], hi[2];
      NGA_Distribution(g, r, lo, hi);
      const int rows = hi[0] - lo[0] + 1, cols = hi[1] - lo[1] + 1;
      if (rows <= 0 || cols <= 0) continue;
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
          p[i * cols + j] = value_at(lo[0] + i, lo[1] + j);
      int ld[1] = {cols};
      NGA_NbPut(g, lo, hi, p, ld, &h[n]);
      copy[n] = h[n];
      ++n;
      p += rows * cols;
    }
    poll_until_done(h, n, 0, "puts per owner");
    for (int k = 0; k < n; ++k) {
      NGA_NbWait(&copy[k]); /* tested complete: returns at once */
      CHECK(NGA_NbTest(&copy[k]) == 1, "NbTest of a handle tested complete gave 0");
    }
  }
  GA_Sync();
  check_block(g, "puts per owner", 1);
  {
    /* A value that is no live handle counts as completed, as in GA 5.8 (GA's threadsafec waits
     * on handles read from freed memory). */
    ga_nbhdl_t stale = 123456789;
    NGA_NbWait(&stale);
    CHECK(NGA_NbTest(&stale) == 1, "NbTest of a value that is no handle gave 0");
  }

  /* 2. More handles in flight than GA keeps: small blocks, then some repeated, every rank. */
  GA_Sync();
  GA_Zero(g);
  {
    const int nb = N / BLOCK;
    int n = 0;
    int* p = buf;
    for (int b = me; b < nb * nb; b += nproc) {
      const int bi = b / nb, bj = b % nb;
      int lo[2] = {bi * BLOCK, bj * BLOCK},
          hi[2] = {bi * BLOCK + BLOCK - 1, bj * BLOCK + BLOCK - 1};
      int ld[1] = {BLOCK};
      for (int i = 0; i < BLOCK; ++i)
        for (int j = 0; j < BLOCK; ++j)
          p[i * BLOCK + j] = value_at(lo[0] + i, lo[1] + j);
      NGA_NbPut(g, lo, hi, p, ld, &h[n++]);
      p += BLOCK * BLOCK;
    }
    /* The same blocks again from the start of the buffer (same values): more outstanding. */
    p = buf;
    for (int b = me; b < nb * nb && n < MANY; b += nproc) {
      const int bi = b / nb, bj = b % nb;
      int lo[2] = {bi * BLOCK, bj * BLOCK},
          hi[2] = {bi * BLOCK + BLOCK - 1, bj * BLOCK + BLOCK - 1};
      int ld[1] = {BLOCK};
      NGA_NbPut(g, lo, hi, p, ld, &h[n++]);
      p += BLOCK * BLOCK;
    }
    for (int k = 0; k < n; ++k)
      copy[k] = h[k];
    poll_until_done(h, n, 1, "many small puts (GA_NbTest)");
    for (int k = 0; k < n; ++k)
      GA_NbWait(&copy[k]);
  }
  GA_Sync();
  check_block(g, "many small puts", 1);

  /* 3. Gets of the whole array row by row (64-bit calls), polled; then accumulates. */
  {
    for (int i = 0; i < N * N; ++i)
      buf[i] = -1;
    for (int i = 0; i < N; ++i) {
      int64_t lo[2] = {i, 0}, hi[2] = {i, N - 1}, ld[1] = {N};
      NGA_NbGet64(g, lo, hi, &buf[i * N], ld, &h[i]);
    }
    poll_until_done(h, N, 0, "row gets");
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j)
        CHECK(buf[i * N + j] == value_at(i, j), "row get (%d,%d) = %d, expected %d", i, j,
              buf[i * N + j], value_at(i, j));
    GA_Sync();
    /* Every rank adds the array once: the result is (nproc + 1) times it. */
    int one = 1;
    for (int i = 0; i < N; ++i) {
      int lo[2] = {i, 0}, hi[2] = {i, N - 1}, ld[1] = {N};
      NGA_NbAcc(g, lo, hi, &buf[i * N], ld, &one, &h[i]);
    }
    poll_until_done(h, N, 0, "row accumulates");
    GA_Sync();
    check_block(g, "row accumulates", nproc + 1);
  }

  free(copy);
  free(h);
  free(buf);
  GA_Destroy(g);
  if (me == 0) printf("nbtest_poll: every polled handle completed\n");
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
