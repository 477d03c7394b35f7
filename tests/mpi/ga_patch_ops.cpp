// Patch, element-wise, diagonal, scan/pack and matmul-patch operations of gaea::ga against a
// serial reference, for every element type on block, irregular, ghosted and block-cyclic
// layouts (operands on different layouts).
#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "ga_reference.hpp"
#include "gaea/ga/diagonal.hpp"
#include "gaea/ga/elementwise.hpp"
#include "gaea/ga/patch_ops.hpp"
#include "gaea/ga/scan.hpp"

using namespace gaea;
using namespace gaea::test;
using Catch::Matchers::Contains;

namespace {

// A serial row-major copy of a 2-D array.
template <class T>
struct host {
  index dims;
  std::vector<T> v;
  T& operator()(index_t i, index_t j) { return v[static_cast<std::size_t>(i * dims[1] + j)]; }
};

template <class T>
host<T> host_of(const index& dims, int seed) {
  return {dims, reference<T>(dims, seed)};
}

template <class T>
double mag(T x) {
  if constexpr (is_complex_v<T>)
    return static_cast<double>(std::abs(x));
  else
    return std::abs(static_cast<double>(x));
}

// What maximum/minimum and select_elem compare: the value, or the magnitude of a complex.
template <class T>
double key(T x) {
  if constexpr (is_complex_v<T>)
    return mag(x);
  else
    return static_cast<double>(x);
}

}  // namespace

TEMPLATE_TEST_CASE("ga patch ops: copy, fill, scale, add and dot on patches", "[ga][patch_ops]",
                   double, float, cplx, cplxf, std::int64_t, std::int32_t) {
  using T = TestType;
  const index dims{13, 11};
  const auto lays = layouts(dims);
  for (std::size_t r = 0; r < lays.size(); ++r) {
    const auto& [na, la] = lays[r];
    const auto& [nb, lb] = lays[(r + 1) % lays.size()];
    const auto& [nc, lc] = lays[(r + 2) % lays.size()];
    INFO("A " << na << ", B " << nb << ", C " << nc);
    global_array<T> a("A", dims, la), b("B", dims, lb), c("C", dims, lc);
    fill(a, 1);
    fill(b, 2);
    fill(c, 3);
    auto ha = host_of<T>(dims, 1), hb = host_of<T>(dims, 2), hc = host_of<T>(dims, 3);

    // c[2:7, 4:11] = a[1:8, 2:7]^T (6 x 8 from 8 x 6).
    ga::copy_patch(a, patch{{1, 2}, {8, 7}}, c, patch{{2, 3}, {7, 10}}, true);
    for (index_t i = 0; i < 6; ++i)
      for (index_t j = 0; j < 8; ++j)
        hc(2 + i, 3 + j) = ha(1 + j, 2 + i);
    CHECK(mismatches(whole(c), hc.v, "copy_patch transposed") == 0);
    // b[3:10, 0:5] = a[1:8, 2:7] (same shape, different places and layouts).
    ga::copy_patch(a, patch{{1, 2}, {8, 7}}, b, patch{{3, 0}, {10, 5}});
    for (index_t i = 0; i < 8; ++i)
      for (index_t j = 0; j < 6; ++j)
        hb(3 + i, j) = ha(1 + i, 2 + j);
    CHECK(mismatches(whole(b), hb.v, "copy_patch") == 0);
    // A column of a into a row of c (extent-1 dimensions dropped).
    ga::copy_patch(a, patch{{0, 4}, {10, 4}}, c, patch{{12, 0}, {12, 10}});
    for (index_t j = 0; j < 11; ++j)
      hc(12, j) = ha(j, 4);
    CHECK(mismatches(whole(c), hc.v, "copy_patch column to row") == 0);
    // Reshape: a[1:4, 2:7] (4 x 6) into c[5:7, 1:8] (3 x 8), element by element row-major.
    ga::copy_patch(a, patch{{1, 2}, {4, 7}}, c, patch{{5, 1}, {7, 8}});
    for (index_t k = 0; k < 24; ++k)
      hc(5 + k / 8, 1 + k % 8) = ha(1 + k / 6, 2 + k % 6);
    CHECK(mismatches(whole(c), hc.v, "copy_patch reshaped") == 0);

    ga::fill_patch(c, patch{{0, 0}, {4, 2}}, T(7));
    ga::zero_patch(c, patch{{5, 9}, {11, 10}});
    ga::scale_patch(c, patch{{3, 1}, {9, 6}}, T(-2));
    for (index_t i = 0; i <= 4; ++i)
      for (index_t j = 0; j <= 2; ++j)
        hc(i, j) = T(7);
    for (index_t i = 5; i <= 11; ++i)
      for (index_t j = 9; j <= 10; ++j)
        hc(i, j) = T(0);
    for (index_t i = 3; i <= 9; ++i)
      for (index_t j = 1; j <= 6; ++j)
        hc(i, j) = static_cast<T>(T(-2) * hc(i, j));
    CHECK(mismatches(whole(c), hc.v, "fill/zero/scale_patch") == 0);

    // c[0:4, 5:10] = 2 a[8:12, 0:5] - 3 b[2:6, 4:9]; then in place on b's patch.
    ga::add_patch(T(2), a, patch{{8, 0}, {12, 5}}, T(-3), b, patch{{2, 4}, {6, 9}}, c,
                  patch{{0, 5}, {4, 10}});
    for (index_t i = 0; i < 5; ++i)
      for (index_t j = 0; j < 6; ++j)
        hc(i, 5 + j) = static_cast<T>(T(2) * ha(8 + i, j) - T(3) * hb(2 + i, 4 + j));
    CHECK(mismatches(whole(c), hc.v, "add_patch") == 0);
    ga::add_patch(T(1), a, patch{{0, 0}, {4, 5}}, T(1), b, patch{{2, 4}, {6, 9}}, b,
                  patch{{2, 4}, {6, 9}});
    for (index_t i = 0; i < 5; ++i)
      for (index_t j = 0; j < 6; ++j)
        hb(2 + i, 4 + j) = static_cast<T>(ha(i, j) + hb(2 + i, 4 + j));
    CHECK(mismatches(whole(b), hb.v, "add_patch in place") == 0);

    // dot of a[1:6, 0:3] (6 x 4) with b[7:10, 2:7]^T (4 x 6 transposed: 6 x 4), both ways.
    using R = ga::dot_result<T>;
    R want{}, plain{};
    for (index_t i = 0; i < 6; ++i)
      for (index_t j = 0; j < 4; ++j) {
        const T x = ha(1 + i, j), y = hb(7 + j, 2 + i);
        if constexpr (is_complex_v<T>) {
          want += std::conj(x) * y;
          plain += x * y;
        } else {
          want += static_cast<R>(x) * static_cast<R>(y);
        }
      }
    const patch pa{{1, 0}, {6, 3}}, pb{{7, 2}, {10, 7}};
    CHECK(near_enough(ga::dot_patch(a, pa, false, b, pb, true), want, 100));
    CHECK(near_enough(ga::dot_patch(b, pb, true, a, pa, false, false),
                      is_complex_v<T> ? plain : want, 100));
    CHECK(gaea::test::all(ghosts_untouched(a) && ghosts_untouched(b) && ghosts_untouched(c)));
  }
}

TEMPLATE_TEST_CASE("ga elementwise: abs, add constant, recip, c = a op b, select_elem",
                   "[ga][elementwise]", double, float, cplx, cplxf, std::int64_t, std::int32_t) {
  using T = TestType;
  const index dims{9, 14};
  const auto lays = layouts(dims);
  for (std::size_t r = 0; r < lays.size(); ++r) {
    const auto& [na, la] = lays[r];
    const auto& [nb, lb] = lays[(r + 2) % lays.size()];
    INFO("A " << na << ", B " << nb);
    global_array<T> a("A", dims, la), b("B", dims, lb), c("C", dims, la);
    fill(a, 4);
    fill(b, 5);
    fill(c, 6);
    auto ha = host_of<T>(dims, 4), hb = host_of<T>(dims, 5), hc = host_of<T>(dims, 6);
    auto each = [&](host<T>& h, const patch& p, auto f) {
      for (index_t i = p.lo[0]; i <= p.hi[0]; ++i)
        for (index_t j = p.lo[1]; j <= p.hi[1]; ++j)
          h(i, j) = f(h(i, j), i, j);
    };
    const patch p{{2, 3}, {7, 12}};
    ga::abs_value(a, p);
    each(ha, p, [](T x, index_t, index_t) {
      if constexpr (is_complex_v<T>)
        return T(std::abs(x), 0);
      else
        return static_cast<T>(x < 0 ? -x : x);
    });
    CHECK(mismatches(whole(a), ha.v, "abs_value patch") == 0);
    ga::add_constant(b, T(3));
    each(hb, ga::whole_patch(b), [](T x, index_t, index_t) { return static_cast<T>(x + T(3)); });
    CHECK(mismatches(whole(b), hb.v, "add_constant") == 0);

    // b without zeros (b + 30 > 0 everywhere) for recip and divide.
    ga::add_constant(b, T(30));
    each(hb, ga::whole_patch(b), [](T x, index_t, index_t) { return static_cast<T>(x + T(30)); });
    global_array<T> d = b.duplicate("D");
    ga::copy(b, d);
    ga::recip(d);
    auto hd = hb;
    each(hd, ga::whole_patch(d), [](T x, index_t, index_t) { return static_cast<T>(T(1) / x); });
    CHECK(mismatches(whole(d), hd.v, "recip") == 0);

    const ga::elem_op ops[] = {ga::elem_op::multiply, ga::elem_op::divide, ga::elem_op::maximum,
                               ga::elem_op::minimum};
    for (ga::elem_op op : ops) {
      INFO("elem_op " << static_cast<int>(op));
      // c[1:6, 0:9] = a[3:8, 4:13] op b[0:5, 2:11]
      ga::elementwise(op, a, patch{{3, 4}, {8, 13}}, b, patch{{0, 2}, {5, 11}}, c,
                      patch{{1, 0}, {6, 9}});
      each(hc, patch{{1, 0}, {6, 9}}, [&](T, index_t i, index_t j) {
        const T u = ha(i + 2, j + 4), v = hb(i - 1, j + 2);
        switch (op) {
          case ga::elem_op::multiply:
            return static_cast<T>(u * v);
          case ga::elem_op::divide:
            return static_cast<T>(u / v);
          case ga::elem_op::maximum:
            return key(v) > key(u) ? v : u;
          case ga::elem_op::minimum:
            return key(v) < key(u) ? v : u;
        }
        return T{};
      });
      CHECK(mismatches(whole(c), hc.v, "elementwise") == 0);
    }
    // Whole arrays, the result being an input.
    ga::elementwise(ga::elem_op::multiply, a, c, c);
    for (std::size_t k = 0; k < hc.v.size(); ++k)
      hc.v[k] = static_cast<T>(ha.v[k] * hc.v[k]);
    CHECK(mismatches(whole(c), hc.v, "elementwise in place") == 0);

    // select_elem over a patch and the whole array; ties to the lowest index.
    for (ga::select_kind kind : {ga::select_kind::max, ga::select_kind::min}) {
      const patch q{{1, 2}, {8, 10}};
      for (const patch& box : {q, ga::whole_patch(c)}) {
        index_t bi = -1, bj = -1;
        for (index_t i = box.lo[0]; i <= box.hi[0]; ++i)
          for (index_t j = box.lo[1]; j <= box.hi[1]; ++j) {
            const bool better =
                bi < 0 || (kind == ga::select_kind::max ? key(hc(i, j)) > key(hc(bi, bj))
                                                        : key(hc(i, j)) < key(hc(bi, bj)));
            if (better) bi = i, bj = j;
          }
        const auto got = ga::select_elem(c, kind, box);
        CHECK(got.where == index{bi, bj});
        CHECK(got.value == hc(bi, bj));
      }
    }
    CHECK(gaea::test::all(ghosts_untouched(a) && ghosts_untouched(b) && ghosts_untouched(c)));
  }
  if constexpr (std::is_integral_v<T>) {  // an integer zero divisor is an error on every rank
    global_array<T> x("X", {10}), z("Z", {10});
    x.fill(T(4));
    z.fill(T(1));
    if (rt().rank() == 0) z.put(patch{{6}, {6}}, std::vector<T>{T(0)});
    z.sync();
    CHECK_THROWS_WITH(ga::elementwise(ga::elem_op::divide, x, z, x),
                      Contains("'Z'") && Contains("integer 0"));
    CHECK_THROWS_WITH(ga::recip(z), Contains("'Z'") && Contains("integer 0"));
  }
}

TEMPLATE_TEST_CASE("ga diagonal: get/set/add/shift/zero diagonal, scale rows/cols, symmetrize",
                   "[ga][diagonal]", double, float, cplx, cplxf, std::int64_t, std::int32_t) {
  using T = TestType;
  for (const index& dims : {index{13, 11}, index{9, 15}}) {
    const index_t m = dims[0], n = dims[1], k = std::min(m, n);
    const auto lays = layouts(dims);
    const auto vlays = layouts(index{std::max(m, n)});
    for (std::size_t r = 0; r < lays.size(); ++r) {
      const auto& [na, la] = lays[r];
      const auto& lv = vlays[r % vlays.size()].second;
      INFO("dims " << format_index(dims) << ", A " << na);
      global_array<T> a("A", dims, la), v("V", {k}, lv), rows("R", {m}, lv), cols("K", {n}, lv);
      fill(a, 1);
      fill(v, 2);
      fill(rows, 3);
      fill(cols, 4);
      auto ha = host_of<T>(dims, 1);
      const auto hv = reference<T>({k}, 2), hr = reference<T>({m}, 3), hk = reference<T>({n}, 4);
      global_array<T> g("G", {k}, lv);
      ga::get_diagonal(a, g);
      std::vector<T> want(static_cast<std::size_t>(k));
      for (index_t i = 0; i < k; ++i)
        want[static_cast<std::size_t>(i)] = ha(i, i);
      CHECK(mismatches(whole(g), want, "get_diagonal") == 0);
      ga::add_diagonal(a, v);
      for (index_t i = 0; i < k; ++i)
        ha(i, i) = static_cast<T>(ha(i, i) + hv[static_cast<std::size_t>(i)]);
      CHECK(mismatches(whole(a), ha.v, "add_diagonal") == 0);
      ga::shift_diagonal(a, T(5));
      for (index_t i = 0; i < k; ++i)
        ha(i, i) = static_cast<T>(ha(i, i) + T(5));
      CHECK(mismatches(whole(a), ha.v, "shift_diagonal") == 0);
      ga::scale_rows(a, rows);
      ga::scale_cols(a, cols);
      for (index_t i = 0; i < m; ++i)
        for (index_t j = 0; j < n; ++j)
          ha(i, j) = static_cast<T>(ha(i, j) * hr[static_cast<std::size_t>(i)] *
                                    hk[static_cast<std::size_t>(j)]);
      CHECK(mismatches(whole(a), ha.v, "scale_rows/cols", 1000) == 0);
      ga::set_diagonal(a, v);
      for (index_t i = 0; i < k; ++i)
        ha(i, i) = hv[static_cast<std::size_t>(i)];
      CHECK(mismatches(whole(a), ha.v, "set_diagonal") == 0);
      ga::zero_diagonal(a);
      for (index_t i = 0; i < k; ++i)
        ha(i, i) = T(0);
      CHECK(mismatches(whole(a), ha.v, "zero_diagonal") == 0);
      CHECK(gaea::test::all(ghosts_untouched(a) && ghosts_untouched(v)));
    }
  }
  const index sq{12, 12};
  for (const auto& [name, lay] : layouts(sq)) {
    INFO("symmetrize on " << name);
    global_array<T> s("S", sq, lay);
    fill(s, 7);
    auto h = host_of<T>(sq, 7), orig = h;
    for (index_t i = 0; i < 12; ++i)
      for (index_t j = 0; j < 12; ++j)
        h(i, j) = static_cast<T>((orig(i, j) + orig(j, i)) / T(2));
    ga::symmetrize(s);
    CHECK(mismatches(whole(s), h.v, "symmetrize") == 0);
    CHECK(gaea::test::all(ghosts_untouched(s)));
  }
  global_array<T> a("A", {4, 6}), v("V", {5});
  CHECK_THROWS_WITH(ga::get_diagonal(a, v), Contains("'V' is [5]") && Contains("must be [4]"));
  CHECK_THROWS_WITH(ga::scale_cols(a, v), Contains("must be [6]"));
  CHECK_THROWS_WITH(ga::symmetrize(a), Contains("square"));
}

TEMPLATE_TEST_CASE("ga scan: scan_add, scan_copy, pack, unpack, patch_enum", "[ga][scan]", double,
                   float, cplx, cplxf, std::int64_t, std::int32_t) {
  using T = TestType;
  const index_t n = 37, lo = 3, hi = 33;
  const auto lays = layouts(index{n});
  for (std::size_t r = 0; r < lays.size(); ++r) {
    const auto& [ns, ls] = lays[r];
    const auto& lm = lays[(r + 1) % lays.size()].second;
    const auto& ld = lays[(r + 2) % lays.size()].second;
    INFO("src " << ns);
    global_array<T> src("S", {n}, ls), dst("D", {n}, ld);
    global_array<std::int32_t> mask("M", {n}, lm);
    fill(src, 1);
    fill(dst, 2);
    // Segments start at 5, 6, 17, 30 (and at lo); mask elements outside [lo, hi] are ignored.
    std::vector<std::int32_t> hm(static_cast<std::size_t>(n), 0);
    for (index_t i : {1, 5, 6, 17, 30, 35})
      hm[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(i % 3 + 1);
    if (rt().rank() == 0) mask.put(patch{{0}, {n - 1}}, hm);
    mask.sync();
    const auto hs = reference<T>({n}, 1), h2 = reference<T>({n}, 2);
    auto starts = [&](index_t i) { return i == lo || hm[static_cast<std::size_t>(i)] != 0; };
    for (int kind = 0; kind < 3; ++kind) {
      std::vector<T> want = h2;
      T acc{};
      for (index_t i = lo; i <= hi; ++i) {
        const T x = hs[static_cast<std::size_t>(i)];
        T& w = want[static_cast<std::size_t>(i)];
        if (kind == 2) {  // copy
          if (starts(i)) acc = x;
          w = acc;
        } else {
          const T before = starts(i) ? T(0) : acc;
          acc = static_cast<T>(before + x);
          w = kind == 0 ? acc : before;
        }
      }
      fill(dst, 2);
      if (kind == 2)
        ga::scan_copy(src, dst, mask, lo, hi);
      else
        ga::scan_add(src, dst, mask, lo, hi, kind == 1);
      CHECK(mismatches(whole(dst), want, kind == 2 ? "scan_copy" : "scan_add", 100) == 0);
    }
    // In place: dst is src.
    global_array<T> inplace("I", {n}, ls);
    fill(inplace, 1);
    ga::scan_copy(inplace, inplace, mask, lo, hi);
    std::vector<T> want = hs;
    T acc{};
    for (index_t i = lo; i <= hi; ++i) {
      if (starts(i)) acc = hs[static_cast<std::size_t>(i)];
      want[static_cast<std::size_t>(i)] = acc;
    }
    CHECK(mismatches(whole(inplace), want, "scan_copy in place") == 0);

    // pack then unpack.
    fill(dst, 2);
    const index_t count = ga::pack(src, dst, mask, lo, hi);
    std::vector<T> packed = h2;
    index_t c = 0;
    for (index_t i = lo; i <= hi; ++i)
      if (hm[static_cast<std::size_t>(i)] != 0)
        packed[static_cast<std::size_t>(c++)] = hs[static_cast<std::size_t>(i)];
    CHECK(count == c);
    CHECK(mismatches(whole(dst), packed, "pack") == 0);
    global_array<T> back("B", {n}, lm);
    fill(back, 3);
    CHECK(ga::unpack(dst, back, mask, lo, hi) == c);
    std::vector<T> unpacked = reference<T>({n}, 3);
    c = 0;
    for (index_t i = lo; i <= hi; ++i)
      if (hm[static_cast<std::size_t>(i)] != 0)
        unpacked[static_cast<std::size_t>(i)] = packed[static_cast<std::size_t>(c++)];
    CHECK(mismatches(whole(back), unpacked, "unpack") == 0);

    ga::patch_enum(dst, 4, 30, T(10), T(3));
    for (index_t i = 4; i <= 30; ++i)
      packed[static_cast<std::size_t>(i)] = static_cast<T>(T(10) + T(3) * T(i - 4));
    CHECK(mismatches(whole(dst), packed, "patch_enum") == 0);
    CHECK(gaea::test::all(ghosts_untouched(src) && ghosts_untouched(dst)));
  }
  global_array<T> s("S", {10}), small("small", {2});
  global_array<std::int64_t> m("M", {10});
  m.fill(1);
  CHECK_THROWS_WITH(ga::pack(s, small, m, 0, 9), Contains("selects 10") && Contains("'small'"));
  CHECK_THROWS_WITH(ga::scan_add(s, s, m, 0, 10, false), Contains("outside"));
  CHECK_THROWS_WITH(ga::pack(s, s, m, 0, 9), Contains("must not be the source"));
}

TEMPLATE_TEST_CASE("ga matmul_patch: patches of op(A) op(B) into a patch of C",
                   "[ga][matmul_patch]", double, float, cplx, cplxf) {
  using T = TestType;
  using ga::mat_op;
  const index da{17, 13}, db{12, 19}, dc{15, 16};
  const auto la = layouts(da), lb = layouts(db), lc = layouts(dc);
  std::vector<mat_op> ops{mat_op::none, mat_op::trans};
  if constexpr (is_complex_v<T>) ops.push_back(mat_op::conj_trans);
  // Every op pair, each on the next rotation of the layouts (every layout serves A, B and C).
  std::size_t r = 0;
  for (mat_op oa : ops)
    for (mat_op ob : ops) {
      r = (r + 1) % la.size();
      {
        INFO("layouts " << r << " ops " << static_cast<char>(oa) << static_cast<char>(ob));
        global_array<T> a("A", da, la[r].second), b("B", db, lb[(r + 1) % lb.size()].second),
            c("C", dc, lc[(r + 2) % lc.size()].second);
        fill(a, 1);
        fill(b, 2);
        fill(c, 3);
        auto ha = host_of<T>(da, 1), hb = host_of<T>(db, 2), hc = host_of<T>(dc, 3);
        // op(A[pa]) is 7 x 5, op(B[pb]) 5 x 9, C[2:8, 4:12].
        const index_t m = 7, k = 5, n = 9;
        const patch pa = oa == mat_op::none ? patch{{3, 2}, {9, 6}} : patch{{3, 2}, {7, 8}};
        const patch pb = ob == mat_op::none ? patch{{1, 4}, {5, 12}} : patch{{1, 4}, {9, 8}};
        auto opa = [&](index_t i, index_t p) {
          T x =
              oa == mat_op::none ? ha(pa.lo[0] + i, pa.lo[1] + p) : ha(pa.lo[0] + p, pa.lo[1] + i);
          if constexpr (is_complex_v<T>)
            if (oa == mat_op::conj_trans) x = std::conj(x);
          return x;
        };
        auto opb = [&](index_t p, index_t j) {
          T x =
              ob == mat_op::none ? hb(pb.lo[0] + p, pb.lo[1] + j) : hb(pb.lo[0] + j, pb.lo[1] + p);
          if constexpr (is_complex_v<T>)
            if (ob == mat_op::conj_trans) x = std::conj(x);
          return x;
        };
        const T alpha = T(2), beta = T(-1);
        ga::matmul_patch(oa, ob, alpha, a, pa, b, pb, beta, c, patch{{2, 4}, {8, 12}});
        for (index_t i = 0; i < m; ++i)
          for (index_t j = 0; j < n; ++j) {
            T s{};
            for (index_t p = 0; p < k; ++p)
              s += opa(i, p) * opb(p, j);
            hc(2 + i, 4 + j) = alpha * s + beta * hc(2 + i, 4 + j);
          }
        CHECK(mismatches(whole(c), hc.v, "matmul_patch", 1000) == 0);
        CHECK(gaea::test::all(ghosts_untouched(c)));
      }
    }
  global_array<double> a("A", {6, 6}), c("C", {6, 6});
  CHECK_THROWS_WITH(ga::matmul_patch(mat_op::none, mat_op::none, 1.0, a, patch{{0, 0}, {2, 3}}, a,
                                     patch{{0, 0}, {2, 3}}, 0.0, c, patch{{0, 0}, {2, 3}}),
                    Contains("shapes do not fit"));
  CHECK_THROWS_WITH(ga::matmul_patch(mat_op::none, mat_op::none, 1.0, a, patch{{0, 0}, {2, 6}}, a,
                                     patch{{0, 0}, {2, 3}}, 0.0, c, patch{{0, 0}, {2, 3}}),
                    Contains("'A'") && Contains("outside"));
}

TEMPLATE_TEST_CASE("ga norm one: sum of magnitudes, max column sum for matrices", "[ga][norm]",
                   double, cplx, std::int32_t) {
  using T = TestType;
  for (const index& dims : {index{29}, index{13, 11}}) {
    for (const auto& [name, lay] : layouts(dims)) {
      INFO(name << " " << format_index(dims));
      global_array<T> a("A", dims, lay);
      fill(a, 3);
      const auto h = reference<T>(dims, 3);
      double want = 0;
      if (dims.size() == 1) {
        for (const T& x : h)
          want += mag(x);
      } else {
        for (index_t j = 0; j < dims[1]; ++j) {
          double s = 0;
          for (index_t i = 0; i < dims[0]; ++i)
            s += mag(h[static_cast<std::size_t>(i * dims[1] + j)]);
          want = std::max(want, s);
        }
      }
      CHECK(std::abs(ga::norm(a, ga::norm_kind::one) - want) <= 1e-9 * want);
    }
  }
}

TEST_CASE("ga patch ops: errors name the arrays, patches and shapes", "[ga][patch_ops][errors]") {
  global_array<double> a("alpha", {6, 4}), b("beta", {4, 6}), t("three", {3, 3, 3});
  CHECK_THROWS_WITH(ga::copy_patch(a, patch{{0, 0}, {2, 3}}, b, patch{{0, 0}, {2, 2}}),
                    Contains("patch shapes differ") && Contains("'alpha'[0:2, 0:3] is [3, 4]") &&
                        Contains("'beta'[0:2, 0:2] is [3, 3]"));
  CHECK_THROWS_WITH(ga::copy_patch(a, patch{{0, 0}, {2, 3}}, a, patch{{1, 0}, {3, 3}}),
                    Contains("overlaps"));
  CHECK_THROWS_WITH(
      ga::copy_patch(t, patch{{0, 0, 0}, {1, 1, 1}}, t, patch{{0, 0, 0}, {1, 1, 1}}, true),
      Contains("cannot be transposed"));
  CHECK_THROWS_WITH(ga::fill_patch(a, patch{{0, 0}, {6, 3}}, 1.0),
                    Contains("'alpha'") && Contains("outside"));
  CHECK_THROWS_WITH(ga::dot_patch(a, patch{{0, 0}, {1, 1}}, false, b, patch{{0, 0}, {1, 2}}, false),
                    Contains("ga::dot_patch"));
  // Every rank is still in step.
  ga::fill_patch(a, ga::whole_patch(a), 2.0);
  CHECK(ga::norm(a, ga::norm_kind::one) == 12.0);
}
