/* Non-blocking handles used from several threads of each process at once, as GA 5.8 allows:
 * every thread issues NGA_NbPut/NbGet/NbAcc on its own rows, keeps many handles in flight,
 * completes some by NbTest polling and the rest by NbWait, and tests and waits again on handles
 * already complete. Handles are process-wide: no two threads are given the same one. Blocking
 * calls (NGA_Put/Get/Acc, NGA_Read_inc) run beside them. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "ga.h"
#include "macdecls.h"

enum { THREADS = 4, ROWS_PER_THREAD = 24, COLS = 33, ROUNDS = 3 };

static int me, nproc, g_data, g_count;
static ga_nbhdl_t issued[THREADS][ROWS_PER_THREAD * ROUNDS];

static double value_at(int i, int j) {
  return 1000.0 * i + j;
}

/* Rows of thread t on rank r: each (rank, thread) pair owns ROWS_PER_THREAD rows. */
static int first_row(int r, int t) {
  return (r * THREADS + t) * ROWS_PER_THREAD;
}

static void* worker(void* arg) {
  const int t = (int)(long)arg;
  const int row0 = first_row(me, t);
  double* out = malloc(sizeof(double) * ROWS_PER_THREAD * COLS);
  double* in = malloc(sizeof(double) * ROWS_PER_THREAD * COLS);
  ga_nbhdl_t h[ROWS_PER_THREAD];
  int ld[1] = {COLS};
  for (int round = 0; round < ROUNDS; ++round) {
    /* Puts, one per row, all in flight; half polled to completion, half waited for. */
    for (int k = 0; k < ROWS_PER_THREAD; ++k) {
      for (int j = 0; j < COLS; ++j)
        out[k * COLS + j] = value_at(row0 + k, j);
      int lo[2] = {row0 + k, 0}, hi[2] = {row0 + k, COLS - 1};
      NGA_NbPut(g_data, lo, hi, &out[k * COLS], ld, &h[k]);
      issued[t][round * ROWS_PER_THREAD + k] = h[k];
    }
    const double deadline = GA_Wtime() + 60.0;
    for (int k = 0; k < ROWS_PER_THREAD / 2; ++k)
      while (!NGA_NbTest(&h[k]))
        CHECK(GA_Wtime() < deadline, "thread %d: put handle %ld never tested complete", t,
              (long)h[k]);
    for (int k = 0; k < ROWS_PER_THREAD; ++k)
      NGA_NbWait(&h[k]); /* the first half again: complete already */
    for (int k = 0; k < ROWS_PER_THREAD; ++k)
      CHECK(NGA_NbTest(&h[k]) == 1, "thread %d: NbTest of a waited put handle gave 0", t);
    GA_Fence(); /* this thread's puts are complete at their owners */

    /* Gets of the same rows back, completed by polling with GA_NbTest. */
    for (int k = 0; k < ROWS_PER_THREAD * COLS; ++k)
      in[k] = -1;
    for (int k = 0; k < ROWS_PER_THREAD; ++k) {
      int lo[2] = {row0 + k, 0}, hi[2] = {row0 + k, COLS - 1};
      NGA_NbGet(g_data, lo, hi, &in[k * COLS], ld, &h[k]);
    }
    for (int left = ROWS_PER_THREAD; left > 0;) {
      left = 0;
      for (int k = 0; k < ROWS_PER_THREAD; ++k)
        left += !GA_NbTest(&h[k]);
      CHECK(left == 0 || GA_Wtime() < deadline, "thread %d: %d gets never completed", t, left);
    }
    for (int k = 0; k < ROWS_PER_THREAD; ++k)
      for (int j = 0; j < COLS; ++j)
        CHECK(in[k * COLS + j] == value_at(row0 + k, j),
              "thread %d round %d: got %g at (%d,%d), expected %g", t, round, in[k * COLS + j],
              row0 + k, j, value_at(row0 + k, j));

    /* A blocking call and a counter increment between non-blocking ones. */
    int zero = 0;
    NGA_Read_inc(g_count, &zero, 1);
    int lo0[2] = {row0, 0}, hi0[2] = {row0, COLS - 1};
    NGA_Get(g_data, lo0, hi0, in, ld);
    CHECK(in[0] == value_at(row0, 0), "thread %d: blocking get %g", t, in[0]);
  }
  /* Accumulates: twice the rows, waited for in reverse order. */
  double two = 2.0;
  for (int k = 0; k < ROWS_PER_THREAD; ++k) {
    int lo[2] = {row0 + k, 0}, hi[2] = {row0 + k, COLS - 1};
    NGA_NbAcc(g_data, lo, hi, &out[k * COLS], ld, &two, &h[k]);
  }
  for (int k = ROWS_PER_THREAD - 1; k >= 0; --k)
    NGA_NbWait(&h[k]);
  GA_Fence();
  free(in);
  free(out);
  return NULL;
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  GA_Initialize();
  me = GA_Nodeid();
  nproc = GA_Nnodes();
  int dims[2] = {first_row(nproc, 0), COLS}, one = 1;
  g_data = NGA_Create(C_DBL, 2, dims, "rows", NULL);
  g_count = NGA_Create(C_INT, 1, &one, "count", NULL);
  CHECK(g_data != 0 && g_count != 0, "NGA_Create");
  GA_Zero(g_data);
  GA_Zero(g_count);

  pthread_t th[THREADS];
  for (long t = 0; t < THREADS; ++t)
    CHECK(pthread_create(&th[t], NULL, worker, (void*)t) == 0, "pthread_create");
  for (int t = 0; t < THREADS; ++t)
    pthread_join(th[t], NULL);

  /* No handle was given to two threads. */
  for (int a = 0; a < THREADS * ROWS_PER_THREAD * ROUNDS; ++a)
    for (int b = a + 1; b < THREADS * ROWS_PER_THREAD * ROUNDS; ++b)
      CHECK((&issued[0][0])[a] != (&issued[0][0])[b], "handle %ld was given twice",
            (long)(&issued[0][0])[a]);
  GA_Sync();

  /* Every row holds 3 times its value (put, then + 2 x put); the counter every increment. */
  double* row = malloc(sizeof(double) * COLS);
  for (int i = 0; i < dims[0]; ++i) {
    int lo[2] = {i, 0}, hi[2] = {i, COLS - 1}, ld[1] = {COLS};
    NGA_Get(g_data, lo, hi, row, ld);
    for (int j = 0; j < COLS; ++j)
      CHECK(row[j] == 3 * value_at(i, j), "row %d col %d: %g, expected %g", i, j, row[j],
            3 * value_at(i, j));
  }
  free(row);
  int zero = 0, count = 0;
  NGA_Get(g_count, &zero, &zero, &count, NULL);
  CHECK(count == nproc * THREADS * ROUNDS, "counter %d, expected %d", count,
        nproc * THREADS * ROUNDS);
  GA_Sync();
  if (me == 0) printf("nbtest_threads: %d threads per rank completed their handles\n", THREADS);
  GA_Destroy(g_count);
  GA_Destroy(g_data);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
