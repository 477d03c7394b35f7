/* GA C API, where an array's data lives: restricted arrays (GA_Set_restricted, _range), irregular
 * tiles on a process grid (GA_Set_tiled_irreg_proc_grid), GA_Set_memory_dev("host"), GA_Overlay,
 * GA_Getmem + GA_Assemble_duplicate, and mirrored arrays (GA_Pgroup_get_mirror,
 * GA_Merge_mirrored, NGA_Merge_distr_patch). A GA-style program: plain C, ga.h only. */
#include <mpi.h>
#include <stdlib.h>

#include "check.h"
#include "ga.h"
#include "macdecls.h"

enum { N = 12 };
static int me, nproc;

/* Every element of the N x N array g is 100*i + j (written by rank 0, read back by every rank). */
static void fill_and_check(int g, const char* what) {
  int lo[2] = {0, 0}, hi[2] = {N - 1, N - 1}, ld[1] = {N};
  double a[N * N], b[N * N];
  for (int i = 0; i < N * N; ++i)
    a[i] = 100.0 * (i / N) + i % N, b[i] = -1;
  if (me == 0) NGA_Put(g, lo, hi, a, ld);
  GA_Sync();
  NGA_Get(g, lo, hi, b, ld);
  for (int i = 0; i < N * N; ++i)
    CHECK(a[i] == b[i], "%s: element %d is %g, expected %g", what, i, b[i], a[i]);
  GA_Sync();
}

static int owns_data(int g, int rank) {
  int lo[2], hi[2];
  NGA_Distribution(g, rank, lo, hi);
  return lo[0] <= hi[0] && lo[1] <= hi[1];
}

static void restricted(void) {
  /* Data on the first half of the ranks (at least one), listed in reverse order. */
  const int k = nproc > 1 ? nproc / 2 : 1;
  int list[64], dims[2] = {N, N};
  for (int i = 0; i < k; ++i)
    list[i] = k - 1 - i;
  int g = GA_Create_handle();
  GA_Set_data(g, 2, dims, C_DBL);
  GA_Set_restricted(g, list, k);
  CHECK(GA_Allocate(g), "GA_Allocate of a restricted array");
  for (int r = 0; r < nproc; ++r)
    CHECK(owns_data(g, r) == (r < k), "restricted: rank %d owns data: %d", r, owns_data(g, r));
  /* Block 0 (element 0,0) is on list[0]. */
  int sub[2] = {0, 0};
  CHECK(NGA_Locate(g, sub) == list[0], "restricted: (0,0) on rank %d, expected %d",
        NGA_Locate(g, sub), list[0]);
  int idx[2];
  NGA_Get_proc_index(g, list[0], idx);
  CHECK(idx[0] == 0 && idx[1] == 0, "restricted: rank %d has block (%d,%d)", list[0], idx[0],
        idx[1]);
  if (nproc > k) {
    NGA_Get_proc_index(g, nproc - 1, idx);
    CHECK(idx[0] == -1, "restricted: rank %d without data has block index %d", nproc - 1, idx[0]);
  }
  fill_and_check(g, "restricted");
  GA_Destroy(g);

  /* The last rank alone, by range; the setting survives a later GA_Set_chunk. */
  g = GA_Create_handle();
  GA_Set_data(g, 2, dims, C_DBL);
  NGA_Set_restricted_range(g, nproc - 1, nproc - 1);
  int chunk[2] = {-1, -1};
  GA_Set_chunk(g, chunk);
  CHECK(GA_Allocate(g), "GA_Allocate of a range-restricted array");
  for (int r = 0; r < nproc; ++r)
    CHECK(owns_data(g, r) == (r == nproc - 1), "range: rank %d owns data", r);
  fill_and_check(g, "range-restricted");
  GA_Destroy(g);
}

static void tiled_irregular(void) {
  /* Tiles of rows {0..2, 3..9, 10..11} x columns {0..4, 5..11} dealt over a 1 x nproc grid (at
   * most 2 columns of ranks). */
  int dims[2] = {N, N}, nblocks[2] = {3, 2}, mapc[5] = {0, 3, 10, 0, 5};
  int grid[2] = {1, nproc > 1 ? 2 : 1};
  int g = GA_Create_handle();
  GA_Set_data(g, 2, dims, C_DBL);
  GA_Set_tiled_irreg_proc_grid(g, mapc, nblocks, grid);
  GA_Set_memory_dev(g, "host");
  CHECK(GA_Allocate(g), "GA_Allocate of irregular tiles");
  int sub[2] = {4, 7};
  CHECK(NGA_Locate(g, sub) == (grid[1] == 2 ? 1 : 0), "tile of (4,7) on rank %d",
        NGA_Locate(g, sub));
  fill_and_check(g, "irregular tiles");
  GA_Destroy(g);
}

static void overlay_and_assemble(void) {
  int dims[2] = {N, N};
  int parent = NGA_Create(C_DBL, 2, dims, "parent", NULL);
  int small[2] = {N / 2, N};
  int g = GA_Create_handle();
  GA_Set_data(g, 2, small, C_DBL);
  GA_Set_array_name(g, "overlay");
  /* An overlay takes no new memory: it fits even when the budget is used up. */
  long used = (long)GA_Inquire_memory();
  GA_Lgop(&used, 1, "max");
  GA_Set_memory_limit((size_t)used + 1);
  CHECK(GA_Overlay(g, parent) == 1, "GA_Overlay");
  GA_Set_memory_limit(0);
  GA_Fill(g, &(double){2.5});
  double v = 0;
  int sub[2] = {N / 2 - 1, N - 1};
  NGA_Get(g, sub, sub, &v, NULL);
  CHECK(v == 2.5, "overlay element is %g", v);
  GA_Destroy(g);

  /* GA_Getmem memory of this rank's part, filled, then assembled into an array. */
  int lo[2], hi[2];
  NGA_Distribution(parent, me, lo, hi);
  int n = lo[0] <= hi[0] ? (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) : 0;
  double* mem = GA_Getmem(MT_F_DBL, n, 0);
  for (int i = 0; i < n; ++i)
    mem[i] = 1000.0 * me + i;
  int b = GA_Assemble_duplicate(parent, "assembled", mem);
  CHECK(b != 0, "GA_Assemble_duplicate");
  CHECK(GA_Compare_distr(parent, b) == 0, "assembled array has another distribution");
  if (n > 0) {
    double x = -1;
    NGA_Get(b, hi, hi, &x, NULL);
    CHECK(x == 1000.0 * me + n - 1, "assembled element is %g, expected %g", x, 1000.0 * me + n - 1);
  }
  GA_Sync();
  GA_Destroy(b);
  GA_Destroy(parent);
}

static void mirrored(void) {
  int dims[1] = {N}, lo[1] = {0}, hi[1] = {N - 1};
  const int mirror = GA_Pgroup_get_mirror();
  int m = NGA_Create_config(C_DBL, 1, dims, "mirrored", NULL, mirror);
  int d = NGA_Create(C_DBL, 1, dims, "distributed", NULL);
  GA_Zero(m);
  GA_Zero(d);
  double ones[N], one = 1, got[N];
  for (int i = 0; i < N; ++i)
    ones[i] = 1;
  NGA_Acc(m, lo, hi, ones, NULL, &one);
  GA_Merge_mirrored(m);
  NGA_Merge_distr_patch(m, lo, hi, d, lo, hi);
  NGA_Get(d, lo, hi, got, NULL);
  for (int i = 0; i < N; ++i)
    CHECK(got[i] == nproc, "merged element %d is %g, expected %d", i, got[i], nproc);
  GA_Sync();
  GA_Destroy(d);
  GA_Destroy(m);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  me = GA_Nodeid();
  nproc = GA_Nnodes();
  restricted();
  tiled_irregular();
  overlay_and_assemble();
  mirrored();
  if (me == 0) printf("rest_placement: all checks passed on %d ranks\n", nproc);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
