// Shared counters, task counters and task pools: every id handed out exactly once for
// every mode and variant, with ranks of different speeds, several threads per rank, ranges near
// the int64 limits, end-of-range behaviour and bad input.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <numeric>
#include <string>
#include <thread>

#include "gaea/coll/collectives.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/counters/shared_counter.hpp"
#include "gaea/counters/task_counter.hpp"
#include "gaea/counters/task_pool.hpp"
#include "gaea/progress/engine.hpp"
#include "test_support.hpp"

using namespace gaea;
using namespace gaea::counters;
using Catch::Matchers::Contains;
using gaea::test::rt;

namespace {
constexpr counter_mode all_modes[] = {counter_mode::atomic, counter_mode::progress,
                                      counter_mode::owner};
constexpr dispense all_variants[] = {dispense::single, dispense::batched, dispense::hierarchical};
constexpr std::int64_t i64max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t i64min = std::numeric_limits<std::int64_t>::min();

// All ranks' ranges (begin, end pairs), gathered over coll::world() (whose wait keeps serving
// peers: with GAEA_PROGRESS=off or owner-served counters every rank serves until all are done).
std::vector<task_range> gather_ranges(const std::vector<task_range>& mine) {
  const auto counts = gaea::test::allgather(static_cast<std::int64_t>(2 * mine.size()));
  std::int64_t total = 0;
  for (std::int64_t c : counts)
    total += c;
  std::vector<std::int64_t> flat, all(static_cast<std::size_t>(total));
  for (const task_range& r : mine)
    flat.insert(flat.end(), {r.begin, r.end});
  coll::allgatherv(coll::world(), std::span<const std::int64_t>(flat), std::span<std::int64_t>(all),
                   counts);
  std::vector<task_range> out;
  for (std::size_t i = 0; i < all.size(); i += 2)
    out.push_back({all[i], all[i + 1]});
  return out;
}

// True when the ranges are non-empty, disjoint and cover exactly [all.begin, all.end).
bool exact_cover(std::vector<task_range> rs, task_range all) {
  std::sort(rs.begin(), rs.end(), [](auto& a, auto& b) { return a.begin < b.begin; });
  std::int64_t at = all.begin;
  for (const task_range& r : rs) {
    if (r.empty() || r.begin != at) return false;
    at = r.end;
  }
  return at == all.end;
}

// Takes ranges until empty, sleeping now and then on odd ranks (ranks of different speeds).
void drain(task_counter& c, std::vector<task_range>& out, bool slow) {
  for (int i = 0;; ++i) {
    const task_range r = c.next();
    if (r.empty()) break;
    out.push_back(r);
    if (slow && i % 20 == 0) std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}
}  // namespace

TEST_CASE("shared_counter: every value is handed out exactly once, in every mode", "[counter]") {
  const int me = rt().rank(), n = rt().size();
  for (counter_mode m : all_modes)
    for (int owner : {0, n - 1}) {
      INFO("mode " << to_string(m) << ", owner " << owner);
      shared_counter c("tasks", owner, 0, m);
      CHECK(c.mode() == m);
      constexpr int k = 100;
      std::vector<task_range> mine;
      for (int i = 0; i < k; ++i) {
        const std::int64_t v = c.fetch_add(1);
        mine.push_back({v, v + 1});
        if (me % 2 == 1 && i % 25 == 0) std::this_thread::sleep_for(std::chrono::microseconds(500));
      }
      CHECK(exact_cover(gather_ranges(mine), {0, std::int64_t{k} * n}));
      rt().barrier();
      CHECK(c.read() == std::int64_t{k} * n);
    }
}

TEST_CASE("shared_counter: non-blocking fetch_add hands out every value once, in every mode",
          "[counter][nb]") {
  const int me = rt().rank(), n = rt().size();
  for (counter_mode m : all_modes)
    for (int owner : {0, n - 1}) {
      INFO("mode " << to_string(m) << ", owner " << owner);
      shared_counter c("nb_tasks", owner, 5, m);
      // k requests in flight at once, increments 1..3; some completed by test(), all by wait().
      constexpr int k = 150;
      std::vector<fetch_request> reqs;
      std::vector<std::int64_t> incs;
      for (int i = 0; i < k; ++i) {
        incs.push_back(1 + (i + me) % 3);
        reqs.push_back(c.fetch_add(incs.back(), nonblocking));
        if (i % 10 == 0) (void)reqs.front().test();
      }
      CHECK(reqs.back().pending() == !reqs.back().test());
      std::vector<task_range> mine;
      for (int i = 0; i < k; ++i) {
        const std::int64_t v = reqs[static_cast<std::size_t>(i)].wait();
        CHECK(reqs[static_cast<std::size_t>(i)].wait() == v);  // the value is kept
        CHECK_FALSE(reqs[static_cast<std::size_t>(i)].pending());
        mine.push_back({v, v + incs[static_cast<std::size_t>(i)]});
      }
      std::int64_t total = 0;
      for (std::int64_t x :
           gaea::test::allgather(std::accumulate(incs.begin(), incs.end(), std::int64_t{0})))
        total += x;
      // The ranges [old, old + inc) of every rank tile [5, 5 + total) exactly.
      CHECK(exact_cover(gather_ranges(mine), {5, 5 + total}));
      rt().barrier();
      CHECK(c.read() == 5 + total);
      rt().barrier();  // everyone has read before anyone adds again
      // Mixed with blocking calls on the same counter.
      fetch_request r = c.fetch_add(2, nonblocking);
      const std::int64_t b = c.fetch_add(0);
      CHECK(r.wait() <= b);
      rt().barrier();
    }
  shared_counter c("nb_errors");
  CHECK_THROWS_WITH(c.fetch_add(-1, nonblocking),
                    Contains("nb_errors") && Contains("-1") && Contains(">= 0"));
  fetch_request empty;
  CHECK(empty.test());
  CHECK_FALSE(empty.pending());
  CHECK_THROWS_WITH(empty.wait(), Contains("empty"));
  // Another thread may not wait for this thread's request.
  fetch_request mine = c.fetch_add(1, nonblocking);
  std::string from_other;
  std::thread([&] {
    try {
      (void)mine.wait();
    } catch (const gaea::error& e) {
      from_other = e.what();
    }
  }).join();
  CHECK_THAT(from_other, Contains("nb_errors") && Contains("other than the one"));
  (void)mine.wait();
  rt().barrier();
}

TEST_CASE("shared_counter: compare-swap, reset and values past 2^63 in every mode", "[counter]") {
  const int n = rt().size();
  for (counter_mode m : all_modes) {
    INFO("mode " << to_string(m));
    constexpr std::int64_t start = i64max - 500;
    shared_counter c("big", n - 1, start, m);
    const std::int64_t got = c.fetch_add(1000);  // crosses 2^63: wraps like the hardware
    CHECK((static_cast<std::uint64_t>(got) - static_cast<std::uint64_t>(start)) % 1000 == 0);
    rt().barrier();
    CHECK(static_cast<std::uint64_t>(c.read()) ==
          static_cast<std::uint64_t>(start) + 1000u * static_cast<unsigned>(n));
    c.reset(42);
    CHECK(c.read() == 42);
    rt().barrier();
    // Exactly one rank wins a compare-swap race.
    const bool won = c.compare_swap(42, -1) == 42;
    const auto wins = gaea::test::allgather(static_cast<std::int64_t>(won));
    CHECK(std::count(wins.begin(), wins.end(), 1) == 1);
    CHECK(c.read() == -1);
    rt().barrier();
  }
}

TEST_CASE("task_counter: exactly once for every mode and variant, ranks of different speeds",
          "[counter][task_counter]") {
  const int me = rt().rank();
  for (counter_mode m : all_modes)
    for (dispense d : all_variants) {
      INFO("mode " << to_string(m) << ", variant " << to_string(d));
      task_counter_options o;
      o.mode = m;
      o.variant = d;
      o.owner = task_counter_options::spread;
      const task_range all{-300, 700};
      task_counter c("work", all, o);
      std::vector<task_range> mine;
      drain(c, mine, me % 2 == 1);
      CHECK(c.next().empty());  // end of range: stays empty, without communicating
      const std::int64_t fetches = c.global_fetches();
      CHECK(c.next().empty());
      CHECK(c.global_fetches() == fetches);
      CHECK(exact_cover(gather_ranges(mine), all));
      // Reuse with a new range, then an empty one.
      mine.clear();
      c.reset(37);
      drain(c, mine, false);
      CHECK(exact_cover(gather_ranges(mine), {0, 37}));
      c.reset(0);
      CHECK(c.next().empty());
      rt().barrier();
    }
}

TEST_CASE("task_counter: several threads per rank take ranges concurrently",
          "[counter][task_counter][threads]") {
  const int me = rt().rank();
  constexpr int nthreads = 3;
  for (counter_mode m : all_modes)
    for (dispense d : all_variants) {
      INFO("mode " << to_string(m) << ", variant " << to_string(d));
      task_counter_options o;
      o.mode = m;
      o.variant = d;
      o.threads_per_rank = nthreads;
      task_counter c("threads", 900, o);
      std::vector<std::vector<task_range>> per(nthreads);
      std::atomic<int> done{0};
      std::vector<std::thread> ts;
      for (int t = 1; t < nthreads; ++t)
        ts.emplace_back([&, t] {
          drain(c, per[static_cast<std::size_t>(t)], (me + t) % 2 == 1);
          ++done;
        });
      drain(c, per[0], me % 2 == 1);
      // Wait inside Gaea: an owner-served counter needs this main thread to answer.
      rt().progress().wait_until(rt().worker(), [&] { return done.load() == nthreads - 1; });
      for (auto& t : ts)
        t.join();
      std::vector<task_range> mine;
      for (auto& v : per)
        mine.insert(mine.end(), v.begin(), v.end());
      CHECK(exact_cover(gather_ranges(mine), {0, 900}));
    }
}

TEST_CASE("task_counter: ranges at the int64 limits do not overflow", "[counter][task_counter]") {
  for (dispense d : {dispense::batched, dispense::hierarchical})
    for (task_range all : {task_range{i64max - 777, i64max}, task_range{i64min, i64min + 555},
                           task_range{0, i64max}, task_range{-1, i64max - 1}}) {
      INFO("variant " << to_string(d) << ", [" << all.begin << ", " << all.end << ")");
      task_counter_options o;
      o.mode = counter_mode::atomic;
      o.variant = d;
      task_counter c("limits", all, o);
      std::vector<task_range> mine;
      drain(c, mine, false);  // guided chunks: a few hundred fetches even for 2^63 - 1 ids
      CHECK(exact_cover(gather_ranges(mine), all));
    }
}

TEST_CASE("task_pool: every task runs once, on oneTBB and on std::threads, in every mode",
          "[counter][task_pool]") {
  const int me = rt().rank(), n = rt().size();
  constexpr std::int64_t ntasks = 400;
  for (pool_executor ex : {pool_executor::tbb, pool_executor::threads})
    for (counter_mode m : all_modes)
      for (dispense d : all_variants) {
        // std::threads: the owner-served mode, where the main thread must keep answering.
        if (ex == pool_executor::threads && m != counter_mode::owner) continue;
        INFO("executor " << (ex == pool_executor::tbb ? "tbb" : "threads") << ", mode "
                         << to_string(m) << ", variant " << to_string(d));
        task_pool_options o;
        o.counter.mode = m;
        o.counter.variant = d;
        o.threads = 2;
        o.executor = ex;
        task_pool pool("pool", o);
        REQUIRE(pool.threads() == 2);
        std::vector<int> ran(static_cast<std::size_t>(ntasks), 0);
        std::vector<std::atomic<int>> busy(2);
        std::atomic<bool> shared_slot{false};
        const task_stats s = for_each_task(pool, ntasks, [&](std::int64_t t, int w) {
          if (busy[static_cast<std::size_t>(w)].fetch_add(1) != 0) shared_slot = true;
          ++ran[static_cast<std::size_t>(t)];  // distinct t: no two threads write one element
          if (me % 2 == 1 && t % 25 == 0)
            std::this_thread::sleep_for(std::chrono::microseconds(300));
          busy[static_cast<std::size_t>(w)].fetch_sub(1);
        });
        CHECK_FALSE(shared_slot.load());
        coll::allreduce(coll::world(), std::span<int>(ran), coll::reduce_op::sum);
        CHECK(std::all_of(ran.begin(), ran.end(), [](int v) { return v == 1; }));
        const auto tasks = gaea::test::allgather(s.tasks);
        std::int64_t total = 0;
        for (auto t : tasks)
          total += t;
        CHECK(total == ntasks);
        CHECK(s.threads == 2);
        CHECK(s.fetches <= s.tasks);
        CHECK(s.wait_s >= 0);
        // A second run of the same pool (the SCF iterates), with the one-argument form.
        std::atomic<std::int64_t> count{0};
        pool.run(10 * n, [&](std::int64_t) { ++count; });
        const auto counts = gaea::test::allgather(count.load());
        total = 0;
        for (auto t : counts)
          total += t;
        CHECK(total == 10 * n);
        CHECK(pool.total().tasks == s.tasks + count.load());
      }
}

TEST_CASE("counters: bad input and use after destroy throw gaea::error", "[counter][errors]") {
  const int n = rt().size();
  CHECK_THROWS_AS(shared_counter("bad", n), gaea::error);
  CHECK_THROWS_AS(shared_counter("bad", -1), gaea::error);
  shared_counter c("c", 0, 0, counter_mode::progress);
  CHECK_THROWS_WITH(c.fetch_add(-1),
                    Catch::Matchers::Contains("'c'") && Catch::Matchers::Contains("fetch_add(-1)"));
  shared_counter moved(std::move(c));
  CHECK_THROWS_AS(c.fetch_add(1), gaea::error);  // NOLINT(bugprone-use-after-move): on purpose
  CHECK_FALSE(c.valid());
  moved.destroy();
  CHECK_THROWS_WITH(moved.read(), Catch::Matchers::Contains("destroyed"));
  CHECK_THROWS_AS(moved.reset(), gaea::error);

  CHECK_THROWS_WITH(task_counter("neg", -5), Catch::Matchers::Contains("negative size"));
  CHECK_THROWS_WITH(task_counter("huge", task_range{-1, i64max}),
                    Catch::Matchers::Contains("2^63"));
  task_counter_options o;
  o.guided_k = 0;
  CHECK_THROWS_WITH(task_counter("k", 10, o), Catch::Matchers::Contains("guided_k"));
  o = {};
  o.owner = n;
  CHECK_THROWS_AS(task_counter("owner", 10, o), gaea::error);
  o = {};
  o.min_chunk = 4;
  o.max_chunk = 2;
  CHECK_THROWS_AS(task_counter("chunks", 10, o), gaea::error);
  task_counter tc("t", 10);
  tc.destroy();
  CHECK_THROWS_AS(tc.next(), gaea::error);
  CHECK_THROWS_AS(tc.reset(5), gaea::error);

  task_pool_options po;
  po.threads = -1;
  CHECK_THROWS_AS(task_pool("p", po), gaea::error);
  task_pool pool("p");
  CHECK_THROWS_AS(pool.run(-1, [](std::int64_t) {}), gaea::error);
  // A task that throws: the exception comes back on the rank that threw, after the collective.
  const int me = rt().rank();
  bool threw = false;
  try {
    pool.run(20, [me](std::int64_t t) {
      if (me == 0 && t >= 0) throw gaea::error("task failed on purpose");
    });
  } catch (const gaea::error&) {
    threw = true;
  }
  // Rank 0 throws if it ran any task; other ranks never throw.
  if (me != 0) CHECK_FALSE(threw);
  rt().barrier();
}
