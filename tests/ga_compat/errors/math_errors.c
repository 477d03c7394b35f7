/* Error paths of the GA math calls: each case must end the whole job with a message naming the
 * call, the arrays and the bad values (tests/ga_compat/CMakeLists.txt matches the output).
 * Reaching the end of a case is itself a failure. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "ga.h"
#include "macdecls.h"

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "";
  MPI_Init(&argc, &argv);
  GA_Initialize();
  const int me = GA_Nodeid();
  int dims[2] = {6, 4}, vdims[1] = {10};
  int a = NGA_Create(C_DBL, 2, dims, "A", NULL), b = NGA_Create(C_DBL, 2, dims, "B", NULL);
  int ia = NGA_Create(C_INT, 1, vdims, "IA", NULL), ib = NGA_Create(C_INT, 1, vdims, "IB", NULL);
  int one = 1;
  GA_Fill(ia, &one);
  GA_Fill(ib, &one);
  if (strcmp(which, "patch-shapes") == 0) {
    int alo[2] = {0, 0}, ahi[2] = {2, 3}, blo[2] = {0, 0}, bhi[2] = {2, 2};
    NGA_Copy_patch('N', a, alo, ahi, b, blo, bhi);
  } else if (strcmp(which, "int-zero-divisor") == 0) {
    if (me == 0) { /* one zero, on one rank's part: every rank must fail alike */
      int lo[1] = {7}, hi[1] = {7}, zero = 0;
      NGA_Put(ib, lo, hi, &zero, NULL);
    }
    GA_Sync();
    GA_Elem_divide(ia, ib, ia);
  } else if (strcmp(which, "dot-type") == 0) {
    GA_Ddot(ia, ib);
  } else if (strcmp(which, "idot-overflow") == 0) {
    int big = 20000; /* 10 x 20000^2 = 4e9 > 2^31 - 1: GA_Idot's int cannot hold it */
    GA_Fill(ia, &big);
    GA_Fill(ib, &big);
    printf("math_errors: GA_Idot gave %d\n", GA_Idot(ia, ib));
  } else if (strcmp(which, "gemm-size") == 0) {
    GA_Dgemm('N', 'N', 6, 4, 5, 1.0, a, b, 0.0, b);   /* k = 5 > 4 columns of A */
  } else if (strcmp(which, "scan-mask-shape") == 0) { /* a 2-D mask */
    GA_Scan_add(ia, ib, a, 0, 9, 0);
  } else {
    if (me == 0) fprintf(stderr, "unknown case '%s'\n", which);
  }
  if (me == 0) printf("math_errors: case '%s' did not end the job\n", which);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
