// Global arrays beyond patches: non-blocking requests, ghost cells, element lists, read_inc,
// queries, destroy and duplicate, capacity checks and concurrent use from oneTBB workers.
#include <catch2/catch.hpp>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <random>
#include <thread>

#include "gaea/ga/global_array.hpp"
#include "test_support.hpp"

using namespace gaea;
using Catch::Matchers::Contains;
using gaea::ga::index;
using gaea::ga::index_t;
using gaea::ga::patch;
using gaea::test::rt;

namespace {
double f2(index_t i, index_t j) {
  return static_cast<double>(i * 1000 + j);
}
}  // namespace

TEST_CASE("ga: thousands of non-blocking gets and puts outstanding at once", "[ga][nb]") {
  const int me = rt().rank(), n = rt().size();
  const index_t rows = 64, cols = 50;
  global_array<double> a("nb", {rows, cols});
  a.zero();
  // Each rank puts its own rows (rows r with r % n == me), one element per request.
  std::vector<double> vals;
  std::vector<ga::request> reqs;
  vals.reserve(static_cast<std::size_t>(rows * cols));
  for (index_t i = me; i < rows; i += n)
    for (index_t j = 0; j < cols; ++j)
      vals.push_back(f2(i, j));
  std::size_t k = 0;
  for (index_t i = me; i < rows; i += n)
    for (index_t j = 0; j < cols; ++j, ++k)
      reqs.push_back(a.put({{i, j}, {i, j}}, std::span(&vals[k], 1), ga::nonblocking));
  for (auto& r : reqs)
    r.wait();
  CHECK_FALSE(reqs.front().pending());
  a.sync();
  {
    std::vector<double> whole(static_cast<std::size_t>(rows * cols));
    a.get({{0, 0}, {rows - 1, cols - 1}}, whole);
    std::int64_t bad = 0;
    for (index_t i = 0; i < rows; ++i)
      for (index_t j = 0; j < cols; ++j)
        if (whole[static_cast<std::size_t>(i * cols + j)] != f2(i, j) && bad++ == 0)
          UNSCOPED_INFO("after puts: (" << i << ", " << j
                                        << ") = " << whole[static_cast<std::size_t>(i * cols + j)]);
    CHECK(bad == 0);
  }
  // 3200 single-element gets in flight, completed by test() polling and then wait().
  std::vector<double> got(static_cast<std::size_t>(rows * cols), -1.0);
  std::vector<ga::request> gets;
  gets.reserve(got.size());
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j)
      gets.push_back(a.get({{i, j}, {i, j}},
                           std::span(&got[static_cast<std::size_t>(i * cols + j)], 1),
                           ga::nonblocking));
  std::size_t done = 0;
  for (int spin = 0; spin < 100 && done < gets.size(); ++spin)
    done = static_cast<std::size_t>(
        std::count_if(gets.begin(), gets.end(), [](ga::request& r) { return r.test(); }));
  for (auto& r : gets)
    r.wait();
  std::int64_t wrong = 0;
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j)
      if (got[static_cast<std::size_t>(i * cols + j)] != f2(i, j)) {
        if (wrong++ == 0)
          UNSCOPED_INFO("first wrong: (" << i << ", " << j
                                         << ") = " << got[static_cast<std::size_t>(i * cols + j)]);
      }
  CHECK(wrong == 0);
  a.sync();  // everyone has read before anyone accumulates
  // A non-blocking accumulate's buffer is free at once; fence() completes it remotely.
  {
    std::vector<double> ones(static_cast<std::size_t>(rows * cols), 1.0);
    auto r = a.acc({{0, 0}, {rows - 1, cols - 1}}, ones, ga::nonblocking);
    r.wait();
    a.sync();
    std::vector<double> v(1);
    a.get({{rows - 1, cols - 1}, {rows - 1, cols - 1}}, v);
    CHECK(v[0] == f2(rows - 1, cols - 1) + n);
  }
  // A request must be completed by the thread that issued it.
  {
    std::vector<double> v(1);
    auto r = a.get({{0, 0}, {0, 0}}, v, ga::nonblocking);
    bool threw = false;
    std::thread t([&] {
      try {
        r.wait();
      } catch (const gaea::error& e) {
        threw = std::string(e.what()).find("thread") != std::string::npos;
      }
    });
    t.join();
    CHECK(threw);
    r.wait();
    CHECK(v[0] == f2(0, 0) + n);
  }
  a.sync();
}

namespace {
// How check_ghosts completes the update.
enum class ghost_mode {
  blocking,    // update_ghosts()
  wait,        // update_ghosts_async(), read the interiors meanwhile, wait()
  wait_twice,  // ... wait() twice (the second does nothing)
  test_loop,   // test() until true, then wait()
  destroy,     // the handle goes out of scope unwaited (its destructor completes the update)
  move,        // moved into another handle, which is waited
};

// Starts and completes the ghost update of `a` the way `how` says. Returns false if the interior
// read while the update was pending differed from `value`.
template <class Value>
bool complete_ghosts(global_array<double>& a, bool periodic, ghost_mode how, Value&& value) {
  if (how == ghost_mode::blocking) {
    a.update_ghosts(periodic ? ga::boundary::periodic : ga::boundary::fixed);
    return true;
  }
  bool interiors_ok = true;
  {
    ga::ghost_request r =
        a.update_ghosts_async(periodic ? ga::boundary::periodic : ga::boundary::fixed);
    CHECK(r.pending());
    // Interiors may be read while the ghosts are in flight (this is what the overlap is for).
    for (const auto& t : a.local_tiles())
      interiors_ok =
          interiors_ok && t.at(t.box.lo) == value(t.box.lo) && t.at(t.box.hi) == value(t.box.hi);
    switch (how) {
      case ghost_mode::wait:
        r.wait();
        break;
      case ghost_mode::wait_twice:
        r.wait();
        CHECK_FALSE(r.pending());
        r.wait();
        break;
      case ghost_mode::test_loop:
        while (!r.test()) {
        }
        CHECK(r.test());     // stays true
        CHECK(r.pending());  // the closing barrier is still owed
        r.wait();
        break;
      case ghost_mode::move: {
        ga::ghost_request other;
        other.wait();  // an empty handle: nothing to do, not collective
        other = std::move(r);
        CHECK_FALSE(r.pending());  // NOLINT(bugprone-use-after-move): moved-from is empty
        CHECK(other.pending());
        other.wait();
        CHECK_FALSE(other.pending());
        break;
      }
      default:  // destroy: r's destructor waits
        break;
    }
    if (how != ghost_mode::destroy && how != ghost_mode::move) CHECK_FALSE(r.pending());
  }
  return interiors_ok;
}

// Fills the interior of every local tile with f(global index) and the ghosts with -1, updates
// the ghosts and checks every ghost cell: the wrapped neighbour when periodic, untouched (-1)
// outside the array when not.
void check_ghosts(const index& dims, const index& ghosts, bool periodic,
                  ghost_mode how = ghost_mode::blocking) {
  global_array<double> a("ghosted", dims, ga::layout_spec::block().with_ghosts(ghosts));
  const std::size_t nd = dims.size();
  auto value = [&](const index& e) {
    double v = 0;
    for (std::size_t d = 0; d < nd; ++d)
      v = v * 100 + static_cast<double>(e[d]);
    return v;
  };
  a.fill(-1.0);
  for (const auto& t : a.local_tiles()) {
    index e = t.box.lo;
    while (true) {
      t.at(e) = value(e);
      std::size_t d = nd;
      while (d-- > 0) {
        if (++e[d] <= t.box.hi[d]) break;
        e[d] = t.box.lo[d];
      }
      if (d == static_cast<std::size_t>(-1)) break;
    }
  }
  CHECK(complete_ghosts(a, periodic, how, value));
  std::int64_t wrong = 0, checked = 0;
  for (const auto& t : a.local_tiles()) {
    index e(nd);
    for (std::size_t d = 0; d < nd; ++d)
      e[d] = t.box.lo[d] - ghosts[d];
    while (true) {
      bool outside = false, interior = true;
      index w = e;
      for (std::size_t d = 0; d < nd; ++d) {
        if (e[d] < t.box.lo[d] || e[d] > t.box.hi[d]) interior = false;
        if (e[d] < 0 || e[d] >= dims[d]) outside = true;
        w[d] = (e[d] % dims[d] + dims[d]) % dims[d];
      }
      if (!interior) {
        const double want = outside && !periodic ? -1.0 : value(w);
        wrong += t.at(e) != want ? 1 : 0;
        ++checked;
      }
      std::size_t d = nd;
      while (d-- > 0) {
        if (++e[d] <= t.box.hi[d] + ghosts[d]) break;
        e[d] = t.box.lo[d] - ghosts[d];
      }
      if (d == static_cast<std::size_t>(-1)) break;
    }
  }
  INFO("dims " << dims.size() << "-D, periodic " << periodic << ", mode " << static_cast<int>(how)
               << ", " << checked << " ghosts");
  CHECK(wrong == 0);
}
}  // namespace

TEST_CASE("ga: wait_all, test_all and request_group complete many requests", "[ga][nb]") {
  const int me = rt().rank(), n = rt().size();
  const index_t rows = 24, cols = 31;
  global_array<double> a("many", {rows, cols}, ga::layout_spec::block_cyclic({5, 7}));
  a.zero();
  // Puts of this rank's rows, one request per row, owned by a group.
  std::vector<double> vals(static_cast<std::size_t>(rows * cols));
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j)
      vals[static_cast<std::size_t>(i * cols + j)] = f2(i, j);
  ga::request_group puts;
  CHECK(puts.empty());
  puts.add(ga::request());  // an empty request is dropped
  CHECK(puts.empty());
  std::size_t mine = 0;
  for (index_t i = me; i < rows; i += n, ++mine)
    puts.add(a.put({{i, 0}, {i, cols - 1}},
                   std::span<const double>(&vals[static_cast<std::size_t>(i * cols)],
                                           static_cast<std::size_t>(cols)),
                   ga::nonblocking));
  CHECK(puts.size() <= mine);  // requests already complete may be dropped, none added twice
  puts.wait();
  CHECK(puts.empty());
  a.sync();
  // Single-element gets of the whole array: test_all() until done, then wait_all().
  std::vector<double> got(vals.size(), -1.0);
  std::vector<ga::request> gets;
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j)
      gets.push_back(a.get({{i, j}, {i, j}},
                           std::span(&got[static_cast<std::size_t>(i * cols + j)], 1),
                           ga::nonblocking));
  bool all = false;
  for (int spin = 0; spin < 100000 && !all; ++spin)
    all = ga::test_all(gets);
  ga::wait_all(gets);
  CHECK(ga::test_all(gets));
  CHECK(std::none_of(gets.begin(), gets.end(), [](const ga::request& r) { return r.pending(); }));
  CHECK(got == vals);
  // The same through a group's test().
  std::fill(got.begin(), got.end(), -1.0);
  ga::request_group g;
  for (index_t i = 0; i < rows; ++i)
    g.add(a.get({{i, 0}, {i, cols - 1}},
                std::span(&got[static_cast<std::size_t>(i * cols)], static_cast<std::size_t>(cols)),
                ga::nonblocking));
  while (!g.test()) {
  }
  CHECK(g.empty());
  CHECK(got == vals);
  a.sync();
}

TEST_CASE("ga: non-blocking read_inc hands out every value once", "[ga][nb][elements]") {
  const int me = rt().rank(), n = rt().size();
  global_array<std::int64_t> c64(
      "nb_ticket64", {7},
      ga::layout_spec::irregular({n >= 2 ? std::vector<index_t>{0, 3} : std::vector<index_t>{0}}));
  global_array<std::int32_t> c32("nb_ticket32", {2, 2});
  c64.zero();
  c32.zero();
  constexpr int k = 150;
  std::vector<std::int64_t> old64(k, -1);
  std::vector<std::int32_t> old32(k, -1);
  ga::request_group g;
  for (int i = 0; i < k; ++i) {
    g.add(c64.read_inc({5}, 2, old64[static_cast<std::size_t>(i)], ga::nonblocking));
    g.add(c32.read_inc({1, 0}, 1, old32[static_cast<std::size_t>(i)], ga::nonblocking));
  }
  g.wait();
  c64.sync();
  c32.sync();
  // Every rank's old values, through another array: row r holds rank r's.
  global_array<std::int64_t> tickets("nb_tickets", {n, 2 * k});
  std::vector<std::int64_t> mine(old64);
  mine.insert(mine.end(), old32.begin(), old32.end());
  tickets.put({{me, 0}, {me, 2 * k - 1}}, mine);
  tickets.sync();
  std::vector<std::int64_t> all(static_cast<std::size_t>(2 * k * n));
  tickets.get({{0, 0}, {n - 1, 2 * k - 1}}, all);
  std::vector<std::int64_t> got64, got32;
  for (int r = 0; r < n; ++r)
    for (int i = 0; i < 2 * k; ++i)
      (i < k ? got64 : got32).push_back(all[static_cast<std::size_t>(r * 2 * k + i)]);
  std::sort(got64.begin(), got64.end());
  std::sort(got32.begin(), got32.end());
  std::vector<std::int64_t> want64, want32;
  for (int v = 0; v < k * n; ++v)
    want64.push_back(2 * v), want32.push_back(v);
  CHECK(got64 == want64);  // 0, 2, 4, ... each once
  CHECK(got32 == want32);
  std::vector<std::int64_t> fin(1);
  c64.get({{5}, {5}}, fin);
  CHECK(fin[0] == 2 * k * n);
  std::int64_t unused = 0;
  CHECK_THROWS_WITH((void)c64.read_inc({7}, 1, unused, ga::nonblocking),
                    Contains("nb_ticket64") && Contains("outside"));
  c64.sync();
}

TEST_CASE("ga: tile_view(i, j, ...) and tile_span reach the elements at() reaches, ghosts included",
          "[ga][ghosts]") {
  global_array<double> a2("access2", {17, 12}, ga::layout_spec::block().with_ghosts({2, 1}));
  global_array<double> a3("access3", {6, 5, 9}, ga::layout_spec::block().with_ghosts({1, 0, 2}));
  std::int64_t wrong = 0;
  for (const auto& t : a2.local_tiles()) {
    const auto s = t.span<2>();
    CHECK(s.lo(0) == t.box.lo[0]);
    CHECK(s.hi(1) == t.box.hi[1]);
    CHECK(s.ghost(0) == 2);
    for (index_t i = t.box.lo[0] - 2; i <= t.box.hi[0] + 2; ++i)
      for (index_t j = t.box.lo[1] - 1; j <= t.box.hi[1] + 1; ++j) {
        t.at({i, j}) = static_cast<double>(i * 100 + j);
        wrong += &t(i, j) != &t.at({i, j}) || &s(i, j) != &t.at({i, j});
      }
    CHECK_THROWS_WITH(t.span<3>(), Contains("span<3>") && Contains("2 dimensions"));
  }
  for (const auto& t : a3.local_tiles()) {
    const auto s = t.span<3>();
    for (index_t i = t.box.lo[0] - 1; i <= t.box.hi[0] + 1; ++i)
      for (index_t j = t.box.lo[1]; j <= t.box.hi[1]; ++j)
        for (index_t k = t.box.lo[2] - 2; k <= t.box.hi[2] + 2; ++k)
          wrong += &t(i, j, k) != &t.at({i, j, k}) || &s(i, j, k) != &t.at({i, j, k});
  }
  CHECK(wrong == 0);
  a2.sync();
  a3.sync();
}

TEST_CASE("ga: update_ghosts fills edges and corners, periodic or not", "[ga][ghosts]") {
  for (bool periodic : {true, false}) {
    check_ghosts({20, 13}, {2, 1}, periodic);
    check_ghosts({9, 8, 7}, {1, 2, 1}, periodic);
    check_ghosts({50}, {3}, periodic);
    check_ghosts({12, 10}, {0, 2}, periodic);  // ghosts along one dimension only
  }
}

TEST_CASE("ga: update_ghosts_async: wait, wait twice, test, move, destroy unwaited",
          "[ga][ghosts][nb]") {
  for (bool periodic : {true, false})
    for (ghost_mode how : {ghost_mode::wait, ghost_mode::wait_twice, ghost_mode::test_loop,
                           ghost_mode::move, ghost_mode::destroy}) {
      check_ghosts({20, 13}, {2, 1}, periodic, how);
      check_ghosts({9, 8, 7}, {1, 2, 1}, periodic, how);
      check_ghosts({3, 40, 30}, {0, 1, 1}, periodic, how);  // the LBM layout
    }
  // Without ghosts: still collective, nothing to read, complete at once.
  global_array<double> plain("no_ghosts", {10, 10});
  ga::ghost_request r = plain.update_ghosts_async(ga::boundary::fixed);
  CHECK(r.test());
  r.wait();
  CHECK_FALSE(r.pending());
}

TEST_CASE("ga: a ghost update overlaps writes to another array", "[ga][ghosts][nb]") {
  // The LBM pattern: start the update of `cur`, write `next` meanwhile, wait, repeat with the
  // roles swapped; every step's ghosts must be those of the step's own array.
  const index dims{30, 22};
  const auto spec = ga::layout_spec::block().with_ghosts({1, 1});
  global_array<double> x("ping", dims, spec), y("pong", dims, spec);
  global_array<double>*cur = &x, *next = &y;
  for (auto* arr : {cur, next})
    arr->fill(0.0);
  std::int64_t wrong = 0;
  for (int step = 1; step <= 4; ++step) {
    for (const auto& t : cur->local_tiles())
      for (index_t i = t.box.lo[0]; i <= t.box.hi[0]; ++i)
        for (index_t j = t.box.lo[1]; j <= t.box.hi[1]; ++j)
          t.at({i, j}) = step * 10000.0 + f2(i, j);
    ga::ghost_request r = cur->update_ghosts_async(ga::boundary::periodic);
    for (const auto& t : next->local_tiles())
      for (index_t i = t.box.lo[0]; i <= t.box.hi[0]; ++i)
        for (index_t j = t.box.lo[1]; j <= t.box.hi[1]; ++j)
          t.at({i, j}) = -1.0;
    r.wait();
    for (const auto& t : cur->local_tiles())
      for (index_t i = t.box.lo[0] - 1; i <= t.box.hi[0] + 1; ++i)
        for (index_t j = t.box.lo[1] - 1; j <= t.box.hi[1] + 1; ++j) {
          const index_t wi = (i + dims[0]) % dims[0], wj = (j + dims[1]) % dims[1];
          wrong += t.at({i, j}) != step * 10000.0 + f2(wi, wj) ? 1 : 0;
        }
    std::swap(cur, next);
  }
  CHECK(wrong == 0);
}

TEST_CASE("ga: gather, scatter, scatter_acc and read_inc", "[ga][elements]") {
  const int me = rt().rank(), n = rt().size();
  global_array<double> a("elements", {17, 11}, ga::layout_spec::block_cyclic({3, 4}));
  a.zero();
  // Rank r scatters the elements (i, j) with (i + j) % n == r.
  std::vector<index> subs;
  std::vector<double> vals;
  for (index_t i = 0; i < 17; ++i)
    for (index_t j = 0; j < 11; ++j)
      if ((i + j) % n == me) subs.push_back({i, j}), vals.push_back(f2(i, j));
  a.scatter(subs, vals);
  a.sync();
  // Everyone gathers a random list (with repeats) and checks it.
  std::mt19937_64 g(static_cast<std::uint64_t>(me) + 7);
  std::vector<index> probe;
  for (int k = 0; k < 300; ++k)
    probe.push_back({static_cast<index_t>(g() % 17), static_cast<index_t>(g() % 11)});
  std::vector<double> got(probe.size());
  a.gather(probe, got);
  bool ok = true;
  for (std::size_t k = 0; k < probe.size(); ++k)
    ok = ok && got[k] == f2(probe[k][0], probe[k][1]);
  CHECK(ok);
  a.sync();
  // Everyone adds 2 * 1.0 to every element of the first row through scatter_acc.
  std::vector<index> row;
  for (index_t j = 0; j < 11; ++j)
    row.push_back({0, j});
  a.scatter_acc(row, std::vector<double>(11, 1.0), 2.0);
  a.sync();
  std::vector<double> r0(11);
  a.get({{0, 0}, {0, 10}}, r0);
  for (index_t j = 0; j < 11; ++j)
    REQUIRE(r0[static_cast<std::size_t>(j)] == f2(0, j) + 2.0 * n);

  // read_inc hands out every value exactly once, on int64 and int32 arrays.
  global_array<std::int64_t> c64("ticket64", {5});
  global_array<std::int32_t> c32("ticket32", {3, 3});
  c64.zero();
  c32.zero();
  constexpr int k = 200;
  std::vector<std::int64_t> mine;
  for (int i = 0; i < k; ++i) {
    mine.push_back(c64.read_inc({4}, 1));
    mine.push_back(1000000 + c32.read_inc({2, 1}, 3));
  }
  c64.sync();
  std::int64_t count64 = 0, count32 = 0;
  // Collect every rank's tickets through another array: row r holds rank r's.
  global_array<std::int64_t> tickets("tickets", {n, 2 * k});
  tickets.put({{me, 0}, {me, 2 * k - 1}}, mine);
  tickets.sync();
  std::vector<std::int64_t> all(static_cast<std::size_t>(2 * k * n));
  tickets.get({{0, 0}, {n - 1, 2 * k - 1}}, all);
  std::sort(all.begin(), all.end());
  CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());  // no value twice
  for (auto v : all)
    (v >= 1000000 ? count32 : count64)++;
  CHECK(count64 == k * n);
  CHECK(count32 == k * n);
  CHECK(all.front() == 0);
  CHECK(all[static_cast<std::size_t>(k * n - 1)] == k * n - 1);  // 0 .. kn-1 on int64
  CHECK(all.back() == 1000000 + 3 * (k * n - 1));
  std::vector<std::int64_t> fin(1);
  c64.get({{4}, {4}}, fin);
  CHECK(fin[0] == k * n);
  c32.sync();

  // Bad input: nothing is sent, the message names the array and the bounds.
  std::vector<double> one(1);
  CHECK_THROWS_WITH(a.gather(std::vector<index>{{17, 0}}, one),
                    Contains("elements") && Contains("outside"));
  CHECK_THROWS_WITH(a.scatter(std::vector<index>{{1, 1}, {2, 2}}, one), Contains("2 subscripts"));
  CHECK_THROWS_WITH(a.gather(std::vector<index>{{1}}, one), Contains("1 indices"));
  a.sync();
}

TEST_CASE("ga: queries, duplicate, destroy and use after destroy", "[ga][lifecycle]") {
  const int n = rt().size();
  global_array<float> a("orig", {30, 7}, ga::layout_spec::block_cyclic({4, 2}));
  CHECK(a.name() == "orig");
  CHECK(a.owners({{0, 0}, {29, 6}}).size() == static_cast<std::size_t>(n));
  CHECK(a.owner({0, 0}) == 0);
  CHECK(a.owner({4, 0}) ==
        (n >= 2 && a.layout().process_grid()[0] >= 2 ? a.layout().process_grid()[1] : 0));
  std::int64_t tiles = 0;
  for (int r = 0; r < n; ++r)
    tiles += static_cast<std::int64_t>(a.tiles(r).size());
  CHECK(tiles == 8 * 4);  // ceil(30/4) x ceil(7/2)
  CHECK_THROWS_WITH(a.distribution(0), Contains("tiles(rank)"));
  CHECK_THROWS_WITH(a.owner({30, 0}), Contains("orig") && Contains("outside"));
  a.fill(3.0f);
  global_array<float> b = a.duplicate("copy");
  CHECK(b.name() == "copy");
  CHECK(b.layout().spec().type == ga::layout_spec::kind::block_cyclic);
  std::vector<float> v(1);
  b.get({{29, 6}, {29, 6}}, v);
  CHECK(v[0] == 0.0f);  // duplicate does not copy the data
  a.destroy();
  CHECK_FALSE(a.valid());
  CHECK_THROWS_WITH(a.get({{0, 0}, {0, 0}}, v), Contains("orig") && Contains("destroy"));
  CHECK_THROWS_WITH(a.sync(), Contains("used after destroy"));
  global_array<float> moved = std::move(b);
  CHECK_THROWS_WITH(b.dims(), Contains("moved from"));
  moved.sync();
}

TEST_CASE("ga: an array too large for the node fails on every rank with a clear error",
          "[ga][capacity]") {
  // 2^40 doubles = 8 TiB: more than /dev/shm or RAM anywhere this test runs.
  bool threw = false;
  std::string msg;
  try {
    global_array<double> huge("huge", {index_t{1} << 20, index_t{1} << 20});
  } catch (const gaea::error& e) {
    threw = true;
    msg = e.what();
  }
  CHECK(threw);
  CHECK_THAT(msg, Contains("huge") && Contains("MiB") && Contains("nothing was allocated"));
  // The runtime is still usable afterwards.
  global_array<double> small("small", {10});
  small.fill(1.0);
}

TEST_CASE("ga: absurd array sizes fail at once, before any tile table is built", "[ga][capacity]") {
  constexpr index_t big = index_t{1} << 62;
  // The element count times 8 bytes overflows 64 bits: refused without arithmetic overflow.
  CHECK_THROWS_WITH((global_array<double>("overflow", {big, big})),
                    Contains("overflow") && Contains("more than 2^64 bytes") &&
                        Contains("nothing was allocated"));
  // gaea-lu --n 2^26 with small tiles: 2^52 elements whose block-cyclic tile tables used to
  // grow until the OOM killer came; now the capacity check refuses them first.
  const auto cyclic = [] {
    global_array<double> a("cyclic", {index_t{1} << 26, index_t{1} << 26},
                           ga::layout_spec::block_cyclic({16, 16}));
  };
  CHECK_THROWS_WITH(cyclic(),
                    Contains("cyclic") && Contains("MiB") && Contains("nothing was allocated"));
  global_array<double> small("small", {10});
  small.fill(1.0);
}

TEST_CASE("ga: oneTBB workers issue get/put/acc concurrently on one rank", "[ga][tbb]") {
  const int me = rt().rank(), n = rt().size();
  const index_t rows = 48, cols = 40;
  global_array<std::int64_t> a("tbb", {rows, cols}), b("tbb_acc", {rows, cols});
  a.zero();
  b.zero();
  // Rank me writes the rows i with i % n == me, one row per task; every task also accumulates
  // into b and reads back through its own thread's worker.
  auto task = [&](index_t i) {
    std::vector<std::int64_t> row(static_cast<std::size_t>(cols)), back(row.size());
    for (index_t j = 0; j < cols; ++j)
      row[static_cast<std::size_t>(j)] = i * 1000 + j;
    if (i % n == me) {
      a.put({{i, 0}, {i, cols - 1}}, row);
      a.fence();
      a.get({{i, 0}, {i, cols - 1}}, back);  // own write, seen after this thread's fence
      if (back != row) throw std::runtime_error("row read back differs");
    }
    std::vector<std::int64_t> ones(static_cast<std::size_t>(cols), 1);
    b.acc({{i, 0}, {i, cols - 1}}, ones);
    b.fence();
  };
  // oneTBB may get a single thread when mpirun binds the rank to one core, so plain threads
  // make sure that several workers really interleave; rows are split between the two.
  tbb::task_arena arena(4);
  arena.execute([&] { tbb::parallel_for(index_t{0}, rows / 2, task); });
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (index_t i = rows / 2 + t; i < rows; i += 4)
        task(i);
    });
  for (auto& t : threads)
    t.join();
  a.sync();
  b.sync();
  std::vector<std::int64_t> all(static_cast<std::size_t>(rows * cols)),
      sums(static_cast<std::size_t>(rows * cols));
  a.get({{0, 0}, {rows - 1, cols - 1}}, all);
  b.get({{0, 0}, {rows - 1, cols - 1}}, sums);
  bool ok = true;
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j) {
      ok = ok && all[static_cast<std::size_t>(i * cols + j)] == i * 1000 + j;
      ok = ok && sums[static_cast<std::size_t>(i * cols + j)] == n;
    }
  CHECK(ok);
  a.sync();
}

TEST_CASE("ga: a rank list keeps the data on those ranks; irregular block-cyclic tiles",
          "[ga][distribution]") {
  const int me = rt().rank(), n = rt().size();
  // Blocks on the ranks n-1, n-2, ... down to the middle (at least one): the others own nothing.
  ga::layout_spec s = ga::layout_spec::block();
  for (int r = n - 1; r >= n / 2; --r)
    s.ranks.push_back(r);
  global_array<double> a("listed", {9, 7}, s);
  CHECK(a.distribution(me).empty() == (me < n / 2));
  CHECK(a.owner({0, 0}) == n - 1);
  a.zero();
  if (me == 0) a.put({{0, 0}, {8, 6}}, std::vector<double>(63, 2.0));
  a.sync();
  std::vector<double> got(63);
  a.get({{0, 0}, {8, 6}}, got);
  CHECK(got == std::vector<double>(63, 2.0));
  a.sync();
  ga::layout_spec bad = ga::layout_spec::block();
  bad.ranks = {0, 0};
  CHECK_THROWS_WITH(ga::distribution("twice", {4}, n, bad), Contains("appears twice"));

  // Tiles of rows {0..1, 2..8} x columns {0..5, 6}, dealt over a 1 x min(n, 2) grid.
  const int pc = std::min(n, 2);
  const ga::distribution d("tiles", {9, 7}, n,
                           ga::layout_spec::block_cyclic_irregular({{0, 2}, {0, 6}}, {1, pc}));
  CHECK(d.tile_of({5, 6}).box == patch{{2, 6}, {8, 6}});
  CHECK(d.owner({5, 6}) == (pc == 2 ? 1 : 0));
  CHECK(d.owner({1, 0}) == 0);
}
