/* A 1-D GA array of doubles for the reference benchmarks (needs ga.h first). */
#ifndef GAEA_BENCH_REF_ARRAY_H
#define GAEA_BENCH_REF_ARRAY_H

/* Creates an array of `block` doubles per rank (one block each) and fills every element with its
 * global index, each rank writing its own block in place. */
static int ref_create_indexed(const char* name, int nproc, int me, int block) {
  int dims[1], chunk[1], lo[1], hi[1];
  dims[0] = nproc * block;
  chunk[0] = block;
  const int g_a = NGA_Create(C_DBL, 1, dims, (char*)name, chunk);
  if (!g_a) GA_Error("NGA_Create failed", 0);
  NGA_Distribution(g_a, me, lo, hi);
  if (hi[0] >= lo[0]) {
    double* p;
    int myld[1];
    NGA_Access(g_a, lo, hi, &p, myld);
    for (int i = 0; i <= hi[0] - lo[0]; i++)
      p[i] = (double)(lo[0] + i);
    NGA_Release_update(g_a, lo, hi);
  }
  return g_a;
}

#endif
