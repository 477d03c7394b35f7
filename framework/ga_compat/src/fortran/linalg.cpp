// GA's Fortran API: dense linear algebra (ga_lu_solve, ga_llt_solve, ga_solve, ga_spd_invert,
// the ga_diag family) over the C layer's. Fortran's matrix is the transpose of the C view, so
// the right-hand sides B (n x nrhs in Fortran, nrhs x n in C) go through an n x nrhs C-view copy,
// an LU solve with A flips its transposition flag, and eigenvectors come back as rows of the C
// view (columns in Fortran). Symmetric A and S read the same either way.

#include <string>

#include "detail/fortran.hpp"

using namespace gaea::ga_compat::fortran;
using gaea::error;

namespace {

// An array of C_DBL with the transposed dimensions of 2-D array `c`, owned for a call.
struct transposed {
  int h = 0;
  explicit transposed(int c, const char* fn) {
    int type = 0, ndim = 0;
    std::int64_t d[GA_MAX_DIM] = {};
    NGA_Inquire64(c, &type, &ndim, d);
    if (ndim != 2)
      throw error(std::string(fn) + ": a " + std::to_string(ndim) + "-D array (2-D needed)");
    std::int64_t t[2] = {d[1], d[0]};
    h = NGA_Create64(type, 2, t, "GA Fortran solve (transposed B)", nullptr);
    if (h == 0) throw error(std::string(fn) + ": no memory for a copy of B");
  }
  transposed(const transposed&) = delete;
  transposed& operator=(const transposed&) = delete;
  ~transposed() { GA_Destroy(h); }
};

// B's Fortran view as C rows, solve(C handle of it), then back into B.
template <class Solve>
auto with_rhs(int g_b, const char* fn, Solve solve) {
  transposed t(g_b, fn);
  GA_Transpose(g_b, t.h);
  auto r = solve(t.h);
  GA_Transpose(t.h, g_b);
  GA_Sync();  // B complete on every rank when the call returns, as GA's
  return r;
}

char flipped(const char* trans, flen len, const char* fn) {
  const char t = len > 0 && trans != nullptr ? trans[0] : 'N';
  if (t == 'n' || t == 'N') return 'T';
  if (t == 't' || t == 'T') return 'N';
  throw error(std::string(fn) + ": trans '" + std::string(1, t) + "' (n or t)");
}

// Eigenvectors the C layer stored in columns of the C view, moved to Fortran's columns.
void vectors_to_fortran(int g_v, const char* fn) {
  transposed t(g_v, fn);
  GA_Transpose(g_v, t.h);
  GA_Copy(t.h, g_v);
  GA_Sync();
}

}  // namespace

extern "C" {

// ---- linear solves ----------------------------------------------------------------------------
void ga_lu_solve_(const char* trans, fint* g_a, fint* g_b, flen len) {
  api("ga_lu_solve", [&] {
    const char t = flipped(trans, len, "ga_lu_solve");
    with_rhs(h(g_b), "ga_lu_solve", [&](int b) {
      GA_Lu_solve(t, h(g_a), b);
      return 0;
    });
  });
}
/// GA's sequential LU solve: here the same solver as ga_lu_solve.
void ga_lu_solve_seq_(const char* trans, fint* g_a, fint* g_b, flen len) {
  ga_lu_solve_(trans, g_a, g_b, len);
}
/// GA's ga_lu_solve_alt: trans as an INTEGER (nonzero: solve with A transposed).
void ga_lu_solve_alt_(fint* tran, fint* g_a, fint* g_b) {
  ga_lu_solve_(*tran != 0 ? "T" : "N", g_a, g_b, 1);
}
fint ga_llt_solve_(fint* g_a, fint* g_b) {
  return api("ga_llt_solve", [&] {
    return static_cast<fint>(
        with_rhs(h(g_b), "ga_llt_solve", [&](int b) { return GA_Llt_solve(h(g_a), b); }));
  });
}
fint ga_solve_(fint* g_a, fint* g_b) {
  return api("ga_solve", [&] {
    return static_cast<fint>(
        with_rhs(h(g_b), "ga_solve", [&](int b) { return GA_Solve(h(g_a), b); }));
  });
}
fint ga_spd_invert_(fint* g_a) {
  return api("ga_spd_invert", [&] { return static_cast<fint>(GA_Spd_invert(h(g_a))); });
}
fint nga_llt_solve_(fint* g_a, fint* g_b) {
  return ga_llt_solve_(g_a, g_b);
}
fint nga_solve_(fint* g_a, fint* g_b) {
  return ga_solve_(g_a, g_b);
}
fint nga_spd_invert_(fint* g_a) {
  return ga_spd_invert_(g_a);
}

// ---- eigensolvers -----------------------------------------------------------------------------
void ga_diag_(fint* g_a, fint* g_s, fint* g_v, double* eval) {
  api("ga_diag", [&] {
    GA_Diag(h(g_a), h(g_s), h(g_v), eval);
    vectors_to_fortran(h(g_v), "ga_diag");
  });
}
void ga_diag_seq_(fint* g_a, fint* g_s, fint* g_v, double* eval) {
  api("ga_diag_seq", [&] {
    GA_Diag_seq(h(g_a), h(g_s), h(g_v), eval);
    vectors_to_fortran(h(g_v), "ga_diag_seq");
  });
}
void ga_diag_reuse_(fint* reuse, fint* g_a, fint* g_s, fint* g_v, double* eval) {
  api("ga_diag_reuse", [&] {
    GA_Diag_reuse(static_cast<int>(*reuse), h(g_a), h(g_s), h(g_v), eval);
    vectors_to_fortran(h(g_v), "ga_diag_reuse");
  });
}
void ga_diag_std_(fint* g_a, fint* g_v, double* eval) {
  api("ga_diag_std", [&] {
    GA_Diag_std(h(g_a), h(g_v), eval);
    vectors_to_fortran(h(g_v), "ga_diag_std");
  });
}
void ga_diag_std_seq_(fint* g_a, fint* g_v, double* eval) {
  api("ga_diag_std_seq", [&] {
    GA_Diag_std_seq(h(g_a), h(g_v), eval);
    vectors_to_fortran(h(g_v), "ga_diag_std_seq");
  });
}

}  // extern "C"
