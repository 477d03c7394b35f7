/* GA_Set_property / GA_Unset_property: "read_only" and "read_cache" are hints a GA program may
 * set between its writes and its reads; every read still returns what was written, and writes
 * after GA_Unset_property are seen. */
#include <mpi.h>

#include "check.h"
#include "macdecls.h"

enum { n = 40 };

static void fill_and_check(int g, double salt, const char* property) {
  int lo[1] = {0}, hi[1] = {n - 1}, ld[1] = {1};
  double buf[n];
  if (GA_Nodeid() == 0) {
    for (int i = 0; i < n; ++i)
      buf[i] = salt + i;
    NGA_Put(g, lo, hi, buf, ld);
  }
  GA_Sync();
  if (property) GA_Set_property(g, property);
  for (int pass = 0; pass < 2; ++pass) { /* a second read may be served from a cache */
    for (int i = 0; i < n; ++i)
      buf[i] = -1;
    NGA_Get(g, lo, hi, buf, ld);
    for (int i = 0; i < n; ++i)
      CHECK(buf[i] == salt + i, "%s pass %d: element %d is %g, not %g", property ? property : "-",
            pass, i, buf[i], salt + i);
  }
  GA_Sync();
  if (property) GA_Unset_property(g);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  int dims[1] = {n};
  int g = NGA_Create(C_DBL, 1, dims, "P", NULL);
  fill_and_check(g, 0, NULL);
  fill_and_check(g, 100, "read_only");
  fill_and_check(g, 200, "read_cache");
  fill_and_check(g, 300, NULL); /* writes after unsetting are read back */
  GA_Destroy(g);
  if (GA_Nodeid() == 0) printf("properties: ok\n");
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
