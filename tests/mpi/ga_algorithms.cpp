// The global-array collective algorithms (copy, scale, add, dot, norm, transpose, gemm)
// against a serial reference, for every element type and distribution (block, irregular,
// block-cyclic, ghosts), mixing distributions between operands.
#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "ga_reference.hpp"
#include "gaea/ga/algorithms.hpp"

using namespace gaea;
using Catch::Matchers::Contains;
using gaea::ga::index;
using gaea::ga::index_t;
using gaea::ga::layout_spec;
using gaea::ga::patch;
using gaea::test::rt;
using namespace gaea::test;
using cplx = std::complex<double>;

TEMPLATE_TEST_CASE("ga algorithms: copy, scale, add, dot and norms match a serial reference",
                   "[ga][algorithms]", double, float, cplx, cplxf, std::int64_t, std::int32_t) {
  using T = TestType;
  for (const index& dims : {index{37}, index{13, 11}, index{5, 4, 6}}) {
    const auto lays = layouts(dims);
    // 2-D: every rotation of the layouts; 1-D and 3-D: two rotations that still use all four.
    for (std::size_t i = 0; i < lays.size(); i += dims.size() == 2 ? 1 : 3) {
      const auto& [na, la] = lays[i];
      const auto& [nb, lb] = lays[(i + 1) % lays.size()];
      const auto& [nc, lc] = lays[(i + 2) % lays.size()];
      INFO("dims " << format_index(dims) << ", A " << na << ", B " << nb << ", C " << nc);
      global_array<T> a("A", dims, la), b("B", dims, lb), c("C", dims, lc);
      fill(a, 1);
      fill(b, 2);
      fill(c, 3);
      const auto ra = reference<T>(dims, 1), rb = reference<T>(dims, 2);

      ga::copy(a, c);  // owners of C get from A's owners
      CHECK(mismatches(whole(c), ra, "copy") == 0);
      ga::scale(c, T(3));
      std::vector<T> want(ra.size());
      for (std::size_t k = 0; k < ra.size(); ++k)
        want[k] = T(3) * ra[k];
      CHECK(mismatches(whole(c), want, "scale") == 0);
      ga::add(T(2), a, T(-1), b, c);
      for (std::size_t k = 0; k < ra.size(); ++k)
        want[k] = T(2) * ra[k] - rb[k];
      CHECK(mismatches(whole(c), want, "add") == 0);
      ga::add(T(1), c, T(1), b, c);  // the result may be an input
      for (std::size_t k = 0; k < ra.size(); ++k)
        want[k] += rb[k];
      CHECK(mismatches(whole(c), want, "add in place") == 0);

      ga::dot_result<T> d{}, ref{};
      d = ga::dot(a, b);
      double two = 0, inf = 0;
      for (std::size_t k = 0; k < ra.size(); ++k) {
        if constexpr (is_complex_v<T>)
          ref += std::conj(ra[k]) * rb[k];
        else
          ref += static_cast<ga::dot_result<T>>(ra[k]) * static_cast<ga::dot_result<T>>(rb[k]);
        two += std::norm(std::complex<double>(ra[k]));
        inf = std::max(inf, std::abs(std::complex<double>(ra[k])));
      }
      if (dims.size() == 2) {  // matrix infinity norm: max row sum of |a_ij|
        inf = 0;
        for (index_t r = 0; r < dims[0]; ++r) {
          double s = 0;
          for (index_t q = 0; q < dims[1]; ++q)
            s += std::abs(std::complex<double>(ra[static_cast<std::size_t>(r * dims[1] + q)]));
          inf = std::max(inf, s);
        }
      }
      CHECK(near_enough(d, ref, 100));
      CHECK(std::abs(ga::norm(a) - std::sqrt(two)) <= 1e-6 * std::sqrt(two));
      CHECK(std::abs(ga::norm(a, ga::norm_kind::inf) - inf) <= 1e-9 * inf);
      if constexpr (is_complex_v<T>)  // conjugated: dot(a, a) = |a|^2, real
        CHECK(std::abs(cplx(ga::dot(a, a)) - cplx(two, 0)) <= 100 * tolerance<T>() * two);
      CHECK(gaea::test::all(ghosts_untouched(a) && ghosts_untouched(b) && ghosts_untouched(c)));
    }
  }
}

TEMPLATE_TEST_CASE("ga algorithms: transpose across distributions", "[ga][algorithms]", double,
                   float, cplx, cplxf, std::int64_t, std::int32_t) {
  using T = TestType;
  const index dims{13, 11}, tdims{11, 13};
  const auto la = layouts(dims), lb = layouts(tdims);
  for (std::size_t i = 0; i < la.size(); ++i) {
    INFO("A " << la[i].first << ", B " << lb[(i + 2) % lb.size()].first);
    global_array<T> a("A", dims, la[i].second), b("B", tdims, lb[(i + 2) % lb.size()].second);
    fill(a, 4);
    fill(b, 5);
    ga::transpose(a, b);
    const auto ra = reference<T>(dims, 4);
    std::vector<T> want(ra.size());
    for (index_t r = 0; r < dims[0]; ++r)
      for (index_t q = 0; q < dims[1]; ++q)
        want[static_cast<std::size_t>(q * dims[0] + r)] =
            ra[static_cast<std::size_t>(r * dims[1] + q)];
    CHECK(mismatches(whole(b), want, "transpose") == 0);
    CHECK(gaea::test::all(ghosts_untouched(b)));
  }
}

namespace {
template <class T>
T op_at(const std::vector<T>& x, index_t cols, ga::mat_op op, index_t r, index_t c) {
  if (op == ga::mat_op::none) return x[static_cast<std::size_t>(r * cols + c)];
  const T v = x[static_cast<std::size_t>(c * cols + r)];
  if constexpr (is_complex_v<T>)
    if (op == ga::mat_op::conj_trans) return std::conj(v);
  return v;
}

// C = alpha op(A) op(B) + beta C for op(A) m x k, op(B) k x n on the given layouts.
template <class T>
void check_gemm(index_t m, index_t n, index_t k, ga::mat_op oa, ga::mat_op ob,
                const layout_spec& la, const layout_spec& lb, const layout_spec& lc) {
  const index da = oa == ga::mat_op::none ? index{m, k} : index{k, m};
  const index db = ob == ga::mat_op::none ? index{k, n} : index{n, k};
  INFO("gemm m=" << m << " n=" << n << " k=" << k << " ops " << static_cast<char>(oa)
                 << static_cast<char>(ob));
  global_array<T> a("A", da, la), b("B", db, lb), c("C", {m, n}, lc);
  fill(a, 6);
  fill(b, 7);
  fill(c, 8);
  const T alpha = T(2), beta = T(0.5);
  ga::gemm(oa, ob, alpha, a, b, beta, c);
  const auto ra = reference<T>(da, 6), rb = reference<T>(db, 7), rc = reference<T>({m, n}, 8);
  std::vector<T> want(rc.size());
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      T s{};
      for (index_t p = 0; p < k; ++p)
        s += op_at(ra, da[1], oa, i, p) * op_at(rb, db[1], ob, p, j);
      want[static_cast<std::size_t>(i * n + j)] =
          alpha * s + beta * rc[static_cast<std::size_t>(i * n + j)];
    }
  CHECK(mismatches(whole(c), want, "gemm", 100.0 * static_cast<double>(k)) == 0);
  CHECK(gaea::test::all(ghosts_untouched(c)));
}
}  // namespace

TEMPLATE_TEST_CASE("ga algorithms: gemm with every op, odd sizes and mixed distributions",
                   "[ga][algorithms][gemm]", double, float, cplx, cplxf) {
  using T = TestType;
  using ga::mat_op;
  const int p = rt().size();
  std::vector<mat_op> ops{mat_op::none, mat_op::trans};
  if constexpr (is_complex_v<T>) ops.push_back(mat_op::conj_trans);
  const auto cyclic = layout_spec::block_cyclic({4, 5});
  const auto ghosted = layout_spec::block().with_ghosts({1, 2});
  const auto irregular =
      layout_spec::irregular({p >= 2 ? std::vector<index_t>{0, 7} : std::vector<index_t>{0}, {0}});
  for (mat_op oa : ops)
    for (mat_op ob : ops)
      check_gemm<T>(23, 19, 17, oa, ob, cyclic, irregular, ghosted);
  // k beyond one panel step (pipelined blocks), C rows beyond one block, all on one layout.
  check_gemm<T>(9, 7, 300, mat_op::none, mat_op::trans, layout_spec::block(), cyclic,
                layout_spec::block());
  check_gemm<T>(530, 3, 5, mat_op::trans, mat_op::none, ghosted, layout_spec::block(),
                layout_spec::block_cyclic({100, 2}));
  // beta = 0 ignores what C held, even NaN (real types).
  if constexpr (!is_complex_v<T>) {
    global_array<T> a("A", {6, 4}), b("B", {4, 5}), c("C", {6, 5}, cyclic);
    fill(a, 1);
    fill(b, 2);
    c.fill(std::numeric_limits<T>::quiet_NaN());
    ga::gemm(mat_op::none, mat_op::none, T(1), a, b, T(0), c);
    CHECK(std::isfinite(static_cast<double>(ga::norm(c))));
  }
}

TEST_CASE("ga algorithms: errors name the arrays and shapes", "[ga][algorithms][errors]") {
  global_array<double> a("alpha", {6, 4}), b("beta", {4, 6}), c("gamma", {6, 4});
  CHECK_THROWS_WITH(ga::copy(a, b), Contains("'alpha' is [6, 4]") && Contains("'beta' is [4, 6]"));
  CHECK_THROWS_WITH(ga::add(1.0, a, 1.0, b, c), Contains("shapes differ") && Contains("'beta'"));
  CHECK_THROWS_WITH(ga::dot(a, b), Contains("ga::dot"));
  CHECK_THROWS_WITH(ga::transpose(a, c), Contains("'gamma' must be [4, 6]"));
  CHECK_THROWS_WITH(ga::transpose(a, a), Contains("onto itself"));
  CHECK_THROWS_WITH(ga::gemm(ga::mat_op::none, ga::mat_op::none, 1.0, a, c, 0.0, b),
                    Contains("shapes do not fit") && Contains("'alpha'") && Contains("'gamma'"));
  CHECK_THROWS_WITH(ga::gemm(ga::mat_op::none, ga::mat_op::trans, 1.0, a, c, 0.0, a),
                    Contains("must not be an input"));
  global_array<double> v("vec", {5});
  CHECK_THROWS_WITH(ga::transpose(v, v), Contains("'vec' has 1 dimensions"));
  // Nothing was half-done: every rank is still in step.
  ga::copy(a, c);
  CHECK(ga::norm(c) == ga::norm(a));
}
