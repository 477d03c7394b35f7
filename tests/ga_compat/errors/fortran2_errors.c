/* Error paths of NGA_Distribution: each case must end the whole job with a message naming the
 * call once (not "NGA_Distribution: NGA_Distribution: ...") and the value. Reaching the end of a
 * case is a failure. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "ga.h"
#include "macdecls.h"

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "";
  MPI_Init(&argc, &argv);
  GA_Initialize();
  int dims[2] = {8, 6}, lo[2], hi[2];
  if (strcmp(which, "distribution-process") == 0) {
    int g = NGA_Create(C_DBL, 2, dims, "A", NULL);
    NGA_Distribution(g, 7, lo, hi);
  } else if (strcmp(which, "distribution-block") == 0) {
    int g = GA_Create_handle(), block[2] = {3, 2};
    GA_Set_data(g, 2, dims, C_DBL);
    GA_Set_block_cyclic(g, block);
    GA_Allocate(g);
    NGA_Distribution(g, -1, lo, hi);
  }
  printf("case '%s' did not fail\n", which);
  GA_Terminate();
  MPI_Finalize();
  return 2;
}
