/* A GA application in miniature, the way chemistry codes use GA: a dynamically load-balanced
 * block matrix product C = A B, where tasks (i, j, k) are handed out by NGA_Read_inc on a shared
 * counter, inputs come in with NGA_Get and contributions go out with NGA_Acc; then checked
 * against GA_Dgemm (GA_Add of the difference, GA_Ddot for its norm), a GA_Dgop of per-rank task
 * counts, a GA_Brdcst of a parameter, and a lock-protected log of who did what. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "ga.h"
#include "macdecls.h"

#define N 90
#define B 15 /* block size: (N/B)^3 = 216 tasks */

static int me, nproc;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  me = GA_Nodeid();
  nproc = GA_Nnodes();
  MA_init(C_DBL, 3 * B * B + 16, 16);

  /* Rank 0 decides the block size; everyone receives it (GA_Brdcst). */
  int block = me == 0 ? B : -1;
  GA_Brdcst(&block, sizeof block, 0);
  CHECK(block == B, "GA_Brdcst: block %d", block);
  const int nb = N / block;

  int dims[2] = {N, N}, one[1] = {1};
  int g_a = NGA_Create(C_DBL, 2, dims, "A", NULL);
  int g_b = NGA_Create(C_DBL, 2, dims, "B", NULL);
  int g_c = NGA_Create(C_DBL, 2, dims, "C", NULL);
  int g_ref = GA_Duplicate(g_c, "C reference");
  int g_counter = NGA_Create(C_LONG, 1, one, "task counter", NULL);
  int g_log = NGA_Create(C_INT, 1, one, "lock log", NULL);
  GA_Zero(g_c);
  GA_Zero(g_counter);
  GA_Zero(g_log);
  CHECK(GA_Create_mutexes(1), "GA_Create_mutexes");

  /* A and B from their owners' local blocks (NGA_Access), values every rank can compute. */
  int lo[2], hi[2];
  NGA_Distribution(g_a, me, lo, hi);
  if (lo[0] <= hi[0]) {
    double *pa, *pb;
    int lda[1], ldb[1];
    NGA_Access(g_a, lo, hi, &pa, lda);
    NGA_Access(g_b, lo, hi, &pb, ldb);
    for (int i = lo[0]; i <= hi[0]; ++i)
      for (int j = lo[1]; j <= hi[1]; ++j) {
        pa[(i - lo[0]) * lda[0] + (j - lo[1])] = sin(0.1 * i + 0.03 * j);
        pb[(i - lo[0]) * ldb[0] + (j - lo[1])] = cos(0.07 * i - 0.02 * j);
      }
    NGA_Release_update(g_a, lo, hi);
    NGA_Release_update(g_b, lo, hi);
  }
  GA_Sync();

  /* Task loop: buffers from MA's stack. */
  Integer h_a, h_b, h_c;
  MA_AccessIndex i_a, i_b, i_c;
  MA_push_get(C_DBL, B * B, "a block", &h_a, &i_a);
  MA_push_get(C_DBL, B * B, "b block", &h_b, &i_b);
  MA_push_get(C_DBL, B * B, "c block", &h_c, &i_c);
  double *ab, *bb, *cb;
  MA_get_pointer(h_a, &ab);
  MA_get_pointer(h_b, &bb);
  MA_get_pointer(h_c, &cb);
  const long ntasks = (long)nb * nb * nb;
  int zero[1] = {0};
  double mine = 0;
  for (long t = NGA_Read_inc(g_counter, zero, 1); t < ntasks;
       t = NGA_Read_inc(g_counter, zero, 1)) {
    const int i = (int)(t / (nb * nb)), j = (int)(t / nb % nb), k = (int)(t % nb);
    int alo[2] = {i * block, k * block}, ahi[2] = {i * block + block - 1, k * block + block - 1};
    int blo[2] = {k * block, j * block}, bhi[2] = {k * block + block - 1, j * block + block - 1};
    int clo[2] = {i * block, j * block}, chi[2] = {i * block + block - 1, j * block + block - 1};
    int ld[1] = {block};
    NGA_Get(g_a, alo, ahi, ab, ld);
    NGA_Get(g_b, blo, bhi, bb, ld);
    for (int r = 0; r < block; ++r)
      for (int c = 0; c < block; ++c) {
        double s = 0;
        for (int l = 0; l < block; ++l)
          s += ab[r * block + l] * bb[l * block + c];
        cb[r * block + c] = s;
      }
    double alpha = 1.0;
    NGA_Acc(g_c, clo, chi, cb, ld, &alpha);
    mine += 1;
    /* Every 10th task also bumps a plain (non-atomic) get-add-put under a lock. */
    if (t % 10 == 0) {
      int v;
      GA_Lock(0);
      NGA_Get(g_log, zero, zero, &v, NULL);
      v += 1;
      NGA_Put(g_log, zero, zero, &v, NULL);
      GA_Unlock(0);
    }
  }
  MA_pop_stack(h_c);
  MA_pop_stack(h_b);
  MA_pop_stack(h_a);
  GA_Sync();

  /* Every task ran exactly once. */
  double done = mine;
  GA_Dgop(&done, 1, "+");
  CHECK(done == (double)ntasks, "GA_Dgop of task counts: %g of %ld", done, ntasks);
  int logged;
  NGA_Get(g_log, zero, zero, &logged, NULL);
  CHECK(logged == (int)((ntasks + 9) / 10), "lock-protected counter %d, expected %ld", logged,
        (ntasks + 9) / 10);

  /* Against GA_Dgemm: C - REF must vanish. */
  GA_Dgemm('n', 'n', N, N, N, 1.0, g_a, g_b, 0.0, g_ref);
  double p1 = 1.0, m1 = -1.0;
  GA_Add(&p1, g_c, &m1, g_ref, g_ref);
  const double err = sqrt(GA_Ddot(g_ref, g_ref));
  CHECK(err < 1e-10, "task-parallel product differs from GA_Dgemm by %g", err);

  CHECK(GA_Destroy_mutexes(), "GA_Destroy_mutexes");
  GA_Destroy(g_log);
  GA_Destroy(g_counter);
  GA_Destroy(g_ref);
  GA_Destroy(g_c);
  GA_Destroy(g_b);
  GA_Destroy(g_a);
  if (me == 0)
    printf("ga_compat app_tasks: %ld tasks, all checks passed on %d ranks\n", ntasks, nproc);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
