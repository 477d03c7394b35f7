/* Global arrays on process groups: on GA_Pgroup_split's groups (GA_Set_pgroup and the handle
 * path), under a default group (GA_Pgroup_set_default: NGA_Create, GA_Nodeid, GA_Nnodes, GA_Sync,
 * GA_Gop and GA_Brdcst on the group), on GA_Pgroup_create's groups (NGA_Create_config,
 * NGA_Create_irreg_config) and on GA_Pgroup_self's. Each group works on its own array while the
 * other group works on another; process ids (NGA_Locate, NGA_Distribution) are the group's. */
#include <mpi.h>
#include <stdio.h>

#include "check.h"
#include "ga.h"
#include "macdecls.h"

static int me, nproc;

/* Value of element (i, j) of the array of group `color`. */
static double value(int color, int i, int j) {
  return 100.0 * color + 10.0 * i + j;
}

/* Fills a ROWS x cols C_DBL array of the caller's group: each member puts its rows (by member
 * id), then checks the whole array, the owners' ids, one accumulate per member and a dot. */
static void exercise(int g_a, int grp, int color, int rows, int cols) {
  const int gme = GA_Pgroup_nodeid(grp), gn = GA_Pgroup_nnodes(grp);
  CHECK(GA_Get_pgroup(g_a) == grp && NGA_Get_pgroup(g_a) == grp, "GA_Get_pgroup %d, expected %d",
        GA_Get_pgroup(g_a), grp);
  CHECK(GA_Get_pgroup_size(grp) == gn, "GA_Get_pgroup_size");
  /* Every block belongs to one of the group's ids; together they cover the array. */
  int covered = 0;
  for (int p = 0; p < gn; ++p) {
    int lo[2], hi[2];
    NGA_Distribution(g_a, p, lo, hi);
    if (hi[0] >= lo[0]) covered += (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1);
  }
  CHECK(covered == rows * cols, "NGA_Distribution over the group's ids covers %d of %d", covered,
        rows * cols);
  for (int i = 0; i < rows; ++i) {
    int sub[2] = {i, cols - 1};
    const int owner = NGA_Locate(g_a, sub);
    CHECK(owner >= 0 && owner < gn, "NGA_Locate(%d, %d) = %d, not an id of a %d-member group", i,
          cols - 1, owner, gn);
    int lo[2], hi[2];
    NGA_Distribution(g_a, owner, lo, hi);
    CHECK(lo[0] <= i && i <= hi[0] && lo[1] <= cols - 1 && cols - 1 <= hi[1],
          "row %d is in the block of id %d", i, owner);
  }
  {
    int lo[2] = {0, 0}, hi[2] = {rows - 1, cols - 1}, map[4 * 64], procs[64];
    const int n = NGA_Locate_region(g_a, lo, hi, map, procs);
    CHECK(n >= 1 && n <= gn, "NGA_Locate_region: %d pieces on a %d-member group", n, gn);
    for (int k = 0; k < n; ++k)
      CHECK(procs[k] >= 0 && procs[k] < gn, "NGA_Locate_region: process %d", procs[k]);
  }
  for (int i = gme; i < rows; i += gn) {
    double row[64];
    for (int j = 0; j < cols; ++j)
      row[j] = value(color, i, j);
    int lo[2] = {i, 0}, hi[2] = {i, cols - 1}, ld[1] = {cols};
    NGA_Put(g_a, lo, hi, row, ld);
  }
  GA_Pgroup_sync(grp);
  double all[16 * 64];
  int lo[2] = {0, 0}, hi[2] = {rows - 1, cols - 1}, ld[1] = {cols};
  NGA_Get(g_a, lo, hi, all, ld);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      CHECK(all[i * cols + j] == value(color, i, j), "group %d: (%d, %d) = %g, expected %g", color,
            i, j, all[i * cols + j], value(color, i, j));
  GA_Pgroup_sync(grp); /* every member has read the array before it changes */
  double one = 1.0, alpha = 0.5;
  int corner[2] = {rows - 1, cols - 1}, one_ld[1] = {1};
  NGA_Acc(g_a, corner, corner, &one, one_ld, &alpha);
  GA_Pgroup_sync(grp);
  double got;
  NGA_Get(g_a, corner, corner, &got, one_ld);
  const double want = value(color, rows - 1, cols - 1) + 0.5 * gn;
  CHECK(got == want, "group %d: accumulated corner %g, expected %g", color, got, want);
  /* Collective calls over the group only. */
  const int g_b = GA_Duplicate(g_a, "copy");
  CHECK(GA_Get_pgroup(g_b) == grp, "a duplicate lives on the same group");
  GA_Copy(g_a, g_b);
  double s = 2.0;
  GA_Scale(g_b, &s);
  double dot = 0;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      double x = value(color, i, j);
      if (i == rows - 1 && j == cols - 1) x = want;
      dot += 2 * x * x;
    }
  const double d = GA_Ddot(g_a, g_b);
  CHECK(d == dot, "group %d: GA_Ddot %g, expected %g", color, d, dot);
  GA_Destroy(g_b);
}

/* Two groups from GA_Pgroup_split, arrays through the handle path (GA_Set_pgroup). */
static void test_split(void) {
  const int world = GA_Pgroup_get_world();
  const int gs = GA_Pgroup_split(world, 2);
  const int per = (nproc + 1) / 2, color = me / per;
  CHECK(GA_Pgroup_nodeid(gs) == me - color * per, "GA_Pgroup_split: id %d", GA_Pgroup_nodeid(gs));
  CHECK(GA_Pgroup_nnodes(gs) == (color == 0 ? per : nproc - per), "GA_Pgroup_split: %d members",
        GA_Pgroup_nnodes(gs));
  CHECK(GA_Pgroup_absolute_id(gs, 0) == color * per, "GA_Pgroup_absolute_id");
  CHECK(NGA_Pgroup_split(world, 0) == world, "0 groups: the group itself");
  const int rows = 6 + color, cols = 5; /* each group its own shape */
  const int g_a = GA_Create_handle();
  int dims[2] = {rows, cols};
  GA_Set_data(g_a, 2, dims, C_DBL);
  GA_Set_array_name(g_a, color == 0 ? "split 0" : "split 1");
  GA_Set_pgroup(g_a, gs);
  CHECK(GA_Allocate(g_a), "GA_Allocate on the split group");
  exercise(g_a, gs, color, rows, cols);
  /* GA_Copy between a group's array and a world array: collective over the smaller group (GA's
   * rule), here group 0 while group 1 waits in GA_Sync. */
  int cdims[2] = {6, 5};
  const int g_c = NGA_Create(C_DBL, 2, cdims, "world copy", NULL);
  if (color == 0) GA_Copy(g_a, g_c);
  GA_Sync();
  double c[6 * 5];
  int clo[2] = {0, 0}, chi[2] = {5, 4}, cld[1] = {5};
  NGA_Get(g_c, clo, chi, c, cld);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 5; ++j)
      if (i != 5 || j != 4) /* the corner holds exercise()'s accumulates */
        CHECK(c[i * 5 + j] == value(0, i, j), "GA_Copy group -> world: (%d, %d) = %g", i, j,
              c[i * 5 + j]);
  GA_Sync();
  double minus = -1.0;
  GA_Fill(g_c, &minus);
  if (color == 0) {
    GA_Copy(g_c, g_a); /* world -> group: the group's members get their parts */
    double got[6 * 5];
    NGA_Get(g_a, clo, chi, got, cld);
    for (int k = 0; k < 30; ++k)
      CHECK(got[k] == -1.0, "GA_Copy world -> group: element %d = %g", k, got[k]);
  }
  GA_Destroy(g_c);
  GA_Destroy(g_a);
  /* The world still works after both groups used theirs. */
  int wdims[1] = {3 * nproc};
  const int g_w = NGA_Create(C_INT, 1, wdims, "world", NULL);
  CHECK(GA_Get_pgroup(g_w) == world, "a world array");
  int v = 7;
  GA_Fill(g_w, &v);
  const int isum = GA_Idot(g_w, g_w);
  CHECK(isum == 49 * 3 * nproc, "world GA_Idot %d", isum);
  GA_Destroy(g_w);
  CHECK(GA_Pgroup_destroy(gs), "GA_Pgroup_destroy of the split group");
}

/* Arrays created under a default group. */
static void test_default_group(void) {
  const int world = GA_Pgroup_get_world();
  const int gs = NGA_Pgroup_split(world, nproc >= 2 ? 2 : 1);
  const int gme = GA_Pgroup_nodeid(gs), gn = GA_Pgroup_nnodes(gs);
  const int color = GA_Pgroup_absolute_id(gs, 0) == 0 ? 0 : 1;
  GA_Pgroup_set_default(gs);
  CHECK(GA_Pgroup_get_default() == gs, "GA_Pgroup_get_default");
  CHECK(GA_Nodeid() == gme && GA_Nnodes() == gn, "under a default group GA_Nodeid %d GA_Nnodes %d",
        GA_Nodeid(), GA_Nnodes());
  CHECK(NGA_Nodeid() == gme && NGA_Nnodes() == gn, "NGA_Nodeid/NGA_Nnodes");
  int dims[2] = {7 - color, 4};
  const int g_a = NGA_Create(C_DBL, 2, dims, color == 0 ? "default 0" : "default 1", NULL);
  CHECK(g_a != 0, "NGA_Create under a default group");
  CHECK(GA_Get_pgroup(g_a) == gs, "created on the default group");
  exercise(g_a, gs, color, dims[0], dims[1]);
  GA_Sync(); /* the default group's */
  int count[1] = {1};
  GA_Igop(count, 1, "+");
  CHECK(count[0] == gn, "GA_Igop over the default group: %d", count[0]);
  long b[1] = {gme == gn - 1 ? 1000 + color : -1};
  GA_Brdcst(b, (int)sizeof b, gn - 1);
  CHECK(b[0] == 1000 + color, "GA_Brdcst over the default group: %ld", b[0]);
  /* GA_Pgroup_sync on the world still means every rank. */
  GA_Destroy(g_a);
  GA_Pgroup_set_default(world);
  GA_Pgroup_sync(world);
  CHECK(GA_Nodeid() == me && GA_Nnodes() == nproc, "back on the world group");
  CHECK(GA_Pgroup_destroy(gs), "GA_Pgroup_destroy");
}

/* GA_Pgroup_create's groups: the even ranks (NGA_Create_config) and the odd ones
 * (NGA_Create_irreg_config), each with its array at the same time. */
static void test_created(void) {
  int evens[8], odds[8], ne = 0, no = 0;
  for (int r = 0; r < nproc; ++r) {
    if (r % 2 == 0)
      evens[ne++] = r;
    else
      odds[no++] = r;
  }
  const int ge = GA_Pgroup_create(evens, ne);
  const int go = no > 0 ? GA_Pgroup_create(odds, no) : -1;
  const int color = me % 2, grp = color == 0 ? ge : go;
  int dims[2] = {8, 3 + color};
  int g_a;
  if (color == 0) {
    int chunk[2] = {-1, -1};
    g_a = NGA_Create_config(C_DBL, 2, dims, "evens", chunk, ge);
  } else {
    int nblock[2] = {no > 1 ? 2 : 1, 1}, map[3] = {0, 5, 0};
    if (no == 1) map[1] = 0;
    g_a = NGA_Create_irreg_config(C_DBL, 2, dims, "odds", nblock, map, go);
  }
  CHECK(g_a != 0, "creation on a GA_Pgroup_create group");
  exercise(g_a, grp, color, dims[0], dims[1]);
  GA_Destroy(g_a);
  GA_Sync();
  CHECK(GA_Pgroup_destroy(ge), "destroy evens");
  if (go != -1) CHECK(GA_Pgroup_destroy(go), "destroy odds");
}

/* GA_Pgroup_self: an array of one process. */
static void test_self(void) {
  const int gself = GA_Pgroup_self();
  CHECK(GA_Pgroup_nnodes(gself) == 1 && GA_Pgroup_nodeid(gself) == 0, "GA_Pgroup_self");
  CHECK(GA_Pgroup_absolute_id(gself, 0) == me, "GA_Pgroup_self holds the caller");
  const int g = GA_Create_handle();
  int dims[2] = {3, 2 + me};
  GA_Set_data(g, 2, dims, C_DBL);
  GA_Set_pgroup(g, gself);
  CHECK(GA_Allocate(g), "GA_Allocate on GA_Pgroup_self");
  exercise(g, gself, me, dims[0], dims[1]);
  GA_Destroy(g);
  CHECK(NGA_Pgroup_destroy(gself), "destroy self");
  const int again = NGA_Pgroup_self();
  CHECK(GA_Pgroup_nnodes(again) == 1, "NGA_Pgroup_self");
  GA_Pgroup_destroy(again);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  me = GA_Nodeid();
  nproc = GA_Nnodes();
  test_split();
  test_default_group();
  test_created();
  test_self();
  GA_Sync();
  if (me == 0) printf("groups_arrays: all checks passed on %d ranks\n", nproc);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
