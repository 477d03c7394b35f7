/* Issue 38, fortran3: arrays of a type registered with NGA_Register_type (GA's types-test.F in
 * C): created, duplicated, zeroed, filled, put/get, scatter/gather, accessed and copied as
 * opaque elements of the registered size; the array answers with the registered code. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "ga.h"
#include "macdecls.h"

typedef struct {
  int32_t id;
  float weight;
  double value;
} item; /* 16 bytes */

static item make(int i, int j) {
  item t = {i * 1000 + j, (float)i + 0.5f, (double)j * 0.25};
  return t;
}
static int same(item a, item b) {
  return memcmp(&a, &b, sizeof a) == 0;
}

int main(int argc, char** argv) {
  GA_Initialize_args(&argc, &argv);
  const int me = GA_Nodeid(), n = 10;
  const int t16 = NGA_Register_type(sizeof(item)), t8 = NGA_Register_type(8);
  CHECK(t16 > 0 && t8 > 0 && t16 != t8, "registered types %d %d", t16, t8);

  int dims[2] = {n, n}, chunk[2] = {-1, -1};
  int g_a = NGA_Create(t16, 2, dims, "items", chunk);
  int type = 0, nd = 0, d[2];
  NGA_Inquire(g_a, &type, &nd, d);
  CHECK(type == t16 && nd == 2 && d[0] == n && d[1] == n, "inquire %d %d", type, nd);

  GA_Zero(g_a);
  item z = {0, 0.f, 0.0}, got;
  int lo[2] = {n - 1, n - 1}, hi[2] = {n - 1, n - 1}, ld[1] = {n};
  NGA_Get(g_a, lo, hi, &got, ld);
  CHECK(same(got, z), "zero");

  item all[10][10];
  if (me == 0) {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        all[i][j] = make(i, j);
    int l0[2] = {0, 0}, h0[2] = {n - 1, n - 1};
    NGA_Put(g_a, l0, h0, all, ld);
  }
  GA_Sync();
  memset(all, 0, sizeof all);
  int l1[2] = {2, 3}, h1[2] = {7, 8};
  NGA_Get(g_a, l1, h1, &all[0][0], ld);
  for (int i = 2; i <= 7; ++i)
    for (int j = 3; j <= 8; ++j)
      CHECK(same(all[i - 2][j - 3], make(i, j)), "get (%d,%d)", i, j);

  /* Direct access: the local block's elements are the registered size apart. */
  int alo[2], ahi[2], ald[1];
  NGA_Distribution(g_a, me, alo, ahi);
  if (alo[0] >= 0 && ahi[0] >= alo[0]) {
    item* p = NULL;
    NGA_Access(g_a, alo, ahi, &p, ald);
    CHECK(same(p[0], make(alo[0], alo[1])), "access first");
    CHECK(same(p[(ahi[0] - alo[0]) * ald[0] + (ahi[1] - alo[1])], make(ahi[0], ahi[1])),
          "access last");
    NGA_Release(g_a, alo, ahi);
  }
  GA_Sync();

  /* Gather and scatter of single elements. */
  int sub[4][2] = {{0, 0}, {9, 9}, {3, 7}, {5, 1}};
  int* subs[4] = {sub[0], sub[1], sub[2], sub[3]};
  item v[4];
  NGA_Gather(g_a, v, subs, 4);
  for (int k = 0; k < 4; ++k)
    CHECK(same(v[k], make(sub[k][0], sub[k][1])), "gather %d", k);
  GA_Sync();
  if (me == GA_Nnodes() - 1) {
    for (int k = 0; k < 4; ++k)
      v[k] = make(100 + k, 7);
    NGA_Scatter(g_a, v, subs, 4);
  }
  GA_Sync();
  NGA_Gather(g_a, v, subs, 4);
  for (int k = 0; k < 4; ++k)
    CHECK(same(v[k], make(100 + k, 7)), "scatter %d", k);

  /* Copy into a duplicate, fill. */
  int g_b = GA_Duplicate(g_a, "copy");
  CHECK(g_b != 0, "duplicate");
  GA_Copy(g_a, g_b);
  NGA_Get(g_b, lo, hi, &got, ld);
  CHECK(same(got, make(9, 9)) || same(got, make(101, 7)), "copy");
  item f = make(-1, -2);
  GA_Fill(g_b, &f);
  NGA_Get(g_b, l1, h1, &all[0][0], ld);
  CHECK(same(all[5][5], f), "fill");

  /* An 8-byte registered type in 1-D. */
  int n1 = 64;
  int g_c = NGA_Create(t8, 1, &n1, "pairs", NULL);
  int64_t w[64];
  for (int i = 0; i < 64; ++i)
    w[i] = (int64_t)i * 3 - 7;
  int c0 = 0, c1 = 63;
  if (me == 0) NGA_Put(g_c, &c0, &c1, w, NULL);
  GA_Sync();
  memset(w, 0, sizeof w);
  NGA_Get(g_c, &c0, &c1, w, NULL);
  for (int i = 0; i < 64; ++i)
    CHECK(w[i] == (int64_t)i * 3 - 7, "1-D %d", i);

  GA_Destroy(g_c);
  GA_Destroy(g_b);
  GA_Destroy(g_a);
  CHECK(NGA_Deregister_type(t8) == 0 && NGA_Deregister_type(t16) == 0, "deregister");
  if (me == 0) printf("fortran3_registered: OK\n");
  GA_Terminate();
  return 0;
}
