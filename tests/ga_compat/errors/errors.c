/* GA C API error paths: each case must end the whole job with a message that names the call
 * and the bad value (tests/ga_compat/CMakeLists.txt checks the output). Never a hang, never a
 * silent success: reaching the end of a case is itself a failure (exit 0 is not expected). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "ga.h"
#include "macdecls.h"

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "";
  MPI_Init(&argc, &argv);
  if (strcmp(which, "before-init") == 0) {
    int dims[1] = {10};
    NGA_Create(C_DBL, 1, dims, "early", NULL); /* GA_Initialize not called yet */
    MPI_Finalize();
    return 0;
  }
  GA_Initialize();
  const int me = GA_Nodeid();
  int dims[2] = {10, 10};
  int g = NGA_Create(C_DBL, 2, dims, "A", NULL);
  double buf[100];
  if (strcmp(which, "ga-error-one-rank") == 0) {
    if (me == GA_Nnodes() - 1) GA_Error("the last rank gives up", 42);
    GA_Sync(); /* the other ranks wait here: the job must still end */
  } else if (strcmp(which, "finalize-without-terminate") == 0) {
    MPI_Finalize(); /* GA_Terminate forgotten: a message saying so, not an MPI error */
    return 0;
  } else if (strcmp(which, "bad-handle") == 0) {
    int lo[2] = {0, 0}, hi[2] = {1, 1}, ld[1] = {2};
    NGA_Get(g + 12345, lo, hi, buf, ld);
  } else if (strcmp(which, "out-of-bounds") == 0) {
    int lo[2] = {0, 5}, hi[2] = {3, 10}, ld[1] = {6};
    if (me == 0) NGA_Put(g, lo, hi, buf, ld);
    GA_Sync();
  } else if (strcmp(which, "bad-type") == 0) {
    NGA_Create(C_LDBL, 2, dims, "long doubles", NULL);
  } else if (strcmp(which, "destroyed") == 0) {
    GA_Destroy(g);
    int lo[2] = {0, 0}, hi[2] = {0, 0};
    NGA_Get(g, lo, hi, buf, NULL);
  } else if (strcmp(which, "ma-pop-order") == 0) {
    Integer h1, h2;
    MA_init(MT_C_DBL, 1000, 1000);
    MA_push_stack(MT_C_DBL, 10, "first", &h1);
    MA_push_stack(MT_C_DBL, 10, "second", &h2);
    MA_pop_stack(h1);
  } else {
    fprintf(stderr, "unknown case '%s'\n", which);
  }
  if (me == 0) printf("errors: case '%s' did not end the job\n", which);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
