/* Error paths of the placement, field and step calls: each case must end the whole job with a
 * message naming the call and the values (tests/ga_compat/CMakeLists.txt checks the output).
 * Reaching the end of a case is a failure. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "ga.h"

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "";
  MPI_Init(&argc, &argv);
  GA_Initialize();
  int dims[1] = {8};
  if (strcmp(which, "memory-dev") == 0) {
    int g = GA_Create_handle();
    GA_Set_data(g, 1, dims, C_DBL);
    GA_Set_memory_dev(g, "gpu");
  } else if (strcmp(which, "restricted-rank") == 0) {
    int g = GA_Create_handle(), list[2] = {0, 7};
    GA_Set_data(g, 1, dims, C_DBL);
    GA_Set_restricted(g, list, 2);
  } else if (strcmp(which, "step-negative") == 0) {
    int a = NGA_Create(C_DBL, 1, dims, "A", NULL), b = NGA_Create(C_DBL, 1, dims, "B", NULL);
    double minus = -1, step;
    GA_Fill(a, &minus);
    GA_Fill(b, &minus);
    GA_Step_max(a, b, &step);
  } else if (strcmp(which, "field-size") == 0) {
    int g = NGA_Create(C_DBL, 1, dims, "D", NULL), lo[1] = {0}, hi[1] = {3};
    double buf[4];
    NGA_Get_field(g, lo, hi, 4, 8, buf, NULL);
  } else if (strcmp(which, "registered-array") == 0) {
    const int t = NGA_Register_type(24);
    NGA_Create(t, 1, dims, "R", NULL);
  }
  printf("case '%s' did not fail\n", which);
  GA_Terminate();
  MPI_Finalize();
  return 2;
}
