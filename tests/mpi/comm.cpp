// Transport-level tests: contiguous, strided, atomics, active messages, flush — on every rank
// count, transport and progress mode the helper registers.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstring>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "gaea/comm/context.hpp"
#include "gaea/comm/detail/bootstrap.hpp"
#include "gaea/comm/handler_ids.hpp"
#include "gaea/comm/segment.hpp"
#include "gaea/progress/engine.hpp"
#include "test_support.hpp"

using namespace gaea;
using gaea::test::rt;

TEST_CASE("comm: contiguous and strided put/get reach every rank", "[comm]") {
  const int me = rt().rank(), n = rt().size();
  constexpr std::size_t rows = 16, cols = 24;  // doubles
  comm::segment seg(rt().comm(), rows * cols * sizeof(double) * static_cast<std::size_t>(n),
                    "grid");
  auto& w = rt().worker();
  // Every rank writes a 16x(cols/2) sub-block (strided) into its slot on every target.
  std::vector<double> src(rows * cols);
  std::iota(src.begin(), src.end(), 1000.0 * me);
  comm::completion c;
  for (int t = 0; t < n; ++t)
    w.put_strided(t, seg, static_cast<std::uint64_t>(me) * rows * cols * sizeof(double),
                  cols * sizeof(double), src.data(), cols * sizeof(double),
                  cols / 2 * sizeof(double), rows, c);
  rt().wait(c);
  rt().barrier();
  for (int t = 0; t < n; ++t) {
    std::vector<double> got(rows * cols / 2, -1);
    w.get_strided(t, seg, static_cast<std::uint64_t>((me + 1) % n) * rows * cols * sizeof(double),
                  cols * sizeof(double), got.data(), cols / 2 * sizeof(double),
                  cols / 2 * sizeof(double), rows, c);
    rt().wait(c);
    const int writer = (me + 1) % n;
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t k = 0; k < cols / 2; ++k)
        REQUIRE(got[r * cols / 2 + k] == 1000.0 * writer + static_cast<double>(r * cols + k));
  }
  // The unwritten half of each row stayed zero.
  double tail = -1;
  w.get(me, seg, (cols - 1) * sizeof(double), &tail, sizeof tail, c);
  rt().wait(c);
  CHECK(tail == 0.0);
  rt().barrier();
}

TEST_CASE("comm: a flush carries the bytes of the puts it completes", "[comm][flush]") {
  // A fence after a large put waits as long as the data takes: the flush's completion says how
  // much (what sizes the wait, engine::wait). Direct targets (same node, GAEA_RKEY_PTR=1) complete
  // puts on return and count nothing.
  const int me = rt().rank(), n = rt().size();
  constexpr std::size_t row = 4096, rows = 8;
  comm::segment seg(rt().comm(), 2 * rows * row, "flushed");
  auto& w = rt().worker();
  std::vector<std::byte> src(rows * row, std::byte{7});
  const int first = (me + 1) % n, second = (me + n - 1) % n;
  const auto expected = [&](int t, std::size_t bytes) {
    return w.is_direct(t, seg) ? std::size_t{0} : bytes;
  };
  comm::completion c;
  w.put_strided(first, seg, 0, 2 * row, src.data(), row, row, rows, c);  // 8 rows of 4 KiB
  w.put(first, seg, row, src.data(), 100, c);
  rt().wait(c);
  const std::size_t to_first = expected(first, rows * row + 100);
  CHECK(w.unflushed_bytes(first) == to_first);
  // A get is not flushed: it counts nothing.
  w.get(first, seg, 0, src.data(), row, c);
  rt().wait(c);
  CHECK(w.unflushed_bytes(first) == to_first);
  comm::completion f;
  w.flush(first, f);
  CHECK(w.unflushed_bytes(first) == 0);
  if (!f.done()) CHECK(f.bytes() == to_first);  // a flush done on return is not attached
  rt().wait(f);
  w.flush(first, f);  // nothing since: an empty flush
  CHECK(f.bytes() == 0);
  rt().wait(f);
  // flush_all carries the sum over targets and clears every one.
  w.put(first, seg, 0, src.data(), 300, c);
  w.put(second, seg, row, src.data(), 200, c);
  rt().wait(c);
  const std::size_t both =
      first == second ? expected(first, 500) : expected(first, 300) + expected(second, 200);
  CHECK(w.unflushed_bytes(first) + (first == second ? 0 : w.unflushed_bytes(second)) == both);
  w.flush_all(f);
  CHECK(w.unflushed_bytes(first) == 0);
  CHECK(w.unflushed_bytes(second) == 0);
  if (!f.done()) CHECK(f.bytes() == both);
  rt().wait(f);
  rt().barrier();
}

TEST_CASE("comm: out-of-range transfers throw gaea::error naming the segment", "[comm][errors]") {
  comm::segment seg(rt().comm(), 64, "tiny");
  auto& w = rt().worker();
  comm::completion c;
  double x[16] = {};
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(w.get(0, seg, 32, x, 64, c), Contains("'tiny'") && Contains("[32, 96)"));
  CHECK_THROWS_WITH(w.put(rt().size(), seg, 0, x, 8, c),
                    Contains("rank " + std::to_string(rt().size())));
  std::int64_t old;
  CHECK_THROWS_WITH(w.fetch_add(0, seg, 4, 1, &old, c), Contains("aligned"));
  // Calls that take a rank but no segment name the rank and the range.
  CHECK_THROWS_WITH(w.flush(rt().size(), c),
                    Contains("flush to rank " + std::to_string(rt().size()) + " out of range"));
  CHECK_THROWS_WITH(w.transports(-1), Contains("rank -1 out of range"));
  CHECK(c.done());
  rt().barrier();
}

TEST_CASE("comm: fetch-add and compare-swap are atomic across ranks", "[comm][atomics]") {
  const int n = rt().size();
  comm::segment seg(rt().comm(), 16, "atomics");
  auto& w = rt().worker();
  comm::completion c;
  constexpr int k = 200;
  std::int64_t old = 0;
  for (int i = 0; i < k; ++i) {
    w.fetch_add(0, seg, 0, 3, &old, c);
    rt().wait(c);
  }
  // A lock built on compare-swap protects a non-atomic increment of the second word.
  for (int i = 0; i < 20; ++i) {
    std::int64_t prev = 1;
    while (prev != 0) {
      w.compare_swap(n - 1, seg, 8, 0, 1, &prev, c);
      rt().wait(c);
    }
    std::int64_t v = 0;
    // value lives in word 0 of rank n-1; lock in word 1
    w.get(n - 1, seg, 0, &v, 8, c);
    rt().wait(c);
    ++v;
    w.put(n - 1, seg, 0, &v, 8, c);
    rt().wait(c);
    comm::completion f;
    w.flush(n - 1, f);
    rt().wait(f);
    w.compare_swap(n - 1, seg, 8, 1, 0, &prev, c);
    rt().wait(c);
    REQUIRE(prev == 1);
  }
  rt().barrier();
  std::int64_t total = 0, guarded = 0;
  w.fetch_add(0, seg, 0, 0, &total, c);
  rt().wait(c);
  w.get(n - 1, seg, 0, &guarded, 8, c);
  rt().wait(c);
  if (n > 1) {
    CHECK(total == 3 * k * n);
    CHECK(guarded == 20 * n);
  } else {
    CHECK(total == 3 * k + 20);  // one rank: both words are the same counter
  }
  rt().barrier();
}

TEST_CASE("comm: active messages run handlers on the target, with remote completion",
          "[comm][am]") {
  const int me = rt().rank(), n = rt().size();
  static std::atomic<std::int64_t> sum{0}, calls{0};
  sum = 0;
  calls = 0;
  rt().comm().register_handler(200, [](const comm::am_message& m) {
    std::int64_t h = 0;
    std::memcpy(&h, m.header.data(), sizeof h);
    std::int64_t s = h;
    for (std::byte b : m.data)
      s += static_cast<std::int64_t>(b);
    sum += s;
    ++calls;
  });
  rt().barrier();
  auto& w = rt().worker();
  // Small (eager) and large (rendezvous) payloads to every rank.
  std::vector<std::byte> small(100, std::byte{1}), large(1 << 20, std::byte{2});
  comm::completion local, remote;
  const std::int64_t tag = me + 1;
  for (int t = 0; t < n; ++t) {
    w.am_send(t, 200, std::as_bytes(std::span(&tag, 1)), small, local, &remote);
    w.am_send(t, 200, std::as_bytes(std::span(&tag, 1)), large, local, &remote);
  }
  rt().wait(local);
  rt().wait(remote);  // both handlers ran on every target
  rt().barrier();
  const std::int64_t tags = static_cast<std::int64_t>(n) * (n + 1) / 2;
  CHECK(calls.load() == 2 * n);
  CHECK(sum.load() == 2 * tags + static_cast<std::int64_t>(n) * (100 + 2 * (1 << 20)));
  rt().barrier();
}

TEST_CASE("comm: active-message replies carry data back, eager and rendezvous", "[comm][am]") {
  const int me = rt().rank(), n = rt().size();
  // The handler answers with `count` int64 values: source * 1000 + i + its own rank.
  rt().comm().register_handler(201, [](const comm::am_message& m) {
    std::int64_t count = 0;
    std::memcpy(&count, m.header.data(), sizeof count);
    std::vector<std::int64_t> out(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i)
      out[static_cast<std::size_t>(i)] = m.source * 1000 + i + rt().rank();
    m.reply(std::as_bytes(std::span(out)));
  });
  rt().barrier();
  auto& w = rt().worker();
  for (const std::int64_t count : {std::int64_t{1}, std::int64_t{1} << 17}) {  // 8 B, 1 MiB
    std::vector<std::vector<std::int64_t>> got(static_cast<std::size_t>(n));
    comm::completion local, remote;
    for (int t = 0; t < n; ++t) {
      auto& buf = got[static_cast<std::size_t>(t)];
      buf.assign(static_cast<std::size_t>(count), -1);
      w.am_send(t, 201, std::as_bytes(std::span(&count, 1)), {}, local, &remote,
                std::as_writable_bytes(std::span(buf)));
    }
    rt().wait(local);
    rt().wait(remote);
    REQUIRE_NOTHROW(remote.check());
    bool ok = true;
    for (int t = 0; t < n; ++t)
      for (std::int64_t i = 0; i < count; ++i)
        ok = ok &&
             got[static_cast<std::size_t>(t)][static_cast<std::size_t>(i)] == me * 1000 + i + t;
    CHECK(ok);
  }
  // A reply larger than the buffer fails the handler, and the origin learns it.
  {
    const std::int64_t count = 4;
    std::int64_t small = 0;
    comm::completion local, remote;
    w.am_send((me + 1) % n, 201, std::as_bytes(std::span(&count, 1)), {}, local, &remote,
              std::as_writable_bytes(std::span(&small, 1)));
    rt().wait(local);
    CHECK_THROWS_AS(rt().wait(remote), gaea::error);  // wait() reports the handler's failure
  }
  rt().barrier();
}

TEST_CASE("comm: deferred active-message replies are answered later by the main thread",
          "[comm][am]") {
  const int me = rt().rank(), n = rt().size();
  static std::mutex m;
  static std::vector<comm::deferred_reply> tokens;
  static std::atomic<int> received{0};
  tokens.clear();
  received = 0;
  rt().comm().register_handler(202, [](const comm::am_message& msg) {
    std::lock_guard lock(m);
    tokens.push_back(msg.defer());
    ++received;
  });
  rt().barrier();
  auto& w = rt().worker();
  std::vector<std::int64_t> got(static_cast<std::size_t>(n), -1);
  comm::completion local, remote;
  for (int t = 0; t < n; ++t)
    w.am_send(t, 202, {}, {}, local, &remote,
              std::as_writable_bytes(std::span(&got[static_cast<std::size_t>(t)], 1)));
  rt().wait(local);
  // Nobody is answered until this rank's main thread has seen every request.
  rt().progress().wait_until(w, [&] { return received.load() == n; });
  {
    std::lock_guard lock(m);
    for (const auto& t : tokens) {
      const std::int64_t v = t.source() * 100 + me;
      rt().comm().send_deferred_reply(t, std::as_bytes(std::span(&v, 1)));
    }
  }
  rt().wait(remote);
  REQUIRE_NOTHROW(remote.check());
  for (int t = 0; t < n; ++t)
    CHECK(got[static_cast<std::size_t>(t)] == me * 100 + t);
  rt().barrier();
}

TEST_CASE("comm: a second handler for a taken id throws, naming the id and its holder",
          "[comm][am][errors]") {
  using Catch::Matchers::Contains;
  // A module's id: held by the runtime from its constructor on.
  CHECK_THROWS_WITH(rt().comm().register_handler(comm::handler_ids::runtime_barrier,
                                                 [](const comm::am_message&) {}),
                    Contains("handler id 1 is already registered") && Contains("runtime barrier"));
  // An application id: the first registration wins, the second throws and replaces nothing.
  constexpr comm::handler_id id = comm::handler_ids::user_first + 100;
  static std::atomic<int> first_calls{0};
  first_calls = 0;
  rt().comm().register_handler(id, [](const comm::am_message&) { ++first_calls; });
  CHECK_THROWS_WITH(rt().comm().register_handler(id, [](const comm::am_message&) {}),
                    Contains("handler id 228 is already registered") && Contains("an application"));
  rt().barrier();
  comm::completion local, remote;
  rt().worker().am_send((rt().rank() + 1) % rt().size(), id, {}, {}, local, &remote);
  rt().wait(local);
  rt().wait(remote);
  rt().barrier();
  CHECK(first_calls.load() == 1);
}

TEST_CASE("comm: the handler-id table names every id it assigns", "[comm][am]") {
  CHECK(comm::handler_ids::holder_of(comm::handler_ids::ga_acc) == "ga accumulate");
  CHECK(comm::handler_ids::holder_of(30) == "ga");
  CHECK(comm::handler_ids::holder_of(100) == "a reserved range");
  CHECK(comm::handler_ids::holder_of(comm::handler_ids::user_last) == "an application");
}

TEST_CASE("comm: a worker makes an endpoint to a rank only when it first addresses it",
          "[comm][endpoints]") {
  const int me = rt().rank(), n = rt().size();
  comm::segment seg(rt().comm(), 64, "endpoints");
  std::int64_t seed = 1000 + me;
  {
    comm::completion c;
    rt().worker().put(me, seg, 0, &seed, sizeof seed, c);
    rt().wait(c);
  }
  rt().barrier();
  // The main thread's worker: one endpoint per other node from the start-up check (C5), then
  // one per rank it has addressed since (the barrier's partners, the put to itself).
  CHECK(rt().worker().endpoint_count() >= rt().nodes() - 1);
  CHECK(rt().worker().endpoint_count() <= n);
  // A new thread's worker starts with none and gains exactly one per distinct rank addressed.
  const int first = (me + 1) % n, second = (me + 2) % n, untouched = (me + 3) % n;
  std::vector<std::int64_t> counts;
  std::int64_t got_first = -1, got_again = -1, old_second = -1;
  bool flush_untouched_done = false;
  std::string failure;
  std::atomic<bool> finished{false};
  std::thread t([&] {
    try {
      auto& w = rt().worker();
      comm::completion c;
      counts.push_back(w.endpoint_count());  // 0
      w.flush(untouched, c);                 // nothing issued there: no endpoint, done at once
      flush_untouched_done = c.done();
      w.flush_all(c);
      rt().wait(c);
      counts.push_back(w.endpoint_count());  // 0
      w.get(first, seg, 0, &got_first, sizeof got_first, c);
      rt().wait(c);
      counts.push_back(w.endpoint_count());  // 1
      w.get(first, seg, 0, &got_again, sizeof got_again, c);
      rt().wait(c);
      w.flush(first, c);
      rt().wait(c);
      counts.push_back(w.endpoint_count());  // still 1
      w.fetch_add(second, seg, 8, 1, &old_second, c);
      rt().wait(c);
      counts.push_back(w.endpoint_count());  // 2 (1 on one rank: both are itself)
    } catch (const std::exception& e) {
      failure = e.what();
    }
    finished = true;
  });
  // Serve the peers' first contact while the thread works (mode off has no progress thread).
  while (!finished)
    rt().progress().poll_service();
  t.join();
  REQUIRE(failure.empty());
  CHECK(flush_untouched_done);
  CHECK(got_first == 1000 + first);
  CHECK(got_again == 1000 + first);
  const std::int64_t distinct = n == 1 ? 1 : 2;  // 1 rank: `first` and `second` are itself
  CHECK(counts == std::vector<std::int64_t>{0, 0, 1, 1, distinct});
  rt().barrier();
  // Each rank's second word was incremented by the rank two below it, and by no other.
  std::int64_t bumped = -1;
  comm::completion c;
  rt().worker().get(me, seg, 8, &bumped, sizeof bumped, c);
  rt().wait(c);
  CHECK(bumped == 1);
  rt().barrier();
}

TEST_CASE("comm: gatherv gives every rank's part to the root only, in chunks beyond the limit",
          "[comm][bootstrap]") {
  const int me = rt().rank(), n = rt().size();
  const int root = n - 1;  // not rank 0, so that a root hard-wired to 0 would fail
  // Rank r contributes 500 + 29 r values (rank 1: none, to cover an empty part).
  std::vector<std::int64_t> mine(me == 1 ? 0 : static_cast<std::size_t>(500 + 29 * me));
  std::iota(mine.begin(), mine.end(), std::int64_t{me} * 100000);
  auto wait = [](MPI_Request& r) { rt().comm().wait_mpi(r); };
  const auto one = comm::detail::gatherv(rt().comm().mpi_comm(), mine, root, wait);
  // 1 KiB limit: the point-to-point path, with several chunks per rank.
  const auto chunked = comm::detail::gatherv(rt().comm().mpi_comm(), mine, root, wait, 1024);
  if (me != root) {
    CHECK(one.empty());
    CHECK(chunked.empty());
  } else {
    REQUIRE(one.size() == static_cast<std::size_t>(n));
    REQUIRE(chunked.size() == static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) {
      std::vector<std::int64_t> expected(r == 1 ? 0 : static_cast<std::size_t>(500 + 29 * r));
      std::iota(expected.begin(), expected.end(), std::int64_t{r} * 100000);
      CHECK(one[static_cast<std::size_t>(r)] == expected);
      CHECK(chunked[static_cast<std::size_t>(r)] == expected);
    }
  }
  rt().barrier();
}

TEST_CASE("comm: broadcast gives the root's vector to every rank", "[comm][bootstrap]") {
  const int me = rt().rank(), n = rt().size();
  const int root = n / 2;
  const std::string text = "verdict of rank " + std::to_string(me);
  const std::vector<char> mine(text.begin(), text.end());
  auto wait = [](MPI_Request& r) { rt().comm().wait_mpi(r); };
  const auto got = comm::detail::broadcast(rt().comm().mpi_comm(), mine, root, wait);
  CHECK(std::string(got.begin(), got.end()) == "verdict of rank " + std::to_string(root));
  // An empty vector from the root is empty everywhere.
  const auto none = comm::detail::broadcast(rt().comm().mpi_comm(),
                                            me == root ? std::vector<char>{} : mine, root, wait);
  CHECK(none.empty());
  rt().barrier();
}

TEST_CASE("comm: allgatherv beyond the single-call limit goes in chunks", "[comm][bootstrap]") {
  const int me = rt().rank(), n = rt().size();
  // Rank r contributes 1000 + 37 r values; with a 1 KiB limit the chunked path runs.
  std::vector<std::int64_t> mine(static_cast<std::size_t>(1000 + 37 * me));
  std::iota(mine.begin(), mine.end(), std::int64_t{me} * 100000);
  auto wait = [](MPI_Request& r) { rt().comm().wait_mpi(r); };
  const auto small = comm::detail::allgatherv(rt().comm().mpi_comm(), mine, wait, 1024);
  const auto whole = comm::detail::allgatherv(rt().comm().mpi_comm(), mine, wait);
  REQUIRE(small.size() == static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    const auto& v = small[static_cast<std::size_t>(r)];
    REQUIRE(v.size() == static_cast<std::size_t>(1000 + 37 * r));
    CHECK(v.front() == std::int64_t{r} * 100000);
    CHECK(v.back() == std::int64_t{r} * 100000 + static_cast<std::int64_t>(v.size()) - 1);
    CHECK(v == whole[static_cast<std::size_t>(r)]);
  }
  rt().barrier();
}
