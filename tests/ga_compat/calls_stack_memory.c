/* GA_Register_stack_memory: after a program registers an allocator, GA takes its own temporary
 * buffers from it instead of MA's stack (GA's test helper util.c registers malloc/free this way).
 * Here: element-list and strided calls made after the registration allocate through the
 * program's functions and free every block they allocated, the results are right, and MA's
 * stack is not used by them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "ga.h"
#include "macdecls.h"

static long allocs, frees, live_bytes;

static void* counting_alloc(size_t bytes, int align, char* name) {
  CHECK(name != NULL && align > 0, "the allocator was called without a name or alignment");
  ++allocs;
  size_t* p = malloc(bytes + sizeof(size_t) * 2);
  p[0] = bytes;
  live_bytes += (long)bytes;
  return p + 2;
}

static void counting_free(void* ptr) {
  size_t* p = (size_t*)ptr - 2;
  ++frees;
  live_bytes -= (long)p[0];
  free(p);
}

enum { N = 40 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  const int me = GA_Nodeid();
  CHECK(MA_init(C_DBL, 1000, 1000), "MA_init");
  const Integer stack_before = MA_inquire_stack(C_DBL);
  int dims[2] = {N, N};
  int g = NGA_Create(C_DBL, 2, dims, "A", NULL);
  CHECK(g != 0, "NGA_Create");
  GA_Zero(g);

  GA_Register_stack_memory(counting_alloc, counting_free);

  /* Scatter a diagonal from every rank's share of it, gather it back, strided get it. */
  int n = 0, subs[N][2], *ptrs[N];
  double vals[N], back[N];
  for (int i = me; i < N; i += GA_Nnodes()) {
    subs[n][0] = i;
    subs[n][1] = i;
    ptrs[n] = subs[n];
    vals[n] = 3.0 * i + 1;
    ++n;
  }
  NGA_Scatter(g, vals, ptrs, n);
  GA_Sync();
  NGA_Gather(g, back, ptrs, n);
  for (int k = 0; k < n; ++k)
    CHECK(back[k] == vals[k], "gather %d: %g, expected %g", k, back[k], vals[k]);
  {
    int lo[2] = {0, 0}, hi[2] = {N - 1, N - 1}, skip[2] = {1, 1}, ld[1] = {1};
    double diag[N];
    for (int i = 0; i < N; ++i) {
      lo[0] = lo[1] = hi[0] = hi[1] = i;
      NGA_Strided_get(g, lo, hi, skip, &diag[i], ld);
      CHECK(diag[i] == 3.0 * i + 1, "strided get (%d,%d): %g", i, i, diag[i]);
    }
  }
  CHECK(allocs > 0, "no temporary buffer came from the registered allocator");
  CHECK(allocs == frees && live_bytes == 0,
        "%ld blocks allocated, %ld freed (%ld bytes left): the layer must free what it takes",
        allocs, frees, live_bytes);
  CHECK(MA_inquire_stack(C_DBL) == stack_before, "MA's stack changed: %ld, was %ld",
        (long)MA_inquire_stack(C_DBL), (long)stack_before);
  GA_Sync();
  GA_Destroy(g);
  if (me == 0) printf("calls_stack_memory: %ld temporary buffers came from the program\n", allocs);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
