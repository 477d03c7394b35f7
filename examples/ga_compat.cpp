// gaea::ga_compat: a classic Global Arrays program, unchanged C calls from ga.h and macdecls.h
// on top of Gaea. Two distributed vectors are filled by their owners through NGA_Access, their
// dot product comes from GA_Ddot, a GA counter (NGA_Read_inc) hands out chunks of work, and
// GA_Igop sums the chunks done; both results are checked against their closed forms.
//   mpirun -np 4 gaea-example-ga_compat
#include <mpi.h>

#include <cstdio>

#include "ga.h"
#include "macdecls.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  MA_init(MT_C_DBL, 100000, 100000);
  const int me = GA_Nodeid(), nproc = GA_Nnodes();

  int n = 1000, chunk = -1;
  const int g_x = NGA_Create(C_DBL, 1, &n, "x", &chunk);
  const int g_y = GA_Duplicate(g_x, "y");

  // Each rank fills the part it owns in place: x(i) = i, y(i) = 2.
  int lo = 0, hi = -1;
  NGA_Distribution(g_x, me, &lo, &hi);
  if (hi >= lo) {
    double *x = nullptr, *y = nullptr;
    int ld = 0;
    NGA_Access(g_x, &lo, &hi, &x, &ld);
    NGA_Access(g_y, &lo, &hi, &y, &ld);
    for (int i = lo; i <= hi; ++i) {
      x[i - lo] = i;
      y[i - lo] = 2.0;
    }
    NGA_Release_update(g_x, &lo, &hi);
    NGA_Release_update(g_y, &lo, &hi);
  }
  GA_Sync();
  const double dot = GA_Ddot(g_x, g_y);  // collective: 2 * sum of i = n (n - 1)
  const bool dot_ok = dot == static_cast<double>(n) * (n - 1);

  // A one-element integer array as a shared task counter, the GA idiom for load balancing.
  int one = 1;
  const int g_next = NGA_Create(C_LONG, 1, &one, "next", &chunk);
  GA_Zero(g_next);
  int zero = 0, done = 0;
  const int n_chunks = 37;
  for (long c = NGA_Read_inc(g_next, &zero, 1); c < n_chunks; c = NGA_Read_inc(g_next, &zero, 1))
    ++done;
  GA_Igop(&done, 1, "+");
  const bool chunks_ok = done == n_chunks;

  if (me == 0)
    std::printf("ga_compat: %d ranks, GA_Ddot = %.0f (expected %.0f), %d of %d chunks done: %s\n",
                nproc, dot, static_cast<double>(n) * (n - 1), done, n_chunks,
                dot_ok && chunks_ok ? "ok" : "FAILED");
  GA_Destroy(g_next);
  GA_Destroy(g_y);
  GA_Destroy(g_x);
  GA_Terminate();
  MPI_Finalize();
  return dot_ok && chunks_ok ? 0 : 1;
}
