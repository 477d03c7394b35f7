// Whole-array and patch arithmetic: copy, scale, add, the dot family, norms, transpose,
// symmetrize, the gemm family and matmul on patches; all map onto gaea::ga's collective
// algorithms (algorithms.hpp, patch_ops.hpp, diagonal.hpp). The N-D patch calls share one body
// with their 64-bit twins (templated on the index type).
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "detail/indices.hpp"
#include "detail/math_args.hpp"
#include "detail/state.hpp"
#include "ga.h"
#include "gaea/ga/diagonal.hpp"
#include "gaea/ga/patch_ops.hpp"

using namespace gaea::ga_compat::detail;
namespace ga = gaea::ga;
using gaea::error;

namespace {

template <class I>
void zero_patch(const char* fn, int g_a, I* lo, I* hi) {
  api(fn, [&] {
    with_array(g_a, fn, [&](auto& a) { ga::zero_patch(a, to_patch(lo, hi, a.ndim())); });
  });
}

template <class I>
void fill_patch(const char* fn, int g_a, I* lo, I* hi, void* value) {
  api(fn, [&] {
    with_array(g_a, fn, [&](auto& a) {
      ga::fill_patch(a, to_patch(lo, hi, a.ndim()),
                     scalar_from<element_of<decltype(a)>>(value, fn));
    });
  });
}

template <class I>
void scale_patch(const char* fn, int g_a, I* lo, I* hi, void* alpha) {
  api(fn, [&] {
    with_array(g_a, fn, [&](auto& a) {
      ga::scale_patch(a, to_patch(lo, hi, a.ndim()),
                      scalar_from<element_of<decltype(a)>>(alpha, fn));
    });
  });
}

template <class I>
void copy_patch(const char* fn, char trans, int g_a, I* alo, I* ahi, int g_b, I* blo, I* bhi) {
  api(fn, [&] {
    const bool t = transposed(trans);
    with_arrays(
        fn,
        [&](auto& a, auto& b) {
          ga::copy_patch(a, to_patch(alo, ahi, a.ndim()), b, to_patch(blo, bhi, b.ndim()), t);
        },
        g_a, g_b);
  });
}

template <class I>
void add_patch(const char* fn, void* alpha, int g_a, I* alo, I* ahi, void* beta, int g_b, I* blo,
               I* bhi, int g_c, I* clo, I* chi) {
  api(fn, [&] {
    with_arrays(
        fn,
        [&](auto& a, auto& b, auto& c) {
          using T = element_of<decltype(a)>;
          ga::add_patch(scalar_from<T>(alpha, fn), a, to_patch(alo, ahi, a.ndim()),
                        scalar_from<T>(beta, fn), b, to_patch(blo, bhi, b.ndim()), c,
                        to_patch(clo, chi, c.ndim()));
        },
        g_a, g_b, g_c);
  });
}

// sum a_i * b_i over the patches (GA's dot: complex elements are not conjugated), for arrays
// of element type Want; R is the C return type.
template <class Want, class R, class I>
R dot_patch(const char* fn, const char* want, int g_a, char ta, I* alo, I* ahi, int g_b, char tb,
            I* blo, I* bhi) {
  return api(fn, [&]() -> R {
    const bool t_a = transposed(ta), t_b = transposed(tb);
    return with_arrays(
        fn,
        [&](auto& a, auto& b) -> R {
          require_element<Want>(a, want);
          if constexpr (std::is_same_v<element_of<decltype(a)>, Want>) {
            const ga::patch pa = alo ? to_patch(alo, ahi, a.ndim()) : ga::whole_patch(a);
            const ga::patch pb = blo ? to_patch(blo, bhi, b.ndim()) : ga::whole_patch(b);
            const auto d = ga::dot_patch(a, pa, t_a, b, pb, t_b, false);
            if constexpr (gaea::ga::detail::is_complex_v<Want>) {
              return to_ga(d);
            } else {
              // Integers sum in 64 bits; a sum the C return type cannot hold (GA_Idot's int) is
              // an error on every rank, never a truncated value.
              if constexpr (std::is_integral_v<R>)
                if (!std::in_range<R>(d))
                  throw error("the dot product of '" + a.name() + "' and '" + b.name() + "' is " +
                              std::to_string(d) +
                              ", which does not fit in the call's return type (" +
                              std::to_string(std::numeric_limits<R>::min()) + " to " +
                              std::to_string(std::numeric_limits<R>::max()) +
                              "); use 64-bit arrays (C_LONG or C_LONGLONG) and GA_Ldot/GA_Lldot");
              return static_cast<R>(d);
            }
          } else {
            return R{};  // not reached: require_element threw
          }
        },
        g_a, g_b);
  });
}

// c[pc] = alpha op(a[pa]) op(b[pb]) + beta c[pc]; gemm_element types only (others: error).
template <class A, class B, class C>
void matmul(const char* fn, char ta, char tb, const void* alpha, const void* beta, A& a,
            const ga::patch& pa, B& b, const ga::patch& pb, C& c, const ga::patch& pc) {
  using T = element_of<A>;
  if constexpr (ga::gemm_element<T>) {
    ga::matmul_patch(mat_op_of(ta), mat_op_of(tb), scalar_from<T>(alpha, fn), a, pa, b, pb,
                     scalar_from<T>(beta, fn), c, pc);
  } else {
    throw error(std::string() + "array '" + a.name() +
                "' holds integers; matrix products take C_FLOAT, C_DBL, C_SCPL or C_DCPL");
  }
}

// GA_[DSZC]gemm: C[0:m-1, 0:n-1] = alpha op(A) op(B) + beta C with op(A) m x k, op(B) k x n taken
// from the top-left corners of the arrays.
template <class Want, class S>
void gemm(const char* fn, const char* want, char ta, char tb, std::int64_t m, std::int64_t n,
          std::int64_t k, S alpha, int g_a, int g_b, S beta, int g_c) {
  api(fn, [&] {
    if (m < 1 || n < 1 || k < 1)
      throw error(std::string() + "m, n, k = " + std::to_string(m) + ", " + std::to_string(n) +
                  ", " + std::to_string(k) + " (each must be positive)");
    const ga::mat_op oa = mat_op_of(ta), ob = mat_op_of(tb);
    auto corner = [](std::int64_t r, std::int64_t c) { return ga::patch{{0, 0}, {r - 1, c - 1}}; };
    with_arrays(
        fn,
        [&](auto& a, auto& b, auto& c) {
          require_element<Want>(a, want);
          const ga::patch pa = oa == ga::mat_op::none ? corner(m, k) : corner(k, m);
          const ga::patch pb = ob == ga::mat_op::none ? corner(k, n) : corner(n, k);
          matmul(fn, ta, tb, &alpha, &beta, a, pa, b, pb, c, corner(m, n));
        },
        g_a, g_b, g_c);
  });
}

template <class I>
void matmul_nd(const char* fn, char ta, char tb, void* alpha, void* beta, int g_a, I* alo, I* ahi,
               int g_b, I* blo, I* bhi, int g_c, I* clo, I* chi) {
  api(fn, [&] {
    with_arrays(
        fn,
        [&](auto& a, auto& b, auto& c) {
          matmul(fn, ta, tb, alpha, beta, a, to_patch(alo, ahi, a.ndim()), b,
                 to_patch(blo, bhi, b.ndim()), c, to_patch(clo, chi, c.ndim()));
        },
        g_a, g_b, g_c);
  });
}

template <class I>
void matmul_2d(const char* fn, char ta, char tb, void* alpha, void* beta, int g_a, I ailo, I aihi,
               I ajlo, I ajhi, int g_b, I bilo, I bihi, I bjlo, I bjhi, int g_c, I cilo, I cihi,
               I cjlo, I cjhi) {
  I alo[2] = {ailo, ajlo}, ahi[2] = {aihi, ajhi}, blo[2] = {bilo, bjlo}, bhi[2] = {bihi, bjhi},
    clo[2] = {cilo, cjlo}, chi[2] = {cihi, cjhi};
  matmul_nd(fn, ta, tb, alpha, beta, g_a, alo, ahi, g_b, blo, bhi, g_c, clo, chi);
}

}  // namespace

extern "C" {

void GA_Copy(int g_a, int g_b) {
  api("GA_Copy", [&] {
    with_arrays(
        "GA_Copy", [](auto& a, auto& b) { ga::copy(a, b); }, g_a, g_b);
  });
}
void NGA_Copy(int g_a, int g_b) {
  GA_Copy(g_a, g_b);
}

void GA_Scale(int g_a, void* value) {
  api("GA_Scale", [&] {
    with_array(g_a, "GA_Scale", [&](auto& a) {
      ga::scale(a, scalar_from<element_of<decltype(a)>>(value, "GA_Scale"));
    });
  });
}
void NGA_Scale(int g_a, void* value) {
  GA_Scale(g_a, value);
}

void GA_Add(void* alpha, int g_a, void* beta, int g_b, int g_c) {
  api("GA_Add", [&] {
    with_arrays(
        "GA_Add",
        [&](auto& a, auto& b, auto& c) {
          using T = element_of<decltype(a)>;
          ga::add(scalar_from<T>(alpha, "GA_Add"), a, scalar_from<T>(beta, "GA_Add"), b, c);
        },
        g_a, g_b, g_c);
  });
}
void NGA_Add(void* alpha, int g_a, void* beta, int g_b, int g_c) {
  GA_Add(alpha, g_a, beta, g_b, g_c);
}

double GA_Ddot(int g_a, int g_b) {
  return dot_patch<double, double, int>("GA_Ddot", "C_DBL", g_a, 'N', nullptr, nullptr, g_b, 'N',
                                        nullptr, nullptr);
}
float GA_Fdot(int g_a, int g_b) {
  return dot_patch<float, float, int>("GA_Fdot", "C_FLOAT", g_a, 'N', nullptr, nullptr, g_b, 'N',
                                      nullptr, nullptr);
}
int GA_Idot(int g_a, int g_b) {
  return dot_patch<std::int32_t, int, int>("GA_Idot", "C_INT", g_a, 'N', nullptr, nullptr, g_b, 'N',
                                           nullptr, nullptr);
}
long GA_Ldot(int g_a, int g_b) {
  return dot_patch<std::int64_t, long, int>("GA_Ldot", "C_LONG", g_a, 'N', nullptr, nullptr, g_b,
                                            'N', nullptr, nullptr);
}
long long GA_Lldot(int g_a, int g_b) {
  return dot_patch<std::int64_t, long long, int>("GA_Lldot", "C_LONGLONG", g_a, 'N', nullptr,
                                                 nullptr, g_b, 'N', nullptr, nullptr);
}
DoubleComplex GA_Zdot(int g_a, int g_b) {
  return dot_patch<std::complex<double>, DoubleComplex, int>("GA_Zdot", "C_DCPL", g_a, 'N', nullptr,
                                                             nullptr, g_b, 'N', nullptr, nullptr);
}
SingleComplex GA_Cdot(int g_a, int g_b) {
  return dot_patch<std::complex<float>, SingleComplex, int>("GA_Cdot", "C_SCPL", g_a, 'N', nullptr,
                                                            nullptr, g_b, 'N', nullptr, nullptr);
}

void GA_Norm1(int g_a, double* nm) {
  api("GA_Norm1", [&] {
    if (!nm) throw error("null result pointer");
    // GA 5.8's code (and GA's normc) sums every |a_ij|, whatever its documentation says.
    with_array(g_a, "GA_Norm1", [&](auto& a) { *nm = ga::norm(a, ga::norm_kind::sum_abs); });
  });
}
void GA_Norm_infinity(int g_a, double* nm) {
  api("GA_Norm_infinity", [&] {
    if (!nm) throw error("null result pointer");
    // GA 5.8's code (and GA's normc): the largest |a_ij|, not the largest row sum.
    with_array(g_a, "GA_Norm_infinity",
               [&](auto& a) { *nm = ga::norm(a, ga::norm_kind::max_abs); });
  });
}

void GA_Transpose(int g_a, int g_b) {
  api("GA_Transpose", [&] {
    with_arrays(
        "GA_Transpose", [](auto& a, auto& b) { ga::transpose(a, b); }, g_a, g_b);
  });
}
void GA_Symmetrize(int g_a) {
  api("GA_Symmetrize",
      [&] { with_array(g_a, "GA_Symmetrize", [](auto& a) { ga::symmetrize(a); }); });
}

void GA_Dgemm(char ta, char tb, int m, int n, int k, double alpha, int g_a, int g_b, double beta,
              int g_c) {
  gemm<double>("GA_Dgemm", "C_DBL", ta, tb, m, n, k, alpha, g_a, g_b, beta, g_c);
}
void GA_Sgemm(char ta, char tb, int m, int n, int k, float alpha, int g_a, int g_b, float beta,
              int g_c) {
  gemm<float>("GA_Sgemm", "C_FLOAT", ta, tb, m, n, k, alpha, g_a, g_b, beta, g_c);
}
void GA_Zgemm(char ta, char tb, int m, int n, int k, DoubleComplex alpha, int g_a, int g_b,
              DoubleComplex beta, int g_c) {
  gemm<std::complex<double>>("GA_Zgemm", "C_DCPL", ta, tb, m, n, k, from_ga(alpha), g_a, g_b,
                             from_ga(beta), g_c);
}
void GA_Cgemm(char ta, char tb, int m, int n, int k, SingleComplex alpha, int g_a, int g_b,
              SingleComplex beta, int g_c) {
  gemm<std::complex<float>>("GA_Cgemm", "C_SCPL", ta, tb, m, n, k, from_ga(alpha), g_a, g_b,
                            from_ga(beta), g_c);
}
void GA_Dgemm64(char ta, char tb, int64_t m, int64_t n, int64_t k, double alpha, int g_a, int g_b,
                double beta, int g_c) {
  gemm<double>("GA_Dgemm64", "C_DBL", ta, tb, m, n, k, alpha, g_a, g_b, beta, g_c);
}
void GA_Sgemm64(char ta, char tb, int64_t m, int64_t n, int64_t k, float alpha, int g_a, int g_b,
                float beta, int g_c) {
  gemm<float>("GA_Sgemm64", "C_FLOAT", ta, tb, m, n, k, alpha, g_a, g_b, beta, g_c);
}
void GA_Zgemm64(char ta, char tb, int64_t m, int64_t n, int64_t k, DoubleComplex alpha, int g_a,
                int g_b, DoubleComplex beta, int g_c) {
  gemm<std::complex<double>>("GA_Zgemm64", "C_DCPL", ta, tb, m, n, k, from_ga(alpha), g_a, g_b,
                             from_ga(beta), g_c);
}
void GA_Cgemm64(char ta, char tb, int64_t m, int64_t n, int64_t k, SingleComplex alpha, int g_a,
                int g_b, SingleComplex beta, int g_c) {
  gemm<std::complex<float>>("GA_Cgemm64", "C_SCPL", ta, tb, m, n, k, from_ga(alpha), g_a, g_b,
                            from_ga(beta), g_c);
}

void GA_Matmul_patch(char transa, char transb, void* alpha, void* beta, int g_a, int ailo, int aihi,
                     int ajlo, int ajhi, int g_b, int bilo, int bihi, int bjlo, int bjhi, int g_c,
                     int cilo, int cihi, int cjlo, int cjhi) {
  matmul_2d("GA_Matmul_patch", transa, transb, alpha, beta, g_a, ailo, aihi, ajlo, ajhi, g_b, bilo,
            bihi, bjlo, bjhi, g_c, cilo, cihi, cjlo, cjhi);
}
void GA_Matmul_patch64(char transa, char transb, void* alpha, void* beta, int g_a, int64_t ailo,
                       int64_t aihi, int64_t ajlo, int64_t ajhi, int g_b, int64_t bilo,
                       int64_t bihi, int64_t bjlo, int64_t bjhi, int g_c, int64_t cilo,
                       int64_t cihi, int64_t cjlo, int64_t cjhi) {
  matmul_2d("GA_Matmul_patch64", transa, transb, alpha, beta, g_a, ailo, aihi, ajlo, ajhi, g_b,
            bilo, bihi, bjlo, bjhi, g_c, cilo, cihi, cjlo, cjhi);
}
void NGA_Matmul_patch(char transa, char transb, void* alpha, void* beta, int g_a, int alo[],
                      int ahi[], int g_b, int blo[], int bhi[], int g_c, int clo[], int chi[]) {
  matmul_nd("NGA_Matmul_patch", transa, transb, alpha, beta, g_a, alo, ahi, g_b, blo, bhi, g_c, clo,
            chi);
}
void NGA_Matmul_patch64(char transa, char transb, void* alpha, void* beta, int g_a, int64_t alo[],
                        int64_t ahi[], int g_b, int64_t blo[], int64_t bhi[], int g_c,
                        int64_t clo[], int64_t chi[]) {
  matmul_nd("NGA_Matmul_patch64", transa, transb, alpha, beta, g_a, alo, ahi, g_b, blo, bhi, g_c,
            clo, chi);
}

void NGA_Zero_patch(int g_a, int lo[], int hi[]) {
  zero_patch("NGA_Zero_patch", g_a, lo, hi);
}
void NGA_Zero_patch64(int g_a, int64_t lo[], int64_t hi[]) {
  zero_patch("NGA_Zero_patch64", g_a, lo, hi);
}
void NGA_Fill_patch(int g_a, int lo[], int hi[], void* value) {
  fill_patch("NGA_Fill_patch", g_a, lo, hi, value);
}
void NGA_Fill_patch64(int g_a, int64_t lo[], int64_t hi[], void* value) {
  fill_patch("NGA_Fill_patch64", g_a, lo, hi, value);
}
void NGA_Scale_patch(int g_a, int lo[], int hi[], void* alpha) {
  scale_patch("NGA_Scale_patch", g_a, lo, hi, alpha);
}
void NGA_Scale_patch64(int g_a, int64_t lo[], int64_t hi[], void* alpha) {
  scale_patch("NGA_Scale_patch64", g_a, lo, hi, alpha);
}
void NGA_Copy_patch(char trans, int g_a, int alo[], int ahi[], int g_b, int blo[], int bhi[]) {
  copy_patch("NGA_Copy_patch", trans, g_a, alo, ahi, g_b, blo, bhi);
}
void NGA_Copy_patch64(char trans, int g_a, int64_t alo[], int64_t ahi[], int g_b, int64_t blo[],
                      int64_t bhi[]) {
  copy_patch("NGA_Copy_patch64", trans, g_a, alo, ahi, g_b, blo, bhi);
}
void NGA_Add_patch(void* alpha, int g_a, int alo[], int ahi[], void* beta, int g_b, int blo[],
                   int bhi[], int g_c, int clo[], int chi[]) {
  add_patch("NGA_Add_patch", alpha, g_a, alo, ahi, beta, g_b, blo, bhi, g_c, clo, chi);
}
void NGA_Add_patch64(void* alpha, int g_a, int64_t alo[], int64_t ahi[], void* beta, int g_b,
                     int64_t blo[], int64_t bhi[], int g_c, int64_t clo[], int64_t chi[]) {
  add_patch("NGA_Add_patch64", alpha, g_a, alo, ahi, beta, g_b, blo, bhi, g_c, clo, chi);
}

#define GAEA_DOT_PATCH(NAME, WANT, TYPE_NAME, RET)                                                \
  RET NAME(int g_a, char t_a, int alo[], int ahi[], int g_b, char t_b, int blo[], int bhi[]) {    \
    return dot_patch<WANT, RET>(#NAME, TYPE_NAME, g_a, t_a, alo, ahi, g_b, t_b, blo, bhi);        \
  }                                                                                               \
  RET NAME##64(int g_a, char t_a, int64_t alo[], int64_t ahi[], int g_b, char t_b, int64_t blo[], \
               int64_t bhi[]) {                                                                   \
    return dot_patch<WANT, RET>(#NAME "64", TYPE_NAME, g_a, t_a, alo, ahi, g_b, t_b, blo, bhi);   \
  }
GAEA_DOT_PATCH(NGA_Ddot_patch, double, "C_DBL", double)
GAEA_DOT_PATCH(NGA_Fdot_patch, float, "C_FLOAT", float)
GAEA_DOT_PATCH(NGA_Idot_patch, std::int32_t, "C_INT", int)
GAEA_DOT_PATCH(NGA_Ldot_patch, std::int64_t, "C_LONG", long)
GAEA_DOT_PATCH(NGA_Lldot_patch, std::int64_t, "C_LONGLONG", long long)
GAEA_DOT_PATCH(NGA_Zdot_patch, std::complex<double>, "C_DCPL", DoubleComplex)
GAEA_DOT_PATCH(NGA_Cdot_patch, std::complex<float>, "C_SCPL", SingleComplex)
#undef GAEA_DOT_PATCH

}  // extern "C"
