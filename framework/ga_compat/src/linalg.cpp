// Dense linear algebra on whole 2-D double arrays: eigensolvers (GA_Diag family), linear solves
// (GA_Lu_solve, GA_Llt_solve, GA_Solve) and the SPD inverse. As GA, on ScaLAPACK when the build
// found it (detail/scalapack.hpp); otherwise rank 0 gathers the matrices, solves with Eigen and
// writes the results back, which is not a parallel solver: the README says so.

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "detail/scalapack.hpp"
#include "detail/state.hpp"
#include "ga.h"
#include "gaea/coll/collectives.hpp"

using namespace gaea::ga_compat::detail;
namespace ga = gaea::ga;
using gaea::error;
using matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

namespace {

ga::global_array<double>& dbl(int g, const char* fn) {
  array_slot& s = current(fn).arrays.allocated(g, fn);
  if (s.type != C_DBL && s.type != F_DBL)
    throw error(std::string(fn) + ": array '" + s.name + "' is " + type_name(s.type) +
                "; only C_DBL arrays are supported");
  auto& a = std::get<ga::global_array<double>>(s.array);
  if (a.ndim() != 2)
    throw error(std::string(fn) + ": array '" + a.name() + "' has " + std::to_string(a.ndim()) +
                " dimensions (2 needed)");
  return a;
}

void require_square(const ga::global_array<double>& a, const char* fn) {
  if (a.dims()[0] != a.dims()[1])
    throw error(std::string(fn) + ": array '" + a.name() + "' is " + std::to_string(a.dims()[0]) +
                " x " + std::to_string(a.dims()[1]) + " (a square matrix is needed)");
}

// The right-hand sides B of a solve with A: as many rows as A.
void require_rows(const ga::global_array<double>& b, const ga::global_array<double>& a,
                  const char* fn) {
  if (b.dims()[0] != a.dims()[0])
    throw error(std::string(fn) + ": B has " + std::to_string(b.dims()[0]) + " rows, A has " +
                std::to_string(a.dims()[0]));
}

ga::patch whole(const ga::global_array<double>& a) {
  return {{0, 0}, {a.dims()[0] - 1, a.dims()[1] - 1}};
}

// Whether this build solves on ScaLAPACK (else Eigen on rank 0).
constexpr bool scalapack_used() {
#ifdef GAEA_GA_SCALAPACK
  return true;
#else
  return false;
#endif
}

// Rank 0 reads the whole array (after a sync, so every earlier update is in).
matrix read(ga::global_array<double>& a) {
  matrix m(a.dims()[0], a.dims()[1]);
  a.get(whole(a), std::span<double>(m.data(), static_cast<std::size_t>(m.size())));
  return m;
}

void write(ga::global_array<double>& a, const matrix& m) {
  a.put(whole(a), std::span<const double>(m.data(), static_cast<std::size_t>(m.size())));
}

// Runs `body` on rank 0 between syncs of `arrays`; its int result (and any error message)
// reaches every rank, so all return or fail alike.
template <class Body>
int on_root(const char* fn, std::initializer_list<ga::global_array<double>*> arrays, Body&& body) {
  for (auto* a : arrays)
    a->sync();
  const bool root = gaea::runtime::current().rank() == 0;
  int result = 0;
  std::string problem;
  if (root) {
    try {
      result = body();
    } catch (const std::exception& e) {
      problem = e.what();
    }
  }
  for (auto* a : arrays)
    a->sync();
  const auto& world = gaea::coll::world();
  problem = gaea::coll::broadcast(world, problem, 0);
  if (!problem.empty()) throw error(std::string(fn) + ": " + problem);
  gaea::coll::broadcast(world, std::span<int>(&result, 1), 0);
  return result;
}

// Eigenvalues (ascending) into `eval` on every rank, eigenvectors into the columns of v.
void eigen(const char* fn, int g_a, int g_s, int g_v, void* eval) {
  auto& a = dbl(g_a, fn);
  auto& v = dbl(g_v, fn);
  ga::global_array<double>* s = g_s ? &dbl(g_s, fn) : nullptr;
  require_square(a, fn);
  if (v.dims() != a.dims() || (s && s->dims() != a.dims()))
    throw error(std::string(fn) + ": the matrices must all be " + std::to_string(a.dims()[0]) +
                " x " + std::to_string(a.dims()[0]));
  if (eval == nullptr) throw error(std::string(fn) + ": null eval");
  const auto n = static_cast<std::size_t>(a.dims()[0]);
  std::vector<double> values(n);
  // The generalized problem stays on rank 0: ScaLAPACK's back-transformation (pdtrsm after
  // pdsygst and pdsyevd) hung now and then inside a Gaea job; not understood yet.
  if constexpr (scalapack_used()) {
    if (s == nullptr) {
      scalapack::eigen(a, v, values);
      std::copy(values.begin(), values.end(), static_cast<double*>(eval));
      return;
    }
  }
  std::initializer_list<ga::global_array<double>*> all = {&a, &v};
  on_root(fn, all, [&] {
    const matrix am = read(a);
    if (s == nullptr) {
      Eigen::SelfAdjointEigenSolver<matrix> es(am);
      if (es.info() != Eigen::Success) throw error("the eigensolver did not converge");
      write(v, es.eigenvectors());
      Eigen::Map<Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(n)) = es.eigenvalues();
    } else {
      Eigen::GeneralizedSelfAdjointEigenSolver<matrix> es(am, read(*s));
      if (es.info() != Eigen::Success)
        throw error("the generalized eigensolver failed (is the metric positive definite?)");
      write(v, es.eigenvectors());
      Eigen::Map<Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(n)) = es.eigenvalues();
    }
    return 0;
  });
  gaea::coll::broadcast(gaea::coll::world(), std::span<double>(values), 0);
  std::copy(values.begin(), values.end(), static_cast<double*>(eval));
}

// B := op(A)^-1 B with an LU factorisation (partial pivoting).
void lu_solve(const char* fn, char trans, int g_a, int g_b) {
  auto& a = dbl(g_a, fn);
  auto& b = dbl(g_b, fn);
  require_square(a, fn);
  require_rows(b, a, fn);
  const bool t = trans == 't' || trans == 'T';
  if (!t && trans != 'n' && trans != 'N')
    throw error(std::string(fn) + ": trans '" + std::string(1, trans) + "' (n or t)");
  if constexpr (scalapack_used()) {
    scalapack::lu_solve(t, a, b);
    return;
  }
  on_root(fn, {&a, &b}, [&] {
    matrix am = read(a);
    if (t) am.transposeInPlace();
    Eigen::PartialPivLU<matrix> lu(am);
    if (lu.determinant() == 0.0) throw error("A is singular");
    write(b, lu.solve(read(b)));
    return 0;
  });
}

// B := A^-1 B with a Cholesky factorisation; 0 on success, 1 when A is not positive definite
// (B unchanged).
int llt_solve(const char* fn, int g_a, int g_b, bool lu_fallback) {
  auto& a = dbl(g_a, fn);
  auto& b = dbl(g_b, fn);
  require_square(a, fn);
  require_rows(b, a, fn);
  if constexpr (scalapack_used()) {
    // GA_Solve: > 0 (the minor that is not positive definite) means LU was used.
    const int minor = scalapack::llt_solve(a, b);
    if (minor > 0 && lu_fallback) scalapack::lu_solve(false, a, b);
    return minor;
  }
  return on_root(fn, {&a, &b}, [&] {
    const matrix am = read(a);
    Eigen::LLT<matrix> llt(am);
    if (llt.info() == Eigen::Success) {
      write(b, llt.solve(read(b)));
      return 0;
    }
    if (!lu_fallback) return 1;
    Eigen::PartialPivLU<matrix> lu(am);
    if (lu.determinant() == 0.0) return -1;
    write(b, lu.solve(read(b)));
    return 1;  // GA_Solve: > 0 means LU was used
  });
}

}  // namespace

extern "C" {

void GA_Diag(int g_a, int g_s, int g_v, void* eval) {
  api("GA_Diag", [&] {
    if (g_s == 0) throw error("GA_Diag: g_s is 0 (use GA_Diag_std for the standard problem)");
    eigen("GA_Diag", g_a, g_s, g_v, eval);
  });
}
void GA_Diag_seq(int g_a, int g_s, int g_v, void* eval) {
  api("GA_Diag_seq", [&] { eigen("GA_Diag_seq", g_a, g_s, g_v, eval); });
}
void GA_Diag_reuse(int reuse, int g_a, int g_s, int g_v, void* eval) {
  // GA keeps the factorisation of S between calls when reuse > 0; this recomputes it.
  api("GA_Diag_reuse", [&] {
    (void)reuse;
    eigen("GA_Diag_reuse", g_a, g_s, g_v, eval);
  });
}
void GA_Diag_std(int g_a, int g_v, void* eval) {
  api("GA_Diag_std", [&] { eigen("GA_Diag_std", g_a, 0, g_v, eval); });
}
void GA_Diag_std_seq(int g_a, int g_v, void* eval) {
  api("GA_Diag_std_seq", [&] { eigen("GA_Diag_std_seq", g_a, 0, g_v, eval); });
}
void GA_Lu_solve(char trans, int g_a, int g_b) {
  api("GA_Lu_solve", [&] { lu_solve("GA_Lu_solve", trans, g_a, g_b); });
}
int GA_Llt_solve(int g_a, int g_b) {
  return api("GA_Llt_solve", [&] { return llt_solve("GA_Llt_solve", g_a, g_b, false); });
}
int GA_Solve(int g_a, int g_b) {
  return api("GA_Solve", [&] { return llt_solve("GA_Solve", g_a, g_b, true); });
}
int GA_Spd_invert(int g_a) {
  return api("GA_Spd_invert", [&] {
    auto& a = dbl(g_a, "GA_Spd_invert");
    require_square(a, "GA_Spd_invert");
    if constexpr (scalapack_used()) return scalapack::spd_invert(a);
    return on_root("GA_Spd_invert", {&a}, [&] {
      const matrix am = read(a);
      Eigen::LLT<matrix> llt(am);
      if (llt.info() != Eigen::Success) return 1;  // not positive definite: A unchanged
      // Exactly symmetric, as GA's (which mirrors one triangle).
      const matrix inv = llt.solve(matrix::Identity(am.rows(), am.cols()));
      write(a, (inv + inv.transpose()) * 0.5);
      return 0;
    });
  });
}

}  // extern "C"
