/* NGA_Matmul_patch on 2-D patches of 3-D arrays (GA's contract): a patch's matrix is its two
 * dimensions of extent > 1, in order; a vector along the last dimension is a row, along the first
 * a column, along an interior one a row unless only a column fits the product. Checked against
 * products every rank computes from the arrays' contents, with alpha and beta, and a 2-D result
 * of a product of 3-D patches. The same program passes on GA 5.8.2. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "ga.h"
#include "macdecls.h"

#define D0 4
#define D1 5
#define D2 6
#define NE (D0 * D1 * D2)

static int me;

static int make3(const char* name) {
  int dims[3] = {D0, D1, D2};
  return NGA_Create(C_DBL, 3, dims, (char*)name, NULL);
}

static void fill(int g, double* v, double seed) {
  for (int i = 0; i < NE; ++i)
    v[i] = sin(seed + 0.37 * i);
  int lo[3] = {0, 0, 0}, hi[3] = {D0 - 1, D1 - 1, D2 - 1}, ld[2] = {D1, D2};
  GA_Sync();
  if (me == 0) NGA_Put(g, lo, hi, v, ld);
  GA_Sync();
}

static void get3(int g, double* v) {
  int lo[3] = {0, 0, 0}, hi[3] = {D0 - 1, D1 - 1, D2 - 1}, ld[2] = {D1, D2};
  NGA_Get(g, lo, hi, v, ld);
  GA_Sync();
}

/* Element (r, c) of the matrix of patch lo of a D0 x D1 x D2 array, with plane dimensions pr, pc.
 */
static double at(const double* v, const int lo[3], int pr, int pc, int r, int c) {
  int e[3] = {lo[0], lo[1], lo[2]};
  e[pr] += r;
  e[pc] += c;
  return v[(e[0] * D1 + e[1]) * D2 + e[2]];
}

static double a[NE], b[NE], c0[NE], c[NE];

/* One product: C[pc] = alpha op(A[pa]) op(B[pb]) + beta C[pc], each patch with its plane. */
static void product(const char* what, char ta, char tb, int ga, int alo[3], int ahi[3], int apr,
                    int apc, int gb, int blo[3], int bhi[3], int bpr, int bpc, int gc, int clo[3],
                    int chi[3], int cpr, int cpc) {
  double alpha = 1.5, beta = -0.5;
  fill(gc, c0, 3.0);
  NGA_Matmul_patch(ta, tb, &alpha, &beta, ga, alo, ahi, gb, blo, bhi, gc, clo, chi);
  get3(gc, c);
  const int m = chi[cpr] - clo[cpr] + 1, n = chi[cpc] - clo[cpc] + 1;
  const int k = (ta == 'N' ? ahi[apc] - alo[apc] : ahi[apr] - alo[apr]) + 1;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int l = 0; l < k; ++l)
        s += (ta == 'N' ? at(a, alo, apr, apc, i, l) : at(a, alo, apr, apc, l, i)) *
             (tb == 'N' ? at(b, blo, bpr, bpc, l, j) : at(b, blo, bpr, bpc, j, l));
      const double want = alpha * s + beta * at(c0, clo, cpr, cpc, i, j);
      const double got = at(c, clo, cpr, cpc, i, j);
      CHECK(fabs(got - want) < 1e-12, "%s: C(%d, %d) is %g, expected %g", what, i, j, got, want);
    }
  /* Outside the patch C is unchanged. */
  int inside = 0;
  for (int i = 0; i < NE; ++i)
    if (c[i] != c0[i]) ++inside;
  CHECK(inside <= m * n, "%s: %d elements changed outside the %d x %d patch", what, inside, m, n);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  MA_init(C_DBL, 100000, 100000); /* GA's matrix product takes its buffers from MA */
  me = GA_Nodeid();
  int ga = make3("A"), gb = make3("B"), gc = make3("C");
  fill(ga, a, 1.0);
  fill(gb, b, 2.0);

  { /* A[1, 0:4, 0:3] (5 x 4) times B[0:3, 2, 0:5] (4 x 6) into C[3, 0:4, 0:5] */
    int alo[3] = {1, 0, 0}, ahi[3] = {1, 4, 3};
    int blo[3] = {0, 2, 0}, bhi[3] = {3, 2, 5};
    int clo[3] = {3, 0, 0}, chi[3] = {3, 4, 5};
    product("A[1,:,0:3] B[:,2,:]", 'N', 'N', ga, alo, ahi, 1, 2, gb, blo, bhi, 0, 2, gc, clo, chi,
            1, 2);
  }
  { /* A[0:3, 2, 1:5] (4 x 5) times B[1, 0:4, 0:2] (5 x 3) into C[0:3, 0:2, 4] */
    int alo[3] = {0, 2, 1}, ahi[3] = {3, 2, 5};
    int blo[3] = {1, 0, 0}, bhi[3] = {1, 4, 2};
    int clo[3] = {0, 0, 4}, chi[3] = {3, 2, 4};
    product("A[:,2,1:5] B[1,:,0:2]", 'N', 'N', ga, alo, ahi, 0, 2, gb, blo, bhi, 1, 2, gc, clo, chi,
            0, 1);
  }
  { /* A row vector A[3, 1, 0:4] (1 x 5) times B[2, 0:4, 0:5] (5 x 6) into a row vector
       C[1, 2, 0:5] */
    int alo[3] = {3, 1, 0}, ahi[3] = {3, 1, 4};
    int blo[3] = {2, 0, 0}, bhi[3] = {2, 4, 5};
    int clo[3] = {1, 2, 0}, chi[3] = {1, 2, 5};
    product("row vector A[3,1,:] B[2,:,:]", 'N', 'N', ga, alo, ahi, 1, 2, gb, blo, bhi, 1, 2, gc,
            clo, chi, 1, 2);
  }
  { /* An interior vector read as a column: A[0, 0:4, 2] (5 x 1) times B[1, 3, 0:3] (1 x 4)
       into C[3, 0:4, 0:3] (5 x 4) */
    int alo[3] = {0, 0, 2}, ahi[3] = {0, 4, 2};
    int blo[3] = {1, 3, 0}, bhi[3] = {1, 3, 3};
    int clo[3] = {3, 0, 0}, chi[3] = {3, 4, 3};
    product("column vector A[0,:,2] B[1,3,:]", 'N', 'N', ga, alo, ahi, 1, 2, gb, blo, bhi, 1, 2, gc,
            clo, chi, 1, 2);
  }
  { /* A column vector along the first dimension: A[0:3, 4, 0] (4 x 1) times B[2, 1, 0:5]
       (1 x 6) into C[0:3, 1, 0:5] */
    int alo[3] = {0, 4, 0}, ahi[3] = {3, 4, 0};
    int blo[3] = {2, 1, 0}, bhi[3] = {2, 1, 5};
    int clo[3] = {0, 1, 0}, chi[3] = {3, 1, 5};
    product("column vector A[:,4,0] B[2,1,:]", 'N', 'N', ga, alo, ahi, 0, 1, gb, blo, bhi, 1, 2, gc,
            clo, chi, 0, 2);
  }
  { /* A product of 3-D patches into a 2-D array: A[2, :, 0:3] (5 x 4) times B[:, 1, :] (4 x 6)
       into C2 (5 x 6) */
    int dims2[2] = {D1, D2};
    int g2 = NGA_Create(C_DBL, 2, dims2, "C2", NULL);
    GA_Zero(g2);
    int alo[3] = {2, 0, 0}, ahi[3] = {2, 4, 3};
    int blo[3] = {0, 1, 0}, bhi[3] = {3, 1, 5};
    int clo[2] = {0, 0}, chi[2] = {4, 5};
    double alpha = 1.0, beta = 0.0;
    NGA_Matmul_patch('N', 'N', &alpha, &beta, ga, alo, ahi, gb, blo, bhi, g2, clo, chi);
    double c2[D1 * D2];
    int lo2[2] = {0, 0}, hi2[2] = {D1 - 1, D2 - 1}, ld2[1] = {D2};
    NGA_Get(g2, lo2, hi2, c2, ld2);
    for (int i = 0; i < D1; ++i)
      for (int j = 0; j < D2; ++j) {
        double s = 0;
        for (int l = 0; l < D0; ++l)
          s += a[(2 * D1 + i) * D2 + l] * b[(l * D1 + 1) * D2 + j];
        CHECK(fabs(c2[i * D2 + j] - s) < 1e-12, "3-D product into 2-D C: (%d, %d)", i, j);
      }
    GA_Destroy(g2);
  }

  GA_Destroy(gc);
  GA_Destroy(gb);
  GA_Destroy(ga);
  if (me == 0) printf("ga_compat linalg_matmul: all checks passed on %d ranks\n", GA_Nnodes());
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
