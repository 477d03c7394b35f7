// GA's Fortran interface to its ScaLAPACK Cholesky routines (scalapack.F): ga_cholesky,
// ga_llt_f (factor), ga_llt_s (solve with a factor), ga_llt_i (inverse from a factor). The
// factor is computed on rank 0 (this layer has no distributed Cholesky that returns the
// factor); solves and inverses go to the C layer's (ScaLAPACK when found). hsA: -1 means the
// array holds the factor (ga_llt_f writes it there); otherwise ga_llt_f keeps a copy of A under
// a number it returns in hsA, which ga_llt_s or ga_llt_i use and release, as GA's state.

#include <mpi.h>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "detail/fortran.hpp"
#include "ga-mpi.h"

using namespace gaea::ga_compat::fortran;
using gaea::error;

extern "C" fint ga_llt_solve_(fint* g_a, fint* g_b);  // linalg.cpp

namespace {

// Copies of A kept by ga_llt_f (hsA > 0), the same on every rank (the calls are collective).
std::map<fint, int>& kept() {
  static std::map<fint, int> m;
  return m;
}

std::int64_t order(int h, const char* fn) {
  int type = 0, ndim = 0;
  std::int64_t d[GA_MAX_DIM] = {};
  NGA_Inquire64(h, &type, &ndim, d);
  if (ndim != 2 || d[0] != d[1] || type != C_DBL)
    throw error(std::string(fn) + ": a square MT_DBL matrix is needed");
  return d[0];
}

// The whole matrix in Fortran's column-major order (the C view's row-major order).
std::vector<double> read(int h, std::int64_t n) {
  std::vector<double> m(static_cast<std::size_t>(n * n));
  std::int64_t lo[2] = {0, 0}, hi[2] = {n - 1, n - 1}, ld[1] = {n};
  NGA_Get64(h, lo, hi, m.data(), ld);
  return m;
}
void write(int h, std::int64_t n, std::vector<double>& m) {
  std::int64_t lo[2] = {0, 0}, hi[2] = {n - 1, n - 1}, ld[1] = {n};
  NGA_Put64(h, lo, hi, m.data(), ld);
}

bool lower(const char* uplo, flen len, const char* fn) {
  const char u = len > 0 && uplo != nullptr ? uplo[0] : ' ';
  if (u == 'L' || u == 'l') return true;
  if (u == 'U' || u == 'u') return false;
  throw error(std::string(fn) + ": uplo '" + std::string(1, u) + "' (L or U)");
}

// A = L L' in place (column-major, L in the lower triangle, zeros above); 0, or the order of
// the leading minor that is not positive definite (A then unusable).
fint cholesky(std::vector<double>& a, std::int64_t n) {
  auto at = [&](std::int64_t i, std::int64_t j) -> double& {
    return a[static_cast<std::size_t>(i + j * n)];
  };
  for (std::int64_t j = 0; j < n; ++j) {
    double s = at(j, j);
    for (std::int64_t k = 0; k < j; ++k)
      s -= at(j, k) * at(j, k);
    if (!(s > 0.0)) return static_cast<fint>(j + 1);
    at(j, j) = std::sqrt(s);
    for (std::int64_t i = j + 1; i < n; ++i) {
      double t = at(i, j);
      for (std::int64_t k = 0; k < j; ++k)
        t -= at(i, k) * at(j, k);
      at(i, j) = t / at(j, j);
    }
    for (std::int64_t i = 0; i < j; ++i)
      at(i, j) = 0.0;
  }
  return 0;
}

// Runs `body` on rank 0 between syncs; its result reaches every rank.
template <class Body>
fint on_root(Body&& body) {
  GA_Sync();
  std::int64_t r = GA_Nodeid() == 0 ? static_cast<std::int64_t>(body()) : 0;
  MPI_Bcast(&r, 1, MPI_INT64_T, 0, GA_MPI_Comm());
  GA_Sync();
  return static_cast<fint>(r);
}

// The SPD matrix a factor stands for: the kept copy (released) or, for hsA -1, L L' (U' U) of
// the factor in g_a, in a new array. The caller destroys the result.
int spd_matrix(bool low, int g_a, fint hs_a, const char* fn) {
  const std::int64_t n = order(g_a, fn);
  if (hs_a != -1) {
    auto it = kept().find(hs_a);
    if (it == kept().end())
      throw error(std::string(fn) + ": hsA " + std::to_string(hs_a) + " is no ga_llt_f factor");
    const int s = it->second;
    kept().erase(it);
    return s;
  }
  const int s = GA_Duplicate(g_a, "ga_llt: L L'");
  if (s == 0) throw error(std::string(fn) + ": no memory for a copy of A");
  on_root([&] {
    const std::vector<double> f = read(g_a, n);
    std::vector<double> m(f.size(), 0.0);
    auto x = [&](std::int64_t i, std::int64_t j) {  // the factor as L (lower)
      return low ? f[static_cast<std::size_t>(i + j * n)] : f[static_cast<std::size_t>(j + i * n)];
    };
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i) {
        double t = 0.0;
        for (std::int64_t k = 0; k <= std::min(i, j); ++k)
          t += x(i, k) * x(j, k);
        m[static_cast<std::size_t>(i + j * n)] = t;
      }
    write(s, n, m);
    return 0;
  });
  return s;
}

fint llt_f(const char* uplo, fint* g_a, fint* hs_a, flen len, const char* fn) {
  const bool low = lower(uplo, len, fn);
  const int h = handle(*g_a, fn);
  const std::int64_t n = order(h, fn);
  const bool in_place = *hs_a == -1;
  const fint info = on_root([&] {
    std::vector<double> a = read(h, n);
    const fint r = cholesky(a, n);
    if (r != 0 || !in_place) return r;
    if (!low)  // U = L'
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < j; ++i)
          std::swap(a[static_cast<std::size_t>(i + j * n)], a[static_cast<std::size_t>(j + i * n)]);
    write(h, n, a);
    return fint{0};
  });
  if (info == 0 && !in_place) {
    const int s = GA_Duplicate(h, "ga_llt_f: A");
    if (s == 0) throw error(std::string(fn) + ": no memory for a copy of A");
    GA_Copy(h, s);
    const fint id = kept().empty() ? 1 : kept().rbegin()->first + 1;
    kept().emplace(id, s);
    *hs_a = id;
  }
  return info;
}

}  // namespace

extern "C" {

fint ga_llt_f_(const char* uplo, fint* g_a, fint* hs_a, flen len) {
  return api("ga_llt_f", [&] { return llt_f(uplo, g_a, hs_a, len, "ga_llt_f"); });
}
fint ga_cholesky_(const char* uplo, fint* g_a, flen len) {
  fint hs_a = -1;
  return api("ga_cholesky", [&] { return llt_f(uplo, g_a, &hs_a, len, "ga_cholesky"); });
}
void ga_llt_s_(const char* uplo, fint* g_a, fint* g_b, fint* hs_a, flen len) {
  api("ga_llt_s", [&] {
    fint s = spd_matrix(lower(uplo, len, "ga_llt_s"), handle(*g_a, "ga_llt_s"), *hs_a, "ga_llt_s");
    ga_llt_solve_(&s, g_b);
    GA_Destroy(static_cast<int>(s));
  });
}
fint ga_llt_i_(const char* uplo, fint* g_a, fint* hs_a, flen len) {
  return api("ga_llt_i", [&] {
    const int a = handle(*g_a, "ga_llt_i");
    const int s = spd_matrix(lower(uplo, len, "ga_llt_i"), a, *hs_a, "ga_llt_i");
    const fint info = static_cast<fint>(GA_Spd_invert(s));
    if (info == 0) GA_Copy(s, a);
    GA_Destroy(s);
    return info;
  });
}

}  // extern "C"
