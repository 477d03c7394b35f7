/* GA C API: element fields (NGA_Get_field, NGA_Put_field, NGA_Nbget_field, NGA_Nbput_field),
 * registered types, non-blocking ghost transfers (NGA_NbGet_ghost_dir, NGA_Update_ghosts_nb),
 * the step helpers (GA_Step_max, GA_Step_bound_info and patch forms) against GA's arithmetic,
 * the MA additions and the armci_* helpers. A GA-style program: plain C, ga.h only. */
#include <math.h>
#include <mpi.h>

#include "armci.h"
#include "check.h"
#include "ga.h"
#include "macdecls.h"

enum { N = 10 };
static int me, nproc;

static void fields(void) {
  int dims[1] = {N}, lo[1] = {0}, hi[1] = {N - 1};
  int g = NGA_Create(C_DCPL, 1, dims, "z", NULL);
  DoubleComplex z[N];
  for (int i = 0; i < N; ++i)
    z[i].real = i, z[i].imag = -i;
  if (me == 0) NGA_Put(g, lo, hi, z, NULL);
  GA_Sync();
  double im[N];
  NGA_Get_field(g, lo, hi, 8, 8, im, NULL);
  for (int i = 0; i < N; ++i)
    CHECK(im[i] == -i, "imaginary field %d is %g", i, im[i]);
  GA_Sync();
  /* Rank 0 sets the real parts of [2, 5] to 7, without touching the imaginary parts. */
  if (me == 0) {
    double seven[4] = {7, 7, 7, 7};
    int l[1] = {2}, h[1] = {5};
    ga_nbhdl_t nb;
    NGA_Nbput_field(g, l, h, 0, 8, seven, NULL, &nb);
    NGA_NbWait(&nb);
  }
  GA_Sync();
  ga_nbhdl_t nb;
  double re[N];
  NGA_Nbget_field(g, lo, hi, 0, 8, re, NULL, &nb);
  NGA_NbWait(&nb);
  NGA_Get(g, lo, hi, z, NULL);
  for (int i = 0; i < N; ++i) {
    const double want = (i >= 2 && i <= 5) ? 7 : i;
    CHECK(re[i] == want && z[i].real == want && z[i].imag == -i,
          "element %d is (%g, %g), field %g; expected (%g, %d)", i, z[i].real, z[i].imag, re[i],
          want, -i);
  }
  GA_Sync();
  GA_Destroy(g);

  int t = NGA_Register_type(24);
  CHECK(t > 0, "NGA_Register_type gave %d", t);
  CHECK(NGA_Register_type(8) != t, "two registered types share a number");
  CHECK(NGA_Deregister_type(t) == 0, "NGA_Deregister_type");
  CHECK(NGA_Deregister_type(t) == -2, "deregistering twice");
  CHECK(NGA_Deregister_type(C_DBL) == -1, "deregistering a built-in type");
}

static void ghosts(void) {
  /* 1-D, width 1, periodic: after NbGet_ghost_dir(+1) the right ghost holds the next block's
   * first element; after Update_ghosts_nb both do. */
  int dims[1] = {4 * nproc}, width[1] = {1}, lo[1], hi[1];
  int g = NGA_Create_ghosts(C_INT, 1, dims, width, "ghosted", NULL);
  NGA_Distribution(g, me, lo, hi);
  {
    int* p;
    int ld[1];
    NGA_Access(g, lo, hi, &p, ld);
    for (int i = lo[0]; i <= hi[0]; ++i)
      p[i - lo[0]] = i;
    NGA_Release_update(g, lo, hi);
  }
  GA_Sync();
  const int n = 4 * nproc, right = (hi[0] + 1) % n, left = (lo[0] - 1 + n) % n;
  int gd[1] = {0}, *base, ld[1];
  NGA_Access_ghosts(g, gd, &base, ld);
  base[0] = base[gd[0] - 1] = -1;
  int mask[1] = {1};
  ga_nbhdl_t h;
  NGA_NbGet_ghost_dir(g, mask, &h);
  NGA_NbWait(&h);
  CHECK(base[gd[0] - 1] == right && base[0] == -1, "after NbGet_ghost_dir: ghosts %d, %d", base[0],
        base[gd[0] - 1]);
  GA_Sync();
  NGA_Update_ghosts_nb(g, &h);
  NGA_NbWait(&h);
  CHECK(base[0] == left && base[gd[0] - 1] == right, "after Update_ghosts_nb: %d, %d", base[0],
        base[gd[0] - 1]);
  GA_Sync();
  GA_Destroy(g);
}

static int create_fill(const char* name, double (*f)(int)) {
  int dims[1] = {N}, lo[1] = {0}, hi[1] = {N - 1};
  int g = NGA_Create(C_DBL, 1, dims, name, NULL);
  double v[N];
  for (int i = 0; i < N; ++i)
    v[i] = f(i);
  if (me == 0) NGA_Put(g, lo, hi, v, NULL);
  GA_Sync();
  return g;
}
static double fx(int i) {
  return 1 + i;
}
static double fv(int i) {
  return i == 7 ? 0 : (i % 3 == 0 ? -(i + 1) / (double)(i % 4 + 1) : 0.5 * (i + 1));
}
static double fl(int i) {
  return fx(i) - 2;
}
static double fu(int i) {
  return fx(i) + 3;
}

static void steps(void) {
  int x = create_fill("x", fx), v = create_fill("v", fv), l = create_fill("l", fl),
      u = create_fill("u", fu);
  /* GA_Step_max: the largest s with x + s v >= 0 = min over v < 0 of x / -v. */
  double want = 1e307;
  for (int i = 0; i < N; ++i)
    if (fv(i) < 0) want = fmin(want, fx(i) / -fv(i));
  double s = 0;
  GA_Step_max(x, v, &s);
  CHECK(s == want, "GA_Step_max gave %g, expected %g", s, want);
  GA_Step_max(x, x, &s);
  CHECK(s == 1e307, "GA_Step_max(x, x) gave %g (GA's infinity 1e307)", s);
  int plo[1] = {3}, phi[1] = {5};
  GA_Step_max_patch(x, plo, phi, v, plo, phi, &s);
  CHECK(s == fx(3) / -fv(3), "GA_Step_max_patch gave %g", s);

  /* GA_Step_bound_info: per element the step to the bound v points at (infinity where v = 0);
   * boundmin/boundmax the least and greatest, wolfemin the least. */
  double bmin = 1e307, bmax = -1e307;
  for (int i = 0; i < N; ++i) {
    const double t =
        fv(i) > 0 ? (fu(i) - fx(i)) / fv(i) : (fv(i) < 0 ? (fx(i) - fl(i)) / -fv(i) : 1e307);
    bmin = fmin(bmin, t), bmax = fmax(bmax, t);
  }
  double a = 0, w = 0, b = 0;
  GA_Step_bound_info(x, v, l, u, &a, &w, &b);
  CHECK(a == bmin && w == bmin && b == bmax, "GA_Step_bound_info gave %g %g %g, expected %g %g %g",
        a, w, b, bmin, bmin, bmax);
  GA_Destroy(u);
  GA_Destroy(l);
  GA_Destroy(v);
  GA_Destroy(x);
}

static void ma_and_armci(void) {
  CHECK(MA_init(MT_F_DBL, 1000, 1000), "MA_init");
  Integer h, it, next, align = -1;
  CHECK(MA_set_numalign(7) && MA_get_numalign(&align) && align == 7, "numalign %ld", (long)align);
  CHECK(MA_allocate_heap(MT_F_DBL, 100, "heap", &h), "MA_allocate_heap");
  const Integer before = MA_inquire_heap(MT_F_DBL);
  CHECK(MA_free_heap_piece(h, 40) && MA_inquire_heap(MT_F_DBL) == before + 40,
        "MA_free_heap_piece: %ld free, expected %ld", (long)MA_inquire_heap(MT_F_DBL),
        (long)before + 40);
  CHECK(MA_inquire_heap_no_partition(MT_F_DBL) == MA_inquire_avail(MT_F_DBL), "no_partition");
  CHECK(MA_init_memhandle_iterator(&it) && MA_get_next_memhandle(&it, &next) && next == h &&
            !MA_get_next_memhandle(&it, &next),
        "memhandle iterator");
  MA_trace(0);
  CHECK(MA_free_heap(h), "MA_free_heap");

  CHECK(armci_msg_me() == me && armci_msg_nproc() == nproc, "armci_msg_me/nproc");
  int x = me + 1;
  armci_msg_igop(&x, 1, "+");
  CHECK(x == nproc * (nproc + 1) / 2, "armci_msg_igop gave %d", x);
  double t0 = armci_timer();
  armci_msg_barrier();
  CHECK(armci_timer() >= t0, "armci_timer went back");
  void* ptrs[256];
  CHECK(ARMCI_Malloc(ptrs, 64) == 0 && ptrs[me] != NULL, "ARMCI_Malloc");
  ARMCI_Free(ptrs[me]);
  void* p = ARMCI_Malloc_local(32);
  CHECK(p != NULL, "ARMCI_Malloc_local");
  ARMCI_Free_local(p);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  me = GA_Nodeid();
  nproc = GA_Nnodes();
  fields();
  ghosts();
  steps();
  ma_and_armci();
  if (me == 0) printf("rest_data: all checks passed on %d ranks\n", nproc);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
