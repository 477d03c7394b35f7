/* Error paths of the non-blocking, element-list, lock, collective and group calls: each case must
 * end the whole job with a message naming the call, the object and the values
 * (tests/ga_compat/CMakeLists.txt checks the output). Reaching the end of a case is a failure. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "ga.h"

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "";
  MPI_Init(&argc, &argv);
  GA_Initialize();
  const int me = GA_Nodeid();
  if (strcmp(which, "unlock-not-held") == 0) {
    GA_Create_mutexes(2);
    GA_Unlock(1);
  } else if (strcmp(which, "lock-twice") == 0) {
    GA_Create_mutexes(2);
    if (me == 0) {
      GA_Lock(0);
      GA_Lock(0);
    }
    GA_Sync();
  } else if (strcmp(which, "mutex-index") == 0) {
    GA_Create_mutexes(2);
    GA_Lock(5);
  } else if (strcmp(which, "destroy-held") == 0) {
    GA_Create_mutexes(3);
    if (me == 0) GA_Lock(2);
    GA_Destroy_mutexes();
  } else if (strcmp(which, "nb-handle") == 0) {
    NGA_NbWait(NULL); /* an unknown handle value is a completed one, as in GA 5.8 */
  } else if (strcmp(which, "gop-op") == 0) {
    double x[1] = {1.0};
    GA_Dgop(x, 1, "avg");
  } else if (strcmp(which, "read-inc-type") == 0) {
    int dims[1] = {4}, sub[1] = {0};
    int g = NGA_Create(C_DBL, 1, dims, "D", NULL);
    NGA_Read_inc(g, sub, 1);
  } else if (strcmp(which, "pgroup-handle") == 0) {
    GA_Pgroup_nodeid(42);
  } else {
    fprintf(stderr, "unknown case '%s'\n", which);
  }
  if (me == 0) printf("sync_errors: case '%s' did not end the job\n", which);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
