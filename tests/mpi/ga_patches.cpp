// put/get/acc on random patches against a serial reference, for every element type, 1-D to 3-D.
// All ranks draw the same random operations (same seed); each operation is carried out by one
// rank (or by all, for accumulates) and every rank applies it to its full local reference copy.
#include <catch2/catch.hpp>

#include <complex>
#include <random>

#include "gaea/ga/global_array.hpp"
#include "gaea/ga/protocol.hpp"
#include "test_support.hpp"

using namespace gaea;
using gaea::ga::index;
using gaea::ga::index_t;
using gaea::ga::patch;
using gaea::test::rt;

namespace {

struct reference {
  index dims;
  std::vector<double> v;
  explicit reference(const index& d) : dims(d) {
    index_t n = 1;
    for (auto x : d)
      n *= x;
    v.assign(static_cast<std::size_t>(n), 0.0);
  }
  index_t offset(const index& e) const {
    index_t o = 0;
    for (std::size_t d = 0; d < dims.size(); ++d)
      o = o * dims[d] + e[d];
    return o;
  }
  template <class Fn>
  void each(const patch& p, Fn&& fn) const {  // fn(global offset, patch-local row-major offset)
    index e = p.lo;
    index_t k = 0;
    while (true) {
      fn(offset(e), k++);
      int d = static_cast<int>(dims.size()) - 1;
      for (; d >= 0; --d) {
        const auto i = static_cast<std::size_t>(d);
        if (++e[i] <= p.hi[i]) break;
        e[i] = p.lo[i];
      }
      if (d < 0) break;
    }
  }
};

patch random_patch(std::mt19937_64& g, const index& dims) {
  patch p{index(dims.size()), index(dims.size())};
  for (std::size_t d = 0; d < dims.size(); ++d) {
    std::uniform_int_distribution<index_t> u(0, dims[d] - 1);
    index_t a = u(g), b = u(g);
    switch (g() % 6) {  // edges, single elements and whole extents more often than chance
      case 0:
        a = 0;
        break;
      case 1:
        b = dims[d] - 1;
        break;
      case 2:
        b = a;
        break;
      case 3:
        a = 0, b = dims[d] - 1;
        break;
      default:
        break;
    }
    p.lo[d] = std::min(a, b);
    p.hi[d] = std::max(a, b);
  }
  return p;
}

// Values are small integers, exact in every type; complex elements carry (v, -v).
template <class T>
T make(double v) {
  if constexpr (ga::detail::is_complex_v<T>)
    return T(static_cast<typename T::value_type>(v), static_cast<typename T::value_type>(-v));
  else
    return static_cast<T>(v);
}
template <class T>
bool equals(const T& x, double v) {
  if constexpr (ga::detail::is_complex_v<T>)
    return static_cast<double>(x.real()) == v && static_cast<double>(x.imag()) == -v;
  else
    return static_cast<double>(x) == v;
}

template <class T>
void run_random_ops(const index& dims, std::uint64_t seed,
                    const ga::layout_spec& spec = ga::layout_spec{}) {
  const int me = rt().rank(), n = rt().size();
  global_array<T> a("random", dims, spec);
  a.zero();
  reference ref(dims);
  std::mt19937_64 g(seed);
  for (int round = 0; round < 12; ++round) {
    // Puts from one rank, chosen round-robin, to a random patch (with a padded buffer: ld).
    const int writer = round % n;
    const patch p = random_patch(g, dims);
    const int nd = static_cast<int>(dims.size());
    // The buffer is padded: leading extents ld[k] = patch extent of dimension k+1, plus 0-2.
    index ld;
    for (int d = 1; d < nd; ++d)
      ld.push_back(p.extent(d) + (round % 3));
    index bstride(static_cast<std::size_t>(nd), 1);  // buffer strides implied by ld
    for (int d = nd - 2; d >= 0; --d)
      bstride[static_cast<std::size_t>(d)] =
          bstride[static_cast<std::size_t>(d) + 1] * ld[static_cast<std::size_t>(d)];
    std::vector<T> buf(static_cast<std::size_t>(p.extent(0) * bstride[0]));
    // Element k of the patch (row-major) goes to the buffer offset of its patch-local index; the
    // reference gets the same value at its global position.
    ref.each(p, [&](index_t off, index_t k) {
      const double v = (round + 1) * 1000 + static_cast<int>(k % 997);
      const T value = make<T>(v);
      index_t boff = 0, rest = k;
      for (int d = nd - 1; d >= 0; --d) {
        boff += rest % p.extent(d) * bstride[static_cast<std::size_t>(d)];
        rest /= p.extent(d);
      }
      buf[static_cast<std::size_t>(boff)] = value;
      ref.v[static_cast<std::size_t>(off)] = v;
    });
    if (me == writer) a.put(p, buf, ld);
    a.sync();

    // Every rank accumulates small integers into a random patch (exact in every type).
    const patch q = random_patch(g, dims);
    std::vector<T> inc(static_cast<std::size_t>(q.elements()));
    for (std::size_t i = 0; i < inc.size(); ++i)
      inc[i] = make<T>(1 + static_cast<int>(i % 5));
    const T alpha = static_cast<T>(2);
    a.acc(q, inc, alpha);
    ref.each(q, [&](index_t off, index_t k) {
      ref.v[static_cast<std::size_t>(off)] += 2.0 * n * (1 + static_cast<int>(k % 5));
    });
    a.sync();

    // Every rank reads several random patches and compares with the reference.
    for (int k = 0; k < 4; ++k) {
      const patch r = random_patch(g, dims);
      std::vector<T> got(static_cast<std::size_t>(r.elements()), make<T>(-7));
      a.get(r, got);
      bool same = true;
      ref.each(r, [&](index_t off, index_t i) {
        same =
            same && equals(got[static_cast<std::size_t>(i)], ref.v[static_cast<std::size_t>(off)]);
      });
      INFO("rank " << me << " round " << round << " get " << r.str() << " (put " << p.str()
                   << ", acc " << q.str() << ")");
      REQUIRE(same);
    }
    a.sync();
  }
  // Every local tile seen through local_tiles() matches the reference too (zero copy).
  for (const auto& t : a.local_tiles()) {
    bool same = true;
    ref.each(t.box, [&](index_t off, index_t) {
      index e = t.box.lo;
      index_t rest = off;
      for (std::size_t d = dims.size(); d-- > 0;) {
        e[d] = rest % dims[d];
        rest /= dims[d];
      }
      same = same && equals(t.at(e), ref.v[static_cast<std::size_t>(off)]);
    });
    CHECK(same);
  }
}

}  // namespace

TEMPLATE_TEST_CASE("global_array: random put/get/acc patches match a serial reference", "[ga]",
                   double, float, std::int64_t, std::int32_t, std::complex<double>,
                   std::complex<float>) {
  SECTION("1-D") {
    run_random_ops<TestType>({97}, 11);
  }
  SECTION("2-D") {
    run_random_ops<TestType>({23, 17}, 12);
  }
  SECTION("2-D tall-skinny") {
    run_random_ops<TestType>({300, 3}, 13);
  }
  SECTION("3-D") {
    run_random_ops<TestType>({6, 7, 5}, 14);
  }
}

// Every distribution, checked the same way.
TEMPLATE_TEST_CASE("global_array: random patches on irregular, block-cyclic and ghosted layouts",
                   "[ga][layout]", double, std::int32_t, std::complex<double>,
                   std::complex<float>) {
  const int n = rt().size();
  SECTION("irregular 2-D, uneven blocks") {
    // Row blocks 0..2, 3..19, 20..22 on up to 3 ranks; one column block.
    std::vector<index_t> rows{0};
    if (n >= 2) rows.push_back(3);
    if (n >= 3) rows.push_back(20);
    run_random_ops<TestType>({23, 17}, 21, ga::layout_spec::irregular({rows, {0}}));
  }
  SECTION("irregular 3-D, a rank may own nothing") {
    std::vector<index_t> d0{0};
    if (n >= 2) d0.push_back(5);
    run_random_ops<TestType>({6, 7, 5}, 22, ga::layout_spec::irregular({d0, {0}, {0}}));
  }
  SECTION("block-cyclic 2-D, tiles not dividing the extents") {
    run_random_ops<TestType>({23, 17}, 23, ga::layout_spec::block_cyclic({4, 3}));
  }
  SECTION("block-cyclic 2-D, 1 x P grid") {
    run_random_ops<TestType>({9, 31}, 24, ga::layout_spec::block_cyclic({2, 5}, {1, n}));
  }
  SECTION("block with ghosts") {
    run_random_ops<TestType>({23, 17}, 25, ga::layout_spec::block().with_ghosts({2, 1}));
  }
  SECTION("irregular 3-D with ghosts") {
    std::vector<index_t> d0{0};
    if (n >= 2) d0.push_back(2);
    run_random_ops<TestType>({6, 7, 5}, 26,
                             ga::layout_spec::irregular({d0, {0}, {0}}).with_ghosts({1, 1, 1}));
  }
}

TEST_CASE("global_array: every rank accumulates into the same patch at once, exactly",
          "[ga][acc]") {
  const int n = rt().size();
  global_array<std::int64_t> a("hot", {40, 40});
  global_array<std::int32_t> b("hot32", {1000});
  a.zero();
  b.zero();
  const patch p{{5, 5}, {34, 36}};  // spans all owners
  std::vector<std::int64_t> ones(static_cast<std::size_t>(p.elements()), 1);
  std::vector<std::int32_t> threes(1000, 3);
  constexpr int k = 25;
  for (int i = 0; i < k; ++i) {
    a.acc(p, ones, std::int64_t{1});
    b.acc({{0}, {999}}, threes, 2);
  }
  a.sync();
  b.sync();
  std::vector<std::int64_t> got(static_cast<std::size_t>(p.elements()));
  a.get(p, got);
  for (auto x : got)
    REQUIRE(x == std::int64_t{k} * n);
  std::vector<std::int64_t> corner(1);
  a.get({{0, 0}, {0, 0}}, corner);
  CHECK(corner[0] == 0);
  std::vector<std::int32_t> all(1000);
  b.get({{0}, {999}}, all);
  for (auto x : all)
    REQUIRE(x == 6 * k * n);
  const auto s = ga::current_stats();
  if (n > 1) CHECK(s.accs_served + s.accs_direct > 0);  // by message or straight in
}

TEST_CASE("global_array: conflict tracking fences only the array that was written", "[ga][fence]") {
  // Accumulates added straight into a mapped owner complete on return and leave nothing to
  // fence: this test is about the tracker, so they travel by message.
  const ga::scoped_acc_protocol by_message(ga::acc_protocol::target_driven);
  const int me = rt().rank(), n = rt().size();
  global_array<double> w("written", {64}), r("read", {64});
  w.zero();
  r.fill(5.0);
  const int target = (me + 1) % n;
  const patch tp = w.distribution(target);
  const auto before = ga::current_stats();
  std::vector<double> ones(static_cast<std::size_t>(tp.elements()), 1.0);
  w.acc(tp, ones);
  // A get of another array from the same target needs no fence.
  std::vector<double> rv(static_cast<std::size_t>(tp.elements()));
  r.get(tp, rv);
  const auto mid = ga::current_stats();
  CHECK(mid.flushes_issued == before.flushes_issued);
  if (target != me) CHECK(mid.flushes_avoided > before.flushes_avoided);
  CHECK(rv[0] == 5.0);
  // A get of the written array from that target must see the accumulate (location consistency).
  std::vector<double> wv(static_cast<std::size_t>(tp.elements()));
  w.get(tp, wv);
  const auto after = ga::current_stats();
  // Accumulates to oneself are applied in place and need no fence.
  CHECK(after.flushes_issued == mid.flushes_issued + (target != me ? 1 : 0));
  for (double x : wv)
    REQUIRE(x >= 1.0);  // ours is there (others' may be too)
  w.sync();
}

// Blocking gets and puts of one row (the case a mapped owner serves as one copy) against the
// non-blocking forms of the same patches, which take the general path: same data, and each
// call counted once with its bytes whichever path served it. Rows inside one tile, rows that
// cross into the next tile, and rows of a ghosted and of a block-cyclic layout.
TEST_CASE("global_array: blocking single-row get and put agree with the general path",
          "[ga][rows]") {
  const int me = rt().rank(), n = rt().size();
  const index_t cols = 8 * n + 5;
  for (const auto& spec : {ga::layout_spec{}, ga::layout_spec::block().with_ghosts({1, 2}),
                           ga::layout_spec::block_cyclic({3, 4})}) {
    global_array<std::int64_t> a("rows", {7, cols}, spec);
    a.zero();
    // Each rank writes its own row with blocking puts of uneven pieces (some cross tiles).
    const index_t row = me % 7;
    if (me < 7)
      for (index_t c0 = 0; c0 < cols;) {
        const index_t c1 = std::min(cols - 1, c0 + c0 % 5 + 1);
        std::vector<std::int64_t> v(static_cast<std::size_t>(c1 - c0 + 1));
        for (index_t c = c0; c <= c1; ++c)
          v[static_cast<std::size_t>(c - c0)] = 1000 * (row + 1) + c;
        const auto before = ga::current_stats().of(ga::op::put);
        a.put({{row, c0}, {row, c1}}, v);
        const auto after = ga::current_stats().of(ga::op::put);
        REQUIRE(after.calls == before.calls + 1);
        REQUIRE(after.bytes == before.bytes + v.size() * sizeof(std::int64_t));
        c0 = c1 + 1;
      }
    a.sync();
    for (index_t r = 0; r < std::min<index_t>(n, 7); ++r)
      for (index_t c0 = 0; c0 < cols; c0 += 3) {
        const index_t c1 = std::min(cols - 1, c0 + 1 + (c0 + r) % 6);
        const patch p{{r, c0}, {r, c1}};
        std::vector<std::int64_t> blocking(static_cast<std::size_t>(c1 - c0 + 1), -1);
        std::vector<std::int64_t> general(blocking.size(), -2);
        const auto before = ga::current_stats().of(ga::op::get);
        a.get(p, blocking);
        const auto after = ga::current_stats().of(ga::op::get);
        REQUIRE(after.calls == before.calls + 1);
        REQUIRE(after.bytes == before.bytes + blocking.size() * sizeof(std::int64_t));
        a.get(p, general, ga::nonblocking).wait();
        INFO("rank " << me << " row patch " << p.str());
        REQUIRE(blocking == general);
        for (index_t c = c0; c <= c1; ++c)
          REQUIRE(blocking[static_cast<std::size_t>(c - c0)] == 1000 * (r + 1) + c);
      }
    a.sync();
  }
}
