/* GA C API, mutexes: GA_Create_mutexes / GA_Lock / GA_Unlock / GA_Destroy_mutexes. Every rank
 * increments shared counters in a global array by a non-atomic get, add and put under the
 * counter's mutex; the final values must be exact. A GA-style program: plain C, ga.h only. */
#include <mpi.h>
#include <stdio.h>

#include "check.h"
#include "ga.h"

static int me, nproc;

enum { CELLS = 6, ROUNDS = 40 };

/* cell j of g: read, add `inc`, write back, made visible before the unlock. */
static void locked_add(int g, int mutex, int j, long inc) {
  int lo[1] = {j};
  long v;
  GA_Lock(mutex);
  NGA_Get(g, lo, lo, &v, NULL);
  v += inc;
  NGA_Put(g, lo, lo, &v, NULL);
  GA_Fence();
  GA_Unlock(mutex);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  me = GA_Nodeid();
  nproc = GA_Nnodes();
  int dims[1] = {CELLS};
  int g = NGA_Create(C_LONG, 1, dims, "cells", NULL);
  GA_Zero(g);

  /* One mutex per cell, spread over the ranks. */
  CHECK(GA_Create_mutexes(CELLS) == 1, "GA_Create_mutexes(%d)", CELLS);
  for (int r = 0; r < ROUNDS; ++r)
    for (int j = 0; j < CELLS; ++j) { /* ranks start at different cells */
      const int c = (j + me) % CELLS;
      locked_add(g, c, c, c + 1);
    }
  GA_Sync();
  long got[CELLS];
  {
    int lo[1] = {0}, hi[1] = {CELLS - 1};
    NGA_Get(g, lo, hi, got, NULL);
  }
  for (int j = 0; j < CELLS; ++j)
    CHECK(got[j] == (long)ROUNDS * nproc * (j + 1), "cell %d = %ld, expected %ld", j, got[j],
          (long)ROUNDS * nproc * (j + 1));
  CHECK(GA_Destroy_mutexes() == 1, "GA_Destroy_mutexes");
  GA_Sync();

  /* A new set of one mutex guarding every cell (all ranks contend for it). */
  GA_Zero(g);
  CHECK(NGA_Create_mutexes(1) == 1, "NGA_Create_mutexes(1)");
  for (int r = 0; r < ROUNDS; ++r) {
    NGA_Lock(0);
    long v[CELLS];
    int lo[1] = {0}, hi[1] = {CELLS - 1};
    NGA_Get(g, lo, hi, v, NULL);
    for (int j = 0; j < CELLS; ++j)
      v[j] += me + 1;
    NGA_Put(g, lo, hi, v, NULL);
    GA_Fence();
    NGA_Unlock(0);
  }
  GA_Sync();
  {
    int lo[1] = {0}, hi[1] = {CELLS - 1};
    NGA_Get(g, lo, hi, got, NULL);
  }
  for (int j = 0; j < CELLS; ++j)
    CHECK(got[j] == (long)ROUNDS * nproc * (nproc + 1) / 2, "one-mutex cell %d = %ld", j, got[j]);
  CHECK(NGA_Destroy_mutexes() == 1, "NGA_Destroy_mutexes");

  GA_Destroy(g);
  GA_Sync();
  if (me == 0) printf("ga_compat locks: all checks passed on %d ranks\n", nproc);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
