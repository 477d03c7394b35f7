/* GA C API, core calls: start-up, creation paths, one-sided put/get/acc (plain, strided,
 * periodic, 64-bit), local access, distribution queries, ghosts, fences, MA — checked against
 * values every rank can compute. A GA-style program: plain C, ga.h and macdecls.h only. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ga.h"
#include "macdecls.h"

static int me, nproc;

/* The value every test array holds at (i, j): distinct and exact in float. */
static double value_at(int i, int j) {
  return 1000.0 * i + j;
}

static void test_put_get_acc_2d(int type) {
  int dims[2] = {37, 23}, chunk[2] = {-1, -1};
  int g = NGA_Create(type, 2, dims, "pga", chunk);
  CHECK(g != 0, "NGA_Create type %d", type);
  GA_Zero(g);
  /* Rank 0 writes everything through one put with ld wider than the patch. */
  if (me == 0) {
    int lo[2] = {0, 0}, hi[2] = {36, 22}, ld[1] = {30};
    double* d = malloc(sizeof(double) * 37 * 30);
    float* f = malloc(sizeof(float) * 37 * 30);
    int* n = malloc(sizeof(int) * 37 * 30);
    for (int i = 0; i < 37; ++i)
      for (int j = 0; j < 23; ++j) {
        d[i * 30 + j] = value_at(i, j);
        f[i * 30 + j] = (float)value_at(i, j);
        n[i * 30 + j] = (int)value_at(i, j);
      }
    void* buf = type == C_DBL ? (void*)d : type == C_FLOAT ? (void*)f : (void*)n;
    NGA_Put(g, lo, hi, buf, ld);
    free(d);
    free(f);
    free(n);
  }
  GA_Sync();
  /* Every rank reads a patch that spans several owners. */
  {
    int lo[2] = {3, 2}, hi[2] = {30, 20}, ld[1] = {19};
    double d[28 * 19];
    float f[28 * 19];
    int n[28 * 19];
    void* buf = type == C_DBL ? (void*)d : type == C_FLOAT ? (void*)f : (void*)n;
    NGA_Get(g, lo, hi, buf, ld);
    for (int i = 3; i <= 30; ++i)
      for (int j = 2; j <= 20; ++j) {
        const int k = (i - 3) * 19 + (j - 2);
        const double got = type == C_DBL ? d[k] : type == C_FLOAT ? f[k] : n[k];
        CHECK(got == value_at(i, j), "get (%d,%d) type %d: %g, expected %g", i, j, type, got,
              value_at(i, j));
      }
  }
  GA_Sync();
  /* Every rank accumulates alpha * 1 into a block crossing owners. */
  {
    int lo[2] = {5, 0}, hi[2] = {9, 22}, ld[1] = {23};
    double d[5 * 23], da = 2.0;
    float f[5 * 23], fa = 2.0f;
    int n[5 * 23], na = 2;
    for (int k = 0; k < 5 * 23; ++k)
      d[k] = 1.0, f[k] = 1.0f, n[k] = 1;
    void* buf = type == C_DBL ? (void*)d : type == C_FLOAT ? (void*)f : (void*)n;
    void* alpha = type == C_DBL ? (void*)&da : type == C_FLOAT ? (void*)&fa : (void*)&na;
    NGA_Acc(g, lo, hi, buf, ld, alpha);
  }
  GA_Sync();
  {
    int lo[2] = {4, 0}, hi[2] = {10, 22}, ld[1] = {23};
    double d[7 * 23];
    float f[7 * 23];
    int n[7 * 23];
    void* buf = type == C_DBL ? (void*)d : type == C_FLOAT ? (void*)f : (void*)n;
    NGA_Get(g, lo, hi, buf, ld);
    for (int i = 4; i <= 10; ++i)
      for (int j = 0; j <= 22; ++j) {
        const int k = (i - 4) * 23 + j;
        const double got = type == C_DBL ? d[k] : type == C_FLOAT ? f[k] : n[k];
        const double want = value_at(i, j) + (i >= 5 && i <= 9 ? 2.0 * nproc : 0.0);
        CHECK(got == want, "acc (%d,%d) type %d: %g, expected %g", i, j, type, got, want);
      }
  }
  GA_Destroy(g);
}

static void test_long_and_complex(void) {
  int dims[1] = {101};
  int gl = NGA_Create(C_LONG, 1, dims, "longs", NULL);
  int gz = NGA_Create(C_DCPL, 1, dims, "zs", NULL);
  int type, ndim, d[1];
  NGA_Inquire(gl, &type, &ndim, d);
  CHECK(type == C_LONG && ndim == 1 && d[0] == 101, "NGA_Inquire of a C_LONG array");
  GA_Zero(gl);
  GA_Zero(gz);
  long one[101];
  DoubleComplex z[101];
  for (int i = 0; i < 101; ++i) {
    one[i] = 1L << 40; /* needs 64 bits */
    z[i].real = i;
    z[i].imag = -i;
  }
  int lo[1] = {0}, hi[1] = {100};
  long la = 1;
  DoubleComplex za = {0.0, 1.0}; /* times i */
  NGA_Acc(gl, lo, hi, one, NULL, &la);
  NGA_Acc(gz, lo, hi, z, NULL, &za);
  GA_Sync();
  long got[101];
  DoubleComplex zgot[101];
  NGA_Get(gl, lo, hi, got, NULL);
  NGA_Get(gz, lo, hi, zgot, NULL);
  for (int i = 0; i < 101; ++i) {
    CHECK(got[i] == (long)nproc << 40, "long acc [%d] = %ld", i, got[i]);
    /* i * (i - i*I) = i*I + i  → real i*nproc, imag i*nproc */
    CHECK(zgot[i].real == (double)i * nproc && zgot[i].imag == (double)i * nproc,
          "complex acc [%d] = (%g, %g)", i, zgot[i].real, zgot[i].imag);
  }
  GA_Destroy(gz);
  GA_Destroy(gl);
}

static void test_irregular_and_distribution(void) {
  /* 2 x nproc-ish blocks: rows cut at 0 and 7, columns at 0, 3, (5) … */
  int dims[2] = {12, 10};
  int nblock[2] = {nproc >= 2 ? 2 : 1, nproc >= 4 ? 2 : 1};
  int map[4], k = 0;
  map[k++] = 0;
  if (nblock[0] == 2) map[k++] = 7;
  map[k++] = 0;
  if (nblock[1] == 2) map[k++] = 3;
  int g = NGA_Create_irreg(C_DBL, 2, dims, "irreg", nblock, map);
  CHECK(g != 0, "NGA_Create_irreg");
  int lo[2], hi[2];
  NGA_Distribution(g, me, lo, hi);
  if (me < nblock[0] * nblock[1]) {
    const int bi = me / nblock[1], bj = me % nblock[1];
    const int elo0 = bi == 0 ? 0 : 7, ehi0 = nblock[0] == 1 || bi == 1 ? 11 : 6;
    const int elo1 = bj == 0 ? 0 : 3, ehi1 = nblock[1] == 1 || bj == 1 ? 9 : 2;
    CHECK(lo[0] == elo0 && hi[0] == ehi0 && lo[1] == elo1 && hi[1] == ehi1,
          "irregular block of rank %d: [%d:%d, %d:%d]", me, lo[0], hi[0], lo[1], hi[1]);
  } else {
    CHECK(lo[0] == 0 && hi[0] == -1, "rank without a block gets lo=0 hi=-1");
  }
  /* Locate agrees with the distribution. */
  int sub[2] = {8, 4};
  const int owner = NGA_Locate(g, sub);
  int olo[2], ohi[2];
  NGA_Distribution(g, owner, olo, ohi);
  CHECK(olo[0] <= 8 && 8 <= ohi[0] && olo[1] <= 4 && 4 <= ohi[1], "NGA_Locate (8,4) -> %d", owner);
  int out[2] = {12, 0};
  CHECK(NGA_Locate(g, out) == -1, "NGA_Locate out of bounds is -1");
  int rlo[2] = {0, 0}, rhi[2] = {11, 9}, rmap[4 * 4 * 2], procs[16];
  const int n = NGA_Locate_region(g, rlo, rhi, rmap, procs);
  CHECK(n == nblock[0] * nblock[1], "NGA_Locate_region of the whole array: %d pieces", n);
  long covered = 0;
  for (int i = 0; i < n; ++i)
    covered += (long)(rmap[4 * i + 2] - rmap[4 * i] + 1) * (rmap[4 * i + 3] - rmap[4 * i + 1] + 1);
  CHECK(covered == 120, "pieces cover %ld elements", covered);
  CHECK(NGA_Locate_nnodes(g, rlo, rhi) == n, "NGA_Locate_nnodes");

  /* Zero-copy access to the local block: writes seen by a remote get. */
  if (lo[0] <= hi[0]) {
    double* p;
    int ld[1];
    NGA_Access(g, lo, hi, &p, ld);
    for (int i = lo[0]; i <= hi[0]; ++i)
      for (int j = lo[1]; j <= hi[1]; ++j)
        p[(i - lo[0]) * ld[0] + (j - lo[1])] = value_at(i, j);
    NGA_Release_update(g, lo, hi);
  }
  GA_Sync();
  double all[120];
  int alo[2] = {0, 0}, ahi[2] = {11, 9}, ald[1] = {10};
  NGA_Get(g, alo, ahi, all, ald);
  for (int i = 0; i < 12; ++i)
    for (int j = 0; j < 10; ++j)
      CHECK(all[i * 10 + j] == value_at(i, j), "access wrote (%d,%d): %g", i, j, all[i * 10 + j]);

  /* Duplicate: same distribution, own data. */
  int h = GA_Duplicate(g, "irreg copy");
  CHECK(h != 0 && h != g, "GA_Duplicate");
  CHECK(GA_Compare_distr(g, h) == 0, "duplicate has the same distribution");
  CHECK(strcmp(GA_Inquire_name(h), "irreg copy") == 0, "duplicate's name");
  int gb = NGA_Create(C_DBL, 2, dims, "block", NULL);
  if (nproc > 1 && nblock[0] * nblock[1] != nproc)
    CHECK(GA_Compare_distr(g, gb) != 0, "irregular and block distributions differ");
  GA_Destroy(gb);
  GA_Destroy(h);
  GA_Destroy(g);
}

static void test_handle_path_and_64bit(void) {
  int g = GA_Create_handle();
  int64_t dims[2] = {20, 16}, chunk[2] = {4, 0};
  GA_Set_data64(g, 2, dims, C_DBL);
  GA_Set_array_name(g, "handle path");
  GA_Set_chunk64(g, chunk);
  CHECK(GA_Valid_handle(g) == 0, "a handle is not a valid array before GA_Allocate");
  CHECK(GA_Allocate(g) == 1, "GA_Allocate");
  CHECK(GA_Valid_handle(g) == 1, "valid after GA_Allocate");
  CHECK(GA_Ndim(g) == 2, "GA_Ndim");
  GA_Zero(g);
  int64_t lo[2] = {me % 20, 0}, hi[2] = {me % 20, 15}, ld[1] = {16};
  double row[16];
  for (int j = 0; j < 16; ++j)
    row[j] = value_at((int)lo[0], j);
  if (me < 20) NGA_Put64(g, lo, hi, row, ld);
  GA_Sync();
  int64_t dd[2];
  int type, ndim;
  NGA_Inquire64(g, &type, &ndim, dd);
  CHECK(dd[0] == 20 && dd[1] == 16 && type == C_DBL, "NGA_Inquire64");
  /* Strided read: every other row, every third column of the rows rank 0.. wrote. */
  const int rows = nproc < 20 ? nproc : 20;
  int64_t slo[2] = {0, 0}, shi[2] = {rows - 1, 15}, skip[2] = {2, 3};
  const int nr = (rows - 1) / 2 + 1, nc = 15 / 3 + 1;
  int64_t sld[1] = {nc};
  double s[20 * 6];
  NGA_Strided_get64(g, slo, shi, skip, s, sld);
  for (int a = 0; a < nr; ++a)
    for (int b = 0; b < nc; ++b)
      CHECK(s[a * nc + b] == value_at(2 * a, 3 * b), "strided get (%d,%d): %g", 2 * a, 3 * b,
            s[a * nc + b]);
  GA_Destroy(g);
}

static void test_block_cyclic_access(void) {
  int g = GA_Create_handle();
  int dims[2] = {10, 9}, block[2] = {3, 2};
  GA_Set_data(g, 2, dims, C_INT);
  GA_Set_block_cyclic(g, block);
  CHECK(GA_Allocate(g), "block-cyclic allocate");
  CHECK(GA_Uses_proc_grid(g) == 1, "block-cyclic uses a process grid");
  const int nb = GA_Total_blocks(g);
  CHECK(nb == 4 * 5, "block-cyclic 10x9 in 3x2 tiles: %d blocks", nb);
  GA_Zero(g);
  /* Each rank marks the blocks it owns through NGA_Access_block. */
  for (int b = 0; b < nb; ++b) {
    const int bi = b / 5, bj = b % 5;
    int sub[2] = {bi * 3, bj * 2};
    if (NGA_Locate(g, sub) != me) continue;
    int* p;
    int ld[1];
    NGA_Access_block(g, b, &p, ld);
    for (int i = bi * 3; i < bi * 3 + 3 && i < 10; ++i)
      for (int j = bj * 2; j < bj * 2 + 2 && j < 9; ++j)
        p[(i - bi * 3) * ld[0] + (j - bj * 2)] = 100 * i + j;
    NGA_Release_update_block(g, b);
  }
  GA_Sync();
  int all[90], lo[2] = {0, 0}, hi[2] = {9, 8}, ld[1] = {9};
  NGA_Get(g, lo, hi, all, ld);
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 9; ++j)
      CHECK(all[i * 9 + j] == 100 * i + j, "block access (%d,%d)", i, j);
  GA_Destroy(g);
}

static void test_ghosts_and_periodic(void) {
  int dims[2] = {8, 6}, width[2] = {1, 1};
  int g = NGA_Create_ghosts(C_DBL, 2, dims, width, "ghosts", NULL);
  CHECK(GA_Has_ghosts(g) == 1, "GA_Has_ghosts");
  int lo[2], hi[2];
  NGA_Distribution(g, me, lo, hi);
  if (lo[0] <= hi[0]) {
    double* p;
    int ld[1];
    NGA_Access(g, lo, hi, &p, ld);
    for (int i = lo[0]; i <= hi[0]; ++i)
      for (int j = lo[1]; j <= hi[1]; ++j)
        p[(i - lo[0]) * ld[0] + (j - lo[1])] = value_at(i, j);
    NGA_Release_update(g, lo, hi);
  }
  GA_Sync();
  GA_Update_ghosts(g);
  if (lo[0] <= hi[0]) {
    double* p;
    int gd[2], ld[1];
    NGA_Access_ghosts(g, gd, &p, ld);
    CHECK(gd[0] == hi[0] - lo[0] + 3 && gd[1] == hi[1] - lo[1] + 3, "ghost dims");
    for (int a = 0; a < gd[0]; ++a)
      for (int b = 0; b < gd[1]; ++b) {
        const int i = (lo[0] - 1 + a + 8) % 8, j = (lo[1] - 1 + b + 6) % 6;
        CHECK(p[a * ld[0] + b] == value_at(i, j), "ghost (%d,%d) of rank %d: %g, expected %g", a, b,
              me, p[a * ld[0] + b], value_at(i, j));
      }
    double* e;
    int sub[2] = {0, 0}, eld[1];
    NGA_Access_ghost_element(g, &e, sub, eld);
    CHECK(e == p, "NGA_Access_ghost_element(0,0) is the ghost corner");
    NGA_Release_ghosts(g);
  }
  /* Periodic get across both wrap-arounds. */
  int plo[2] = {-2, 4}, phi[2] = {1, 8}, pld[1] = {5};
  double buf[4 * 5];
  NGA_Periodic_get(g, plo, phi, buf, pld);
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 5; ++b) {
      const int i = (plo[0] + a + 8) % 8, j = (plo[1] + b) % 6;
      CHECK(buf[a * 5 + b] == value_at(i, j), "periodic get (%d,%d): %g", a, b, buf[a * 5 + b]);
    }
  GA_Destroy(g);
}

static void test_more_queries(void) {
  /* GA_Deallocate keeps the handle and its settings; GA_Allocate makes the array again. */
  int dims[2] = {9, 8}, block[2] = {2, 3};
  int g = GA_Create_handle();
  GA_Set_data(g, 2, dims, C_DBL);
  GA_Set_block_cyclic(g, block);
  CHECK(GA_Allocate(g), "allocate");
  int nb[2], bd[2];
  GA_Get_block_info(g, nb, bd);
  CHECK(nb[0] == 5 && nb[1] == 3 && bd[0] == 2 && bd[1] == 3, "GA_Get_block_info %dx%d of %dx%d",
        nb[0], nb[1], bd[0], bd[1]);
  CHECK(GA_Is_mirrored(g) == 0, "not mirrored");
  double five = 5.0;
  GA_Fill(g, &five);
  /* Block (4, 2) by grid coordinates: rows 8..8, columns 6..7. */
  int sub[2] = {8, 6}, coord[2] = {4, 2};
  if (NGA_Locate(g, sub) == me) {
    double* p;
    int ld[1];
    NGA_Access_block_grid(g, coord, &p, ld);
    CHECK(p[0] == 5.0 && p[1] == 5.0, "block (4,2) through NGA_Access_block_grid");
    p[1] = -1.0;
    NGA_Release_update_block_grid(g, coord);
  }
  CHECK(GA_Deallocate(g) == 1, "GA_Deallocate");
  CHECK(GA_Valid_handle(g) == 0, "deallocated array is not valid");
  CHECK(GA_Allocate(g) == 1, "allocate again");
  GA_Get_block_info(g, nb, bd);
  CHECK(nb[0] == 5 && bd[1] == 3, "settings kept across GA_Deallocate");
  GA_Destroy(g);

  /* GA_Randomize: values within [0, 10]; the same on every launch of a rank count. */
  int d1[1] = {1000};
  int gr = NGA_Create(C_DBL, 1, d1, "random", NULL);
  double ten = 10.0;
  GA_Randomize(gr, &ten);
  int lo[1] = {0}, hi[1] = {999};
  double* v = malloc(sizeof(double) * 1000);
  NGA_Get(gr, lo, hi, v, NULL);
  double mean = 0;
  for (int i = 0; i < 1000; ++i) {
    CHECK(v[i] >= 0.0 && v[i] <= 10.0, "random value %g", v[i]);
    mean += v[i] / 1000;
  }
  CHECK(mean > 4.0 && mean < 6.0, "random mean %g", mean);
  free(v);
  GA_Destroy(gr);

  /* NGA_Update_ghost_dir refreshes (at least) the asked-for side. */
  int gd[1] = {12}, w[1] = {1};
  int gg = NGA_Create_ghosts(C_INT, 1, gd, w, "ghost dir", NULL);
  int glo[1], ghi[1];
  NGA_Distribution(gg, me, glo, ghi);
  if (glo[0] <= ghi[0]) {
    int* p;
    int ld[1];
    NGA_Access(gg, glo, ghi, &p, ld);
    for (int i = glo[0]; i <= ghi[0]; ++i)
      p[i - glo[0]] = 10 * i;
  }
  GA_Sync();
  CHECK(NGA_Update_ghost_dir(gg, 0, 1, 0) == 1, "NGA_Update_ghost_dir");
  if (glo[0] <= ghi[0]) {
    int* p;
    int gdims[1], ld[1];
    NGA_Access_ghosts(gg, gdims, &p, ld);
    CHECK(p[gdims[0] - 1] == 10 * ((ghi[0] + 1) % 12), "upper ghost after the update: %d",
          p[gdims[0] - 1]);
  }
  GA_Destroy(gg);

  double* mem = GA_Getmem(C_DBL, 100, 0);
  mem[99] = 1.0;
  GA_Freemem(mem);
}

static void test_memory_limit(void) {
  /* The budget was set by GA_Initialize_ltd: an array that does not fit is refused with 0 on
   * every rank, one that fits is created. */
  CHECK(GA_Memory_limited() == 1, "GA_Initialize_ltd sets a limit");
  int big[1] = {nproc * 1000000}; /* 8 MB per rank */
  CHECK(NGA_Create(C_DBL, 1, big, "too big", NULL) == 0, "over-budget creation returns 0");
  int small[1] = {nproc * 1000};
  int g = NGA_Create(C_DBL, 1, small, "fits", NULL);
  CHECK(g != 0, "in-budget creation");
  CHECK(GA_Inquire_memory() == 8000, "GA_Inquire_memory %zu", GA_Inquire_memory());
  GA_Destroy(g);
  CHECK(GA_Inquire_memory() == 0, "memory returned after GA_Destroy");
}

static void test_ma(void) {
  Integer h1, h2, hh;
  MA_AccessIndex i1;
  CHECK(MA_push_get(MT_C_DBL, 1000, "a", &h1, &i1), "MA_push_get");
  double* base = (double*)MA_get_mbase(MT_C_DBL);
  double* p1;
  MA_get_pointer(h1, &p1);
  CHECK(base + i1 == p1, "MA index and pointer agree");
  CHECK(MA_push_stack(MT_C_INT, 10, "b", &h2), "MA_push_stack");
  CHECK(MA_alloc_get(MT_F_DBL, 50, "heap", &hh, &i1), "MA_alloc_get");
  CHECK(MA_inquire_stack(MT_C_DBL) == 100000 - 1000 - 5, "MA_inquire_stack %ld",
        MA_inquire_stack(MT_C_DBL));
  CHECK(MA_sizeof(MT_C_DBL, 3, MT_C_INT) == 6, "MA_sizeof");
  MA_pop_stack(h2);
  MA_pop_stack(h1);
  MA_free_heap(hh);
  CHECK(MA_inquire_stack(MT_C_DBL) == 100000, "stack empty again");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize_ltd(4000000);
  me = GA_Nodeid();
  nproc = GA_Nnodes();
  CHECK(GA_Initialized(), "GA_Initialized");
  CHECK(MA_init(MT_C_DBL, 100000, 100000), "MA_init");
  test_put_get_acc_2d(C_DBL);
  test_put_get_acc_2d(C_FLOAT);
  test_put_get_acc_2d(C_INT);
  test_long_and_complex();
  test_irregular_and_distribution();
  test_handle_path_and_64bit();
  test_block_cyclic_access();
  test_ghosts_and_periodic();
  test_more_queries();
  test_memory_limit();
  test_ma();
  GA_Sync();
  if (me == 0) printf("ga_compat core: all checks passed on %d ranks\n", nproc);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
