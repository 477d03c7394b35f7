/* Arrays of a registered type refuse arithmetic: each case must end the whole job with a message
 * naming the call and the registered type. Reaching the end of a case is a failure. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "ga.h"
#include "macdecls.h"

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "";
  MPI_Init(&argc, &argv);
  GA_Initialize();
  int dims[2] = {8, 6};
  const int t = NGA_Register_type(8);
  int g = NGA_Create(t, 2, dims, "opaque", NULL);
  double two = 2.0;
  if (strcmp(which, "registered-scale") == 0) {
    GA_Scale(g, &two);
  } else if (strcmp(which, "registered-acc") == 0) {
    int lo[2] = {0, 0}, hi[2] = {0, 0}, ld[1] = {1};
    NGA_Acc(g, lo, hi, &two, ld, &two);
  } else if (strcmp(which, "registered-copy-mixed") == 0) {
    int h = NGA_Create(C_DBL, 2, dims, "numbers", NULL);
    GA_Copy(g, h);
  } else if (strcmp(which, "registered-odd-size") == 0) {
    NGA_Create(NGA_Register_type(12), 2, dims, "twelve", NULL);
  }
  printf("case '%s' did not fail\n", which);
  GA_Terminate();
  MPI_Finalize();
  return 2;
}
