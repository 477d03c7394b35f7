// The GA C API's dense linear algebra on ScaLAPACK, as GA does it: the matrices are
// redistributed (ga::copy, ga::transpose) into Gaea block-cyclic arrays whose local memory is
// ScaLAPACK's local matrix, solved in place by every rank, and redistributed back.
//
// Gaea's local matrices are row-major and ScaLAPACK's column-major, so a Gaea array holding M^T
// (tiles nb x nb on a process grid rows x cols) is, in every rank's memory, ScaLAPACK's M on the
// grid cols x rows. The BLACS grid is made with column-major numbering over the runtime's
// communicator, which puts each rank where Gaea put it.

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "detail/scalapack.hpp"
#include "detail/state.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/ga/algorithms.hpp"
#include "gaea/ga/diagonal.hpp"

extern "C" {
int Csys2blacs_handle(MPI_Comm comm);
void Cfree_blacs_system_handle(int handle);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
void Cblacs_barrier(int context, const char* scope);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb,
               const int* irsrc, const int* icsrc, const int* ictxt, const int* lld, int* info);
void pdsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* ia,
              const int* ja, const int* desca, double* w, double* z, const int* iz, const int* jz,
              const int* descz, double* work, const int* lwork, int* iwork, const int* liwork,
              int* info);
void pdpotrf_(const char* uplo, const int* n, double* a, const int* ia, const int* ja,
              const int* desca, int* info);
void pdpotrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* ia,
              const int* ja, const int* desca, double* b, const int* ib, const int* jb,
              const int* descb, int* info);
void pdpotri_(const char* uplo, const int* n, double* a, const int* ia, const int* ja,
              const int* desca, int* info);
void pdgetrf_(const int* m, const int* n, double* a, const int* ia, const int* ja, const int* desca,
              int* ipiv, int* info);
void pdgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* ia,
              const int* ja, const int* desca, const int* ipiv, double* b, const int* ib,
              const int* jb, const int* descb, int* info);
}

namespace gaea::ga_compat::detail::scalapack {
namespace {

namespace ga = gaea::ga;
constexpr int one = 1, zero = 0;

// ScaLAPACK takes 32-bit sizes.
int to_int(ga::index_t n, const char* what) {
  if (n > static_cast<ga::index_t>(std::numeric_limits<int>::max()))
    throw error(std::string(what) + " has " + std::to_string(n) +
                " rows or columns: ScaLAPACK takes at most 2^31 - 1");
  return static_cast<int>(n);
}

// An illegal argument is a bug here, not in the program.
void check_args(const char* routine, int info) {
  if (info < 0)
    throw error(std::string(routine) + ": argument " + std::to_string(-info) +
                " had an illegal value (internal error)");
}

// A BLACS grid over the runtime's ranks: Gaea's process grid is rows x cols (the squarest with
// rows <= cols), ScaLAPACK's is cols x rows.
class grid {
 public:
  explicit grid(gaea::runtime& rt) {
    const int p = rt.size();
    rows_ = static_cast<int>(std::sqrt(static_cast<double>(p)));
    while (p % rows_ != 0)
      --rows_;
    cols_ = p / rows_;
    system_ = Csys2blacs_handle(rt.comm().mpi_comm());
    context_ = system_;
    Cblacs_gridinit(&context_, "C", cols_, rows_);
    int nprow = 0, npcol = 0;
    Cblacs_gridinfo(context_, &nprow, &npcol, &myrow_, &mycol_);
    // Column-major numbering puts rank r at (r % cols, r / cols), where Gaea puts it.
    const int r = rt.rank();
    if (nprow != cols_ || npcol != rows_ || myrow_ != r % cols_ || mycol_ != r / cols_)
      throw error("BLACS placed rank " + std::to_string(r) + " at (" + std::to_string(myrow_) +
                  ", " + std::to_string(mycol_) + ") of " + std::to_string(nprow) + " x " +
                  std::to_string(npcol) + " (internal error)");
  }
  grid(const grid&) = delete;
  grid& operator=(const grid&) = delete;

  // Waits in MPI until every rank is done with ScaLAPACK. BLACS completes some sends lazily
  // (large ones need the sender in MPI): a rank that went on to wait in a Gaea barrier would
  // leave its partner blocked in MPI_Recv for ever (pdtrsm in pdpotrs/pdgetrs at n >= 64).
  void settle() const { Cblacs_barrier(context_, "A"); }
  ~grid() {
    Cblacs_gridexit(context_);
    Cfree_blacs_system_handle(system_);
  }

  // Square tiles: 64 keeps the BLAS 3 kernels efficient; a smaller matrix gets smaller tiles
  // (down to 8) so that every rank holds some of it.
  int block_for(int n) const { return std::clamp(n / (2 * std::max(rows_, cols_)), 8, 64); }

  int rows_ = 1, cols_ = 1;    // Gaea's process grid
  int myrow_ = 0, mycol_ = 0;  // this rank in ScaLAPACK's grid (cols_ x rows_)
  int system_ = 0, context_ = 0;
};

// ScaLAPACK's m x n matrix, held by a Gaea block-cyclic array of n x m (its transpose). A tile
// extent beyond the matrix is the whole extent in both.
class matrix {
 public:
  matrix(const grid& g, int m, int n, int nb, const char* name)
      : held_(
            name, {n, m},
            ga::layout_spec::block_cyclic({std::min(nb, n), std::min(nb, m)}, {g.rows_, g.cols_})) {
    const int lrows = numroc_(&m, &nb, &g.myrow_, &zero, &g.cols_);
    const int lcols = numroc_(&n, &nb, &g.mycol_, &zero, &g.rows_);
    const int lld = std::max(1, lrows);
    int info = 0;
    descinit_(desc_, &m, &n, &nb, &nb, &zero, &zero, &g.context_, &lld, &info);
    check_args("descinit", info);
    if (static_cast<ga::index_t>(held_.access().size()) != static_cast<ga::index_t>(lrows) * lcols)
      throw error(std::string(name) + ": Gaea holds " + std::to_string(held_.access().size()) +
                  " elements, ScaLAPACK expects " + std::to_string(lrows) + " x " +
                  std::to_string(lcols) + " (internal error)");
  }
  double* data() const { return held_.access().data(); }
  const int* desc() const { return desc_; }
  ga::global_array<double>& held() { return held_; }

 private:
  ga::global_array<double> held_;
  int desc_[9] = {};
};

// The current runtime (the layer's state checked that GA is initialized).
gaea::runtime& rt() {
  return gaea::runtime::current();
}

}  // namespace

void eigen(ga::global_array<double>& a, ga::global_array<double>& v, std::span<double> values) {
  const int n = to_int(a.dims()[0], "A");
  const grid g(rt());
  const int nb = g.block_for(n);
  matrix am(g, n, n, nb, "GA_Diag_std A (ScaLAPACK)");
  matrix zm(g, n, n, nb, "GA_Diag_std eigenvectors (ScaLAPACK)");
  ga::copy(a, am.held());  // symmetric: the transpose is A itself
  double work_size = 0;
  int iwork_size = 0, query = -1, info = 0;
  pdsyevd_("V", "L", &n, am.data(), &one, &one, am.desc(), values.data(), zm.data(), &one, &one,
           zm.desc(), &work_size, &query, &iwork_size, &query, &info);
  g.settle();
  check_args("pdsyevd", info);
  // The size query of some ScaLAPACK versions falls short for small tiles: a margin.
  int lwork = static_cast<int>(work_size) + 2 * n + 1024, liwork = iwork_size + 64;
  std::vector<double> work(static_cast<std::size_t>(lwork));
  std::vector<int> iwork(static_cast<std::size_t>(liwork));
  pdsyevd_("V", "L", &n, am.data(), &one, &one, am.desc(), values.data(), zm.data(), &one, &one,
           zm.desc(), work.data(), &lwork, iwork.data(), &liwork, &info);
  g.settle();
  check_args("pdsyevd", info);
  if (info > 0)
    throw error("the eigensolver (pdsyevd) did not converge (info " + std::to_string(info) + ")");
  // Ranks that hold none of the matrix get no eigenvalues: rank 0 (grid (0, 0)) always has them.
  gaea::coll::broadcast(gaea::coll::world(), values, 0);
  ga::transpose(zm.held(), v);  // Gaea holds Z^T
}

void lu_solve(bool transposed, ga::global_array<double>& a, ga::global_array<double>& b) {
  const int n = to_int(a.dims()[0], "A"), nrhs = to_int(b.dims()[1], "B");
  const grid g(rt());
  const int nb = g.block_for(n);
  matrix am(g, n, n, nb, "GA_Lu_solve A (ScaLAPACK)");
  matrix bm(g, n, nrhs, nb, "GA_Lu_solve B (ScaLAPACK)");
  ga::copy(a, am.held());  // ScaLAPACK sees A^T: the transposition flips below
  ga::transpose(b, bm.held());
  std::vector<int> ipiv(
      static_cast<std::size_t>(numroc_(&n, &nb, &g.myrow_, &zero, &g.cols_) + nb));
  int info = 0;
  pdgetrf_(&n, &n, am.data(), &one, &one, am.desc(), ipiv.data(), &info);
  g.settle();
  check_args("pdgetrf", info);
  if (info > 0)
    throw error("A is singular (U(" + std::to_string(info) + "," + std::to_string(info) +
                ") is zero)");
  pdgetrs_(transposed ? "N" : "T", &n, &nrhs, am.data(), &one, &one, am.desc(), ipiv.data(),
           bm.data(), &one, &one, bm.desc(), &info);
  g.settle();
  check_args("pdgetrs", info);
  ga::transpose(bm.held(), b);
}

int llt_solve(ga::global_array<double>& a, ga::global_array<double>& b) {
  const int n = to_int(a.dims()[0], "A"), nrhs = to_int(b.dims()[1], "B");
  const grid g(rt());
  const int nb = g.block_for(n);
  matrix am(g, n, n, nb, "GA_Llt_solve A (ScaLAPACK)");
  ga::copy(a, am.held());  // symmetric: the transpose is A itself
  int info = 0;
  pdpotrf_("L", &n, am.data(), &one, &one, am.desc(), &info);
  g.settle();
  check_args("pdpotrf", info);
  if (info > 0) return info;
  matrix bm(g, n, nrhs, nb, "GA_Llt_solve B (ScaLAPACK)");
  ga::transpose(b, bm.held());
  pdpotrs_("L", &n, &nrhs, am.data(), &one, &one, am.desc(), bm.data(), &one, &one, bm.desc(),
           &info);
  g.settle();
  check_args("pdpotrs", info);
  ga::transpose(bm.held(), b);
  return 0;
}

int spd_invert(ga::global_array<double>& a) {
  const int n = to_int(a.dims()[0], "A");
  const grid g(rt());
  const int nb = g.block_for(n);
  matrix am(g, n, n, nb, "GA_Spd_invert A (ScaLAPACK)");
  ga::copy(a, am.held());
  int info = 0;
  pdpotrf_("L", &n, am.data(), &one, &one, am.desc(), &info);
  g.settle();
  check_args("pdpotrf", info);
  if (info > 0) return info;
  pdpotri_("L", &n, am.data(), &one, &one, am.desc(), &info);
  g.settle();
  check_args("pdpotri", info);
  if (info > 0) return -info;
  // ScaLAPACK's lower triangle is Gaea's upper one. Keep it with half the diagonal: the
  // symmetrized (R + R^T) / 2, doubled, is the whole inverse.
  for (const auto& t : am.held().local_tiles())
    for (ga::index_t r = t.box.lo[0]; r <= t.box.hi[0]; ++r)
      for (ga::index_t c = t.box.lo[1]; c <= t.box.hi[1]; ++c) {
        double& x = t.at({r, c});
        if (r > c)
          x = 0.0;
        else if (r == c)
          x *= 0.5;
      }
  ga::symmetrize(am.held());
  ga::scale(am.held(), 2.0);
  ga::copy(am.held(), a);
  return 0;
}

}  // namespace gaea::ga_compat::detail::scalapack
