/* NGA_Distribution on block-cyclic arrays, as GA's code answers it (GA's test.F calls
 * ga_distribution on such an array): the process id names a block, numbered in C order over the
 * block grid (last dimension fastest) and taken modulo the number of blocks, and the answer is
 * that block's bounds, whoever owns it. Block-cyclic, ScaLAPACK-style, tiled and irregularly
 * tiled layouts; the 64 form; regular arrays keep answering with the process's own block. */
#include <mpi.h>
#include <stdint.h>

#include "check.h"
#include "ga.h"
#include "macdecls.h"

enum { N0 = 10, N1 = 7 };

/* The squarest grid p0 x p1 = nproc (p0 <= p1). */
static void squarest(int nproc, int grid[2]) {
  int p0 = 1;
  for (int d = 1; d * d <= nproc; ++d)
    if (nproc % d == 0) p0 = d;
  grid[0] = p0;
  grid[1] = nproc / p0;
}

/* Block starts along both dimensions: starts[d][k] for k < nb[d], starts[d][nb[d]] = dims[d]. */
static void check_blocks(int g, const char* what, const int nb[2], int starts[2][N0 + 1]) {
  const int total = nb[0] * nb[1], dims[2] = {N0, N1};
  for (int d = 0; d < 2; ++d)
    starts[d][nb[d]] = dims[d];
  for (int p = 0; p < total + 3; ++p) {
    const int k = p % total, c[2] = {k / nb[1], k % nb[1]};
    int lo[2], hi[2];
    int64_t lo64[2], hi64[2];
    NGA_Distribution(g, p, lo, hi);
    NGA_Distribution64(g, p, lo64, hi64);
    for (int d = 0; d < 2; ++d) {
      const int elo = starts[d][c[d]], ehi = starts[d][c[d] + 1] - 1;
      CHECK(lo[d] == elo && hi[d] == ehi,
            "%s: NGA_Distribution(%d) dim %d gave [%d, %d], block %d is [%d, %d]", what, p, d,
            lo[d], hi[d], k, elo, ehi);
      CHECK(lo64[d] == elo && hi64[d] == ehi, "%s: NGA_Distribution64(%d) dim %d", what, p, d);
    }
  }
}

/* Regular blocks of extents b: starts at multiples of b. */
static void check_regular_blocks(int g, const char* what, const int b[2]) {
  int nb[2], starts[2][N0 + 1];
  const int dims[2] = {N0, N1};
  for (int d = 0; d < 2; ++d) {
    nb[d] = (dims[d] + b[d] - 1) / b[d];
    for (int k = 0; k < nb[d]; ++k)
      starts[d][k] = k * b[d];
  }
  int gnb[2], gbd[2];
  GA_Get_block_info(g, gnb, gbd);
  CHECK(gnb[0] == nb[0] && gnb[1] == nb[1], "%s: GA_Get_block_info gave %d x %d blocks", what,
        gnb[0], gnb[1]);
  check_blocks(g, what, nb, starts);
}

static int create(int dims[2], int type) {
  int g = GA_Create_handle();
  GA_Set_data(g, 2, dims, type);
  return g;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  const int me = GA_Nodeid(), nproc = GA_Nnodes();
  int dims[2] = {N0, N1}, grid[2];
  squarest(nproc, grid);

  int b1[2] = {3, 2};
  int g = create(dims, C_DBL);
  GA_Set_block_cyclic(g, b1);
  CHECK(GA_Allocate(g), "GA_Allocate block-cyclic");
  check_regular_blocks(g, "block-cyclic 3x2", b1);

  int b2[2] = {8, 4}; /* fewer blocks (4) than some runs' processes: ids wrap */
  int h = create(dims, C_INT);
  GA_Set_block_cyclic_proc_grid(h, b2, grid);
  CHECK(GA_Allocate(h), "GA_Allocate ScaLAPACK-style");
  check_regular_blocks(h, "ScaLAPACK-style 8x4", b2);

  int t = create(dims, C_DBL);
  GA_Set_tiled_proc_grid(t, b1, grid);
  CHECK(GA_Allocate(t), "GA_Allocate tiled");
  check_regular_blocks(t, "tiled 3x2", b1);

  /* Irregular tiles: rows cut at 0, 4, 5; columns at 0, 3. */
  int mapc[5] = {0, 4, 5, 0, 3}, nblocks[2] = {3, 2};
  int u = create(dims, C_DBL);
  GA_Set_tiled_irreg_proc_grid(u, mapc, nblocks, grid);
  CHECK(GA_Allocate(u), "GA_Allocate irregular tiles");
  int starts[2][N0 + 1] = {{0, 4, 5}, {0, 3}};
  check_blocks(u, "irregular tiles", nblocks, starts);

  /* The block a process id names lies where NGA_Locate says, and its owner can access it. */
  for (int p = 0; p < 6; ++p) {
    int lo[2], hi[2];
    NGA_Distribution(g, p, lo, hi);
    const int owner = NGA_Locate(g, lo);
    CHECK(owner == NGA_Locate(g, hi), "block %d [%d,%d]..[%d,%d] has one owner", p, lo[0], lo[1],
          hi[0], hi[1]);
    if (owner == me) {
      double* block = NULL;
      double* patch = NULL;
      int ld[1], pld[1];
      NGA_Access_block(g, p, &block, ld);
      NGA_Access(g, lo, hi, &patch, pld);
      CHECK(block == patch, "block %d: NGA_Access_block and NGA_Access disagree", p);
      NGA_Release_block(g, p);
      NGA_Release(g, lo, hi);
    }
  }

  /* A regular array answers with the process's own block, as before. */
  int r = NGA_Create(C_DBL, 2, dims, "regular", NULL);
  int lo[2], hi[2];
  NGA_Distribution(r, me, lo, hi);
  if (lo[0] <= hi[0]) {
    CHECK(NGA_Locate(r, lo) == me && NGA_Locate(r, hi) == me,
          "regular: NGA_Distribution(%d) is not that process's block", me);
  }

  GA_Destroy(r);
  GA_Destroy(u);
  GA_Destroy(t);
  GA_Destroy(h);
  GA_Destroy(g);
  if (me == 0) printf("fortran2_block_cyclic: all checks passed\n");
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
