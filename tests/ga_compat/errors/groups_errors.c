/* Error paths of arrays on process groups (2 ranks): each case must end the whole job with a
 * message naming the call, the group and the rank (tests/ga_compat/CMakeLists.txt checks it).
 * Reaching the end of a case is itself a failure. */
#include <mpi.h>
#include <string.h>

#include "ga.h"
#include "macdecls.h"

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "";
  MPI_Init(&argc, &argv);
  GA_Initialize();
  int first[1] = {0};
  const int g0 = GA_Pgroup_create(first, 1); /* rank 0 alone */
  int dims[1] = {8};
  if (strcmp(which, "not-member") == 0) {
    /* Rank 1 creates on a group it is not in: an error there, whatever rank 0 does. */
    int chunk[1] = {-1};
    NGA_Create_config(C_DBL, 1, dims, "A", chunk, g0);
  } else if (strcmp(which, "destroy-with-array") == 0) {
    if (GA_Nodeid() == 0) {
      NGA_Create_config(C_INT, 1, dims, "kept", NULL, g0);
      GA_Pgroup_destroy(g0); /* its array is still alive */
    }
  } else if (strcmp(which, "unknown-group") == 0) {
    const int g = GA_Create_handle();
    GA_Set_data(g, 1, dims, C_DBL);
    GA_Set_pgroup(g, 4242);
  }
  GA_Sync();
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
