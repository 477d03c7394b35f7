// Every algorithm of every collective against a serial reference computed on each rank, over
// the world and over derived groups, sizes from zero up, every root.
#include <catch2/catch.hpp>
#include <complex>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <mpi.h>
#include <unistd.h>

#include "gaea/coll/collectives.hpp"
#include "gaea/runtime/runtime.hpp"

namespace coll = gaea::coll;
using coll::algorithm;

namespace {

// Member i's element j, distinct per (i, j, salt) and exact in double.
double value(int member, std::size_t j, int salt) {
  return static_cast<double>(member * 1000 + static_cast<int>(j % 997) + salt * 7);
}

std::vector<coll::group> groups() {
  const coll::group& w = coll::world();
  std::vector<coll::group> gs{w};
  if (w.size() > 2) {
    gs.push_back(w.split(w.rank() % 2, -w.rank(), "odd-even reversed"));
    std::vector<int> rev(static_cast<std::size_t>(w.size()));
    std::iota(rev.rbegin(), rev.rend(), 0);
    gs.push_back(w.subset(rev, "reversed"));
  }
  return gs;
}

const std::vector<std::size_t> sizes{0, 1, 3, 1000, 70001};

// `base`, and shared memory where the group lies within one node (its only place).
std::vector<algorithm> on(const coll::group& g, std::initializer_list<algorithm> base) {
  std::vector<algorithm> out(base);
  if (g.nodes() == 1) out.push_back(algorithm::shared_memory);
  return out;
}

}  // namespace

TEST_CASE("every broadcast algorithm delivers the root's buffer to every member", "[coll]") {
  for (const coll::group& g : groups()) {
    for (algorithm a :
         on(g, {algorithm::automatic, algorithm::binomial, algorithm::scatter_allgather,
                algorithm::chain, algorithm::hierarchical, algorithm::hybrid_scatter_allgather,
                algorithm::hybrid_chain})) {
      for (std::size_t n : sizes) {
        for (int root = 0; root < g.size(); ++root) {
          std::vector<double> buf(n);
          for (std::size_t j = 0; j < n; ++j)
            buf[j] = g.rank() == root ? value(root, j, 1) : -1.0;
          coll::options o;
          o.algo = a;
          o.chunk_bytes = 4096;
          coll::broadcast(g, std::span<double>(buf), root, o);
          std::size_t bad = 0;
          for (std::size_t j = 0; j < n; ++j)
            bad += buf[j] != value(root, j, 1);
          INFO("group " << g.name() << " algorithm " << coll::to_string(a) << " n " << n << " root "
                        << root);
          REQUIRE(bad == 0);
        }
      }
    }
  }
}

TEST_CASE("every allreduce and reduce algorithm matches the serial reduction", "[coll]") {
  for (const coll::group& g : groups()) {
    for (algorithm a : on(g, {algorithm::automatic, algorithm::recursive_doubling, algorithm::ring,
                              algorithm::hierarchical})) {
      for (std::size_t n : sizes) {
        std::vector<double> v(n);
        for (std::size_t j = 0; j < n; ++j)
          v[j] = value(g.rank(), j, 2);
        coll::options o;
        o.algo = a;
        coll::allreduce(g, std::span<double>(v), coll::reduce_op::sum, o);
        std::size_t bad = 0;
        for (std::size_t j = 0; j < n; ++j) {
          double want = 0;
          for (int m = 0; m < g.size(); ++m)
            want += value(m, j, 2);
          bad += v[j] != want;
        }
        INFO("group " << g.name() << " allreduce " << coll::to_string(a) << " n " << n);
        REQUIRE(bad == 0);
      }
    }
    for (algorithm a : on(g, {algorithm::binomial, algorithm::hierarchical})) {
      for (int root = 0; root < g.size(); ++root) {
        std::vector<std::int64_t> in(1000), out(1000, -1);
        for (std::size_t j = 0; j < in.size(); ++j)
          in[j] = static_cast<std::int64_t>(value(g.rank(), j, 3));
        coll::options o;
        o.algo = a;
        coll::reduce(g, std::span<const std::int64_t>(in), std::span<std::int64_t>(out),
                     coll::reduce_op::max, root, o);
        if (g.rank() == root) {
          std::size_t bad = 0;
          for (std::size_t j = 0; j < in.size(); ++j)
            bad += out[j] != static_cast<std::int64_t>(value(g.size() - 1, j, 3));
          INFO("group " << g.name() << " reduce " << coll::to_string(a) << " root " << root);
          REQUIRE(bad == 0);
        } else {
          REQUIRE(out[0] == -1);  // untouched off the root
        }
      }
    }
  }
}

TEST_CASE("reductions cover every element type and operator", "[coll]") {
  const coll::group& w = coll::world();
  const int p = w.size(), r = w.rank();
  REQUIRE(coll::allreduce(w, std::int8_t(1), coll::reduce_op::sum) == p);
  REQUIRE(coll::allreduce(w, std::uint16_t(r + 2), coll::reduce_op::max) == p + 1);
  REQUIRE(coll::allreduce(w, std::int32_t(r - 5), coll::reduce_op::min) == -5);
  REQUIRE(coll::allreduce(w, std::uint64_t(2), coll::reduce_op::prod) == (std::uint64_t{1} << p));
  REQUIRE(coll::allreduce(w, 0.5f * static_cast<float>(r), coll::reduce_op::max) ==
          0.5f * static_cast<float>(p - 1));
  REQUIRE(coll::allreduce(w, std::complex<double>(r, 1), coll::reduce_op::sum) ==
          std::complex<double>(p * (p - 1) / 2, p));
  REQUIRE(coll::allreduce(w, r == 0, coll::reduce_op::lor) == true);
  REQUIRE(coll::allreduce(w, r == 0, coll::reduce_op::land) == (p == 1));
  REQUIRE(coll::allreduce(w, std::int64_t(r + 1), coll::reduce_op::land) == 1);
  // Integer overflow wraps (no undefined behaviour), as the same sum in unsigned arithmetic.
  const std::int32_t big = std::numeric_limits<std::int32_t>::max();
  REQUIRE(
      coll::allreduce(w, big, coll::reduce_op::sum) ==
      static_cast<std::int32_t>(static_cast<std::uint32_t>(big) * static_cast<std::uint32_t>(p)));
  REQUIRE(coll::allreduce(w, std::uint16_t(65535), coll::reduce_op::prod) == (p % 2 ? 65535 : 1));
  REQUIRE_THROWS_WITH(coll::allreduce(w, 1.0, coll::reduce_op::land),
                      Catch::Contains("land") && Catch::Contains("double"));
  REQUIRE_THROWS_WITH(coll::allreduce(w, std::complex<float>(1, 1), coll::reduce_op::max),
                      Catch::Contains("max") && Catch::Contains("complex<float>"));
}

TEST_CASE("allgather and allgatherv place every member's part in member order", "[coll]") {
  for (const coll::group& g : groups()) {
    for (algorithm a : on(g, {algorithm::automatic, algorithm::ring, algorithm::bruck})) {
      coll::options o;
      o.algo = a;
      for (std::size_t n : sizes) {
        std::vector<float> mine(n);
        for (std::size_t j = 0; j < n; ++j)
          mine[j] = static_cast<float>(value(g.rank(), j, 4));
        std::vector<float> all(n * static_cast<std::size_t>(g.size()));
        coll::allgather(g, std::span<const float>(mine), std::span<float>(all), o);
        std::size_t bad = 0;
        for (int m = 0; m < g.size(); ++m)
          for (std::size_t j = 0; j < n; ++j)
            bad += all[static_cast<std::size_t>(m) * n + j] != static_cast<float>(value(m, j, 4));
        INFO("group " << g.name() << " allgather " << coll::to_string(a) << " n " << n);
        REQUIRE(bad == 0);
      }
      // v: member m gives (m * 37 + 5) % 101 elements, or 50000 for member 1 (several steps
      // of a shared-memory buffer while the others' parts end after one), some give none.
      std::vector<std::int64_t> counts(static_cast<std::size_t>(g.size()));
      for (int m = 0; m < g.size(); ++m)
        counts[static_cast<std::size_t>(m)] = m == 1 ? 50000 : (m * 37) % 101;
      std::vector<int> mine(static_cast<std::size_t>(counts[static_cast<std::size_t>(g.rank())]),
                            g.rank() + 10);
      std::vector<int> all(
          static_cast<std::size_t>(std::accumulate(counts.begin(), counts.end(), 0L)));
      coll::allgatherv(g, std::span<const int>(mine), std::span<int>(all),
                       std::span<const std::int64_t>(counts), o);
      std::size_t at = 0, bad = 0;
      for (int m = 0; m < g.size(); ++m)
        for (std::int64_t j = 0; j < counts[static_cast<std::size_t>(m)]; ++j)
          bad += all[at++] != m + 10;
      INFO("group " << g.name() << " allgatherv " << coll::to_string(a));
      REQUIRE(bad == 0);
    }
    REQUIRE(coll::allgather(g, g.rank() * 3)[static_cast<std::size_t>(g.size() - 1)] ==
            (g.size() - 1) * 3);
  }
}

TEST_CASE("every gather and scatter algorithm moves each member's part to and from every root",
          "[coll]") {
  for (const coll::group& g : groups()) {
    const auto p = static_cast<std::size_t>(g.size());
    for (algorithm a : on(g, {algorithm::automatic, algorithm::binomial, algorithm::linear})) {
      coll::options o;
      o.algo = a;
      for (std::size_t n : sizes) {
        for (int root = 0; root < g.size(); ++root) {
          const bool at_root = g.rank() == root;
          INFO("group " << g.name() << " algorithm " << coll::to_string(a) << " n " << n << " root "
                        << root);
          std::vector<float> mine(n);
          for (std::size_t j = 0; j < n; ++j)
            mine[j] = static_cast<float>(value(g.rank(), j, 5));
          // Off the root the buffer is not touched: a sentinel of the wrong size shows it.
          std::vector<float> all(at_root ? n * p : 1, -7.0f);
          coll::gather(g, std::span<const float>(mine), std::span<float>(all), root, o);
          std::size_t bad = 0;
          if (at_root) {
            for (std::size_t m = 0; m < p; ++m)
              for (std::size_t j = 0; j < n; ++j)
                bad += all[m * n + j] != static_cast<float>(value(static_cast<int>(m), j, 5));
          } else {
            bad += all[0] != -7.0f;
          }
          REQUIRE(bad == 0);
          // Scatter back what the root holds, shifted: member m gets the root's block m.
          if (at_root)
            for (float& x : all)
              x += 1.0f;
          std::vector<float> back(n, -1.0f);
          coll::scatter(g, std::span<const float>(all.data(), at_root ? all.size() : 0),
                        std::span<float>(back), root, o);
          for (std::size_t j = 0; j < n; ++j)
            bad += back[j] != static_cast<float>(value(g.rank(), j, 5)) + 1.0f;
          REQUIRE(bad == 0);
        }
      }
    }
    const std::vector<int> everyone = coll::allgather(g, g.rank() * 3);
    REQUIRE(coll::gather(g, g.rank() * 3, 0) == (g.rank() == 0 ? everyone : std::vector<int>{}));
  }
}

TEST_CASE("gatherv and scatterv move parts of different sizes, empty ones included", "[coll]") {
  for (const coll::group& g : groups()) {
    const auto p = static_cast<std::size_t>(g.size());
    for (algorithm a : on(g, {algorithm::automatic, algorithm::binomial, algorithm::linear})) {
      coll::options o;
      o.algo = a;
      for (int root = 0; root < g.size(); ++root) {
        for (int pattern = 0; pattern < 3; ++pattern) {
          // Unequal with zeros (member 0 gives none), a large part on the last member only, and
          // nothing at all.
          std::vector<std::int64_t> counts(p);
          for (std::size_t m = 0; m < p; ++m)
            counts[m] = pattern == 0   ? static_cast<std::int64_t>((m * 37 + 11 * m * m) % 101)
                        : pattern == 1 ? (m + 1 == p ? 50000 : 1)
                                       : 0;
          const auto me = static_cast<std::size_t>(g.rank());
          INFO("group " << g.name() << " algorithm " << coll::to_string(a) << " root " << root
                        << " pattern " << pattern);
          std::vector<std::int64_t> mine(static_cast<std::size_t>(counts[me]));
          for (std::size_t j = 0; j < mine.size(); ++j)
            mine[j] = g.rank() * 1000000 + static_cast<std::int64_t>(j);
          const auto total =
              static_cast<std::size_t>(std::accumulate(counts.begin(), counts.end(), 0L));
          const bool at_root = g.rank() == root;
          std::vector<std::int64_t> all(at_root ? total : 0, -1);
          coll::gatherv(g, std::span<const std::int64_t>(mine), std::span<std::int64_t>(all),
                        std::span<const std::int64_t>(counts), root, o);
          std::size_t bad = 0;
          if (at_root) {
            std::size_t at = 0;
            for (std::size_t m = 0; m < p; ++m)
              for (std::int64_t j = 0; j < counts[m]; ++j)
                bad += all[at++] != static_cast<std::int64_t>(m) * 1000000 + j;
          }
          REQUIRE(bad == 0);
          for (auto& x : all)
            x = -x;
          std::vector<std::int64_t> back(mine.size(), 1);
          coll::scatterv(g, std::span<const std::int64_t>(all),
                         std::span<const std::int64_t>(counts), std::span<std::int64_t>(back), root,
                         o);
          for (std::size_t j = 0; j < back.size(); ++j)
            bad += back[j] != -mine[j];
          REQUIRE(bad == 0);
        }
      }
    }
  }
}

TEST_CASE("every alltoall algorithm transposes the blocks", "[coll]") {
  for (const coll::group& g : groups()) {
    const int p = g.size();
    std::vector<algorithm> algos =
        on(g, {algorithm::automatic, algorithm::bruck, algorithm::send_recv});
    if ((p & (p - 1)) == 0) algos.push_back(algorithm::pairwise);
    for (algorithm a : algos) {
      for (std::size_t block : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{3000},
                                std::size_t{20000}}) {
        const auto up = static_cast<std::size_t>(p);
        std::vector<std::int64_t> send(block * up), recv(block * up, -1);
        for (int to = 0; to < p; ++to)
          for (std::size_t j = 0; j < block; ++j)
            send[static_cast<std::size_t>(to) * block + j] =
                g.rank() * 1000000 + to * 1000 + static_cast<std::int64_t>(j);
        coll::options o;
        o.algo = a;
        coll::alltoall(g, std::span<const std::int64_t>(send), std::span<std::int64_t>(recv), o);
        std::size_t bad = 0;
        for (int from = 0; from < p; ++from)
          for (std::size_t j = 0; j < block; ++j)
            bad += recv[static_cast<std::size_t>(from) * block + j] !=
                   from * 1000000 + g.rank() * 1000 + static_cast<std::int64_t>(j);
        INFO("group " << g.name() << " alltoall " << coll::to_string(a) << " block " << block);
        REQUIRE(bad == 0);
      }
    }
  }
}

TEST_CASE("alltoallv moves blocks of different sizes, empty ones included", "[coll]") {
  for (const coll::group& g : groups()) {
    const int p = g.size(), me = g.rank();
    auto count = [](int from, int to) {
      return static_cast<std::int64_t>((from * 7 + to * 3) % 5);
    };
    std::vector<std::int64_t> sc(static_cast<std::size_t>(p)), sd(sc), rc(sc), rd(sc);
    std::int64_t st = 0, rt = 0;
    for (int q = 0; q < p; ++q) {
      const auto uq = static_cast<std::size_t>(q);
      sc[uq] = count(me, q);
      sd[uq] = st;
      st += sc[uq];
      rc[uq] = count(q, me);
      rd[uq] = rt;
      rt += rc[uq];
    }
    std::vector<double> send(static_cast<std::size_t>(st)), recv(static_cast<std::size_t>(rt), -1);
    for (int q = 0; q < p; ++q)
      for (std::int64_t j = 0; j < sc[static_cast<std::size_t>(q)]; ++j)
        send[static_cast<std::size_t>(sd[static_cast<std::size_t>(q)] + j)] =
            me * 100 + q + 0.5 * static_cast<double>(j);
    std::vector<algorithm> algos{algorithm::send_recv};
    if ((p & (p - 1)) == 0) algos.push_back(algorithm::pairwise);
    for (algorithm a : algos) {
      std::fill(recv.begin(), recv.end(), -1);
      coll::options o;
      o.algo = a;
      coll::alltoallv(g, std::span<const double>(send), sc, sd, std::span<double>(recv), rc, rd, o);
      std::size_t bad = 0;
      for (int q = 0; q < p; ++q)
        for (std::int64_t j = 0; j < rc[static_cast<std::size_t>(q)]; ++j)
          bad += recv[static_cast<std::size_t>(rd[static_cast<std::size_t>(q)] + j)] !=
                 q * 100 + me + 0.5 * static_cast<double>(j);
      INFO("group " << g.name() << " alltoallv " << coll::to_string(a));
      REQUIRE(bad == 0);
    }
  }
}

TEST_CASE("every barrier algorithm holds every member until all arrived", "[coll]") {
  // Members publish arrival by allreduce after the barrier; a broken barrier shows as a member
  // leaving before a slow one arrived (the slow one sleeps before entering).
  for (algorithm a : {algorithm::automatic, algorithm::dissemination, algorithm::hierarchical,
                      algorithm::shared_memory}) {
    for (const coll::group& g : groups()) {
      if (a == algorithm::shared_memory && g.nodes() > 1) continue;
      coll::options o;
      o.algo = a;
      for (int i = 0; i < 20; ++i)
        coll::barrier(g, o);
      REQUIRE(coll::allreduce(g, 1, coll::reduce_op::sum) == g.size());
    }
  }
}

TEST_CASE("non-blocking collectives overlap and complete in any wait order", "[coll]") {
  const coll::group& w = coll::world();
  std::vector<double> a(5000, w.rank()), b(3, 1.0);
  std::vector<int> c(static_cast<std::size_t>(w.size()));
  std::vector<coll::request> rs;
  rs.push_back(coll::allreduce(w, std::span<double>(a), coll::reduce_op::sum, coll::nonblocking));
  rs.push_back(coll::broadcast(w, std::span<double>(b), w.size() - 1, coll::nonblocking));
  const int mine = w.rank() + 1;
  rs.push_back(
      coll::allgather(w, std::span<const int>(&mine, 1), std::span<int>(c), coll::nonblocking));
  rs.push_back(coll::barrier(w, coll::nonblocking));
  std::vector<int> gathered(w.rank() == 0 ? c.size() : 0);
  rs.push_back(coll::gather(w, std::span<const int>(&mine, 1), std::span<int>(gathered), 0,
                            coll::nonblocking));
  std::vector<int> parts(w.rank() == w.size() - 1 ? 2 * c.size() : 0);
  std::iota(parts.begin(), parts.end(), 0);
  int got[2] = {-1, -1};
  rs.push_back(coll::scatter(w, std::span<const int>(parts), std::span<int>(got), w.size() - 1,
                             coll::nonblocking));
  // Wait in reverse order, testing the others meanwhile.
  while (!rs[0].test()) {
  }
  coll::wait_all(rs);
  REQUIRE(a[4999] == w.size() * (w.size() - 1) / 2.0);
  REQUIRE(b[2] == 1.0);
  for (int m = 0; m < w.size(); ++m)
    REQUIRE(c[static_cast<std::size_t>(m)] == m + 1);
  REQUIRE_FALSE(rs[1].pending());
  for (std::size_t m = 0; m < gathered.size(); ++m)
    REQUIRE(gathered[m] == static_cast<int>(m) + 1);
  REQUIRE(got[0] == 2 * w.rank());
  REQUIRE(got[1] == 2 * w.rank() + 1);
}

TEST_CASE("requests waited for last-started first complete, on every algorithm", "[coll]") {
  // Shared-memory calls use the group's region one after the other: waiting for the last one
  // drives the earlier ones.
  const coll::group& w = coll::world();
  for (algorithm a : on(w, {algorithm::automatic})) {
    coll::options o;
    o.algo = a;
    std::vector<double> x(20000, 1.0 + w.rank()), y(3000, w.rank() == 0 ? 7.0 : 0.0);
    std::vector<coll::request> rs;
    rs.push_back(
        coll::allreduce(w, std::span<double>(x), coll::reduce_op::sum, coll::nonblocking, o));
    rs.push_back(coll::broadcast(w, std::span<double>(y), 0, coll::nonblocking, o));
    rs.push_back(coll::barrier(w, coll::nonblocking, o));
    for (auto it = rs.rbegin(); it != rs.rend(); ++it)
      it->wait();
    INFO("algorithm " << coll::to_string(a));
    REQUIRE(x[19999] == w.size() * (w.size() + 1) / 2.0);
    REQUIRE(y[2999] == 7.0);
  }
}

TEST_CASE("hybrid broadcasts in flight together each deliver their own root's buffer", "[coll]") {
  // Node-mates copy from their leader's buffer: three calls with different roots and buffers at
  // once, waited for in reverse, must not read one another's.
  const coll::group& w = coll::world();
  for (algorithm a : {algorithm::hybrid_scatter_allgather, algorithm::hybrid_chain}) {
    coll::options o;
    o.algo = a;
    o.chunk_bytes = 8192;
    std::vector<std::vector<double>> bufs;
    std::vector<coll::request> rs;
    for (int k = 0; k < 3; ++k) {
      const int root = k % w.size();
      bufs.emplace_back(40000 + 1000 * static_cast<std::size_t>(k), -1.0);
      if (w.rank() == root)
        for (std::size_t j = 0; j < bufs.back().size(); ++j)
          bufs.back()[j] = value(root, j, 10 + k);
    }
    for (int k = 0; k < 3; ++k)
      rs.push_back(coll::broadcast(w, std::span<double>(bufs[static_cast<std::size_t>(k)]),
                                   k % w.size(), coll::nonblocking, o));
    for (auto it = rs.rbegin(); it != rs.rend(); ++it)
      it->wait();
    for (int k = 0; k < 3; ++k) {
      const auto& b = bufs[static_cast<std::size_t>(k)];
      std::size_t bad = 0;
      for (std::size_t j = 0; j < b.size(); ++j)
        bad += b[j] != value(k % w.size(), j, 10 + k);
      INFO("algorithm " << coll::to_string(a) << " call " << k);
      REQUIRE(bad == 0);
    }
  }
}

TEST_CASE("blocking and non-blocking shared-memory calls of one collective meet", "[coll]") {
  // Small blocking calls run inline (no schedule): the same steps as a request's schedule, so
  // members may take either way for one call. Odd members use requests, even ones block; an
  // earlier request still pending keeps the next blocking call off the inline path.
  const coll::group& w = coll::world();
  if (w.nodes() > 1) return;
  coll::options o;
  o.algo = algorithm::shared_memory;
  const bool odd = w.rank() % 2 == 1;
  const int n = w.size();
  for (std::size_t count : sizes) {
    INFO("count " << count);
    std::vector<double> x(count), y(count), ref(count, 0.0);
    for (std::size_t j = 0; j < count; ++j) {
      x[j] = value(w.rank(), j, 1);
      for (int m = 0; m < n; ++m)
        ref[j] += value(m, j, 1);
      y[j] = w.rank() == n - 1 ? value(n - 1, j, 2) : -1.0;
    }
    std::vector<double> mine(count, static_cast<double>(w.rank())),
        all(count * static_cast<std::size_t>(n));
    coll::request pending;
    if (odd) {
      pending =
          coll::allreduce(w, std::span<double>(x), coll::reduce_op::sum, coll::nonblocking, o);
      coll::broadcast(w, std::span<double>(y), n - 1, o);  // blocking behind a pending request
      coll::allgather(w, std::span<const double>(mine), std::span<double>(all), coll::nonblocking,
                      o)
          .wait();
      pending.wait();
    } else {
      coll::allreduce(w, std::span<double>(x), coll::reduce_op::sum, o);
      coll::broadcast(w, std::span<double>(y), n - 1, coll::nonblocking, o).wait();
      coll::allgather(w, std::span<const double>(mine), std::span<double>(all), o);
    }
    // Block j of member m: value(m, j-th block's element, 3); member m receives block m.
    const auto un = static_cast<std::size_t>(n);
    std::vector<double> send(count * un), recv(count * un, -1.0);
    for (std::size_t b = 0; b < un; ++b)
      for (std::size_t j = 0; j < count; ++j)
        send[b * count + j] = value(w.rank(), b * count + j, 3);
    if (odd)
      coll::alltoall(w, std::span<const double>(send), std::span<double>(recv), coll::nonblocking,
                     o)
          .wait();
    else
      coll::alltoall(w, std::span<const double>(send), std::span<double>(recv), o);
    const auto me = static_cast<std::size_t>(w.rank());
    for (int m = 0; m < n; ++m)
      for (std::size_t j = 0; j < count; ++j)
        REQUIRE(recv[static_cast<std::size_t>(m) * count + j] == value(m, me * count + j, 3));
    REQUIRE(x == ref);
    for (std::size_t j = 0; j < count; ++j)
      REQUIRE(y[j] == value(n - 1, j, 2));
    for (int m = 0; m < n; ++m)
      for (std::size_t j = 0; j < count; ++j)
        REQUIRE(all[static_cast<std::size_t>(m) * count + j] == m);
    if (odd)
      coll::barrier(w, coll::nonblocking, o).wait();
    else
      coll::barrier(w, o);
  }
}

TEST_CASE("back-to-back shared-memory calls never overwrite a buffer a member still reads",
          "[coll]") {
  // No barrier between the calls: a member that does not write in one call (a broadcast's
  // reader, a barrier) claims no buffer, and the next call's writers must still wait for every
  // reader of their own buffer's last contents. Roots rotate so each member's buffer is
  // rewritten while the others may be a call behind.
  const coll::group& w = coll::world();
  if (w.size() < 2 || w.nodes() > 1) return;
  coll::options o;
  o.algo = algorithm::shared_memory;
  const int n = w.size();
  for (std::size_t count : {std::size_t{3}, std::size_t{1500}}) {
    for (int i = 0; i < 60; ++i) {
      INFO("count " << count << " iteration " << i);
      const int root = i % n, other = (i + 1) % n;
      std::vector<double> b(count), r(count), ref(count, 0.0), out(count, -1.0);
      for (std::size_t j = 0; j < count; ++j) {
        b[j] = w.rank() == root ? value(root, j, i) : -1.0;
        r[j] = value(w.rank(), j, i + 1);
        for (int m = 0; m < n; ++m)
          ref[j] += value(m, j, i + 1);
      }
      coll::broadcast(w, std::span<double>(b), root, o);
      if (i % 3 == 0) coll::barrier(w, o);
      coll::reduce(w, std::span<const double>(r), std::span<double>(out), coll::reduce_op::sum,
                   other, o);
      std::vector<double> b2(count);
      for (std::size_t j = 0; j < count; ++j)
        b2[j] = w.rank() == other ? value(other, j, i + 2) : -1.0;
      coll::broadcast(w, std::span<double>(b2), other, o);
      std::size_t bad = 0;
      for (std::size_t j = 0; j < count; ++j) {
        bad += b[j] != value(root, j, i);
        bad += b2[j] != value(other, j, i + 2);
        if (w.rank() == other) bad += out[j] != ref[j];
      }
      REQUIRE(bad == 0);
    }
  }
}

TEST_CASE("a root runs four small shared-memory broadcasts ahead of readers not yet in them",
          "[coll]") {
  // Small broadcasts go through eager slots of the root's buffer: the root returns without
  // waiting for its readers until it would reuse a slot a reader has not read. The readers enter
  // only after the root has finished four broadcasts (told by MPI, outside Gaea): were the root
  // waiting for them, this would hang. Blocking (inline) and request calls alternate on the root.
  const coll::group& w = coll::world();
  if (w.size() < 2 || w.nodes() > 1) return;
  coll::options o;
  o.algo = algorithm::shared_memory;
  constexpr int ahead = 4;
  for (int round = 0; round < 3; ++round) {
    std::vector<std::vector<double>> b(ahead, std::vector<double>(8));
    if (w.rank() == 0) {
      for (int i = 0; i < ahead; ++i) {
        for (std::size_t j = 0; j < 8; ++j)
          b[static_cast<std::size_t>(i)][j] = value(0, j, round * ahead + i);
        if ((i + round) % 2 == 0)
          coll::broadcast(w, std::span<double>(b[static_cast<std::size_t>(i)]), 0, o);
        else
          coll::broadcast(w, std::span<double>(b[static_cast<std::size_t>(i)]), 0,
                          coll::nonblocking, o)
              .wait();
      }
      for (int r = 1; r < w.size(); ++r)
        MPI_Send(&round, 1, MPI_INT, r, 77, MPI_COMM_WORLD);
    } else {
      int told = -1;
      MPI_Recv(&told, 1, MPI_INT, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      REQUIRE(told == round);
      for (int i = 0; i < ahead; ++i)
        coll::broadcast(w, std::span<double>(b[static_cast<std::size_t>(i)]), 0, o);
      std::size_t bad = 0;
      for (int i = 0; i < ahead; ++i)
        for (std::size_t j = 0; j < 8; ++j)
          bad += b[static_cast<std::size_t>(i)][j] != value(0, j, round * ahead + i);
      REQUIRE(bad == 0);
    }
  }
  coll::barrier(w);
}

TEST_CASE("a member calls ahead through calls that write nothing causes no false mismatch",
          "[coll]") {
  // GA_Diag's pattern: an empty string (its length, then nothing) and an int from one root. The
  // root writes nothing in the empty call, so it can sign later calls while a reader still checks
  // the length's signature; readers yield now and then so that the root runs ahead.
  const coll::group& w = coll::world();
  if (w.size() < 2 || w.nodes() > 1) return;
  for (int i = 0; i < 4000; ++i) {
    const std::string got = coll::broadcast(w, w.rank() == 0 ? std::string() : std::string("x"), 0);
    int v = w.rank() == 0 ? i : -1;
    coll::broadcast(w, std::span<int>(&v, 1), 0);
    if (w.rank() != 0 && i % 7 == 0) std::this_thread::yield();
    REQUIRE(got.empty());
    REQUIRE(v == i);
  }
}

TEST_CASE("shared-memory calls with mismatched counts fail on every member, then work", "[coll]") {
  // Without GAEA_COLL_CHECK: the members that read a peer's step compare its signature.
  const coll::group& w = coll::world();
  if (w.size() < 2 || w.nodes() > 1) return;
  coll::options o;
  o.algo = algorithm::shared_memory;
  std::vector<double> v(w.rank() == 0 ? 11 : 10, 1.0);
  REQUIRE_THROWS_WITH(coll::allreduce(w, std::span<double>(v), coll::reduce_op::sum, o),
                      Catch::Contains("mismatched") && Catch::Contains("group 'world'"));
  // Member 0 gives two elements, the others one (each consistent with its own output).
  const std::size_t each = w.rank() == 0 ? 2 : 1;
  std::vector<int> mine(each, w.rank()), all(each * static_cast<std::size_t>(w.size()));
  REQUIRE_THROWS_WITH(coll::allgather(w, std::span<const int>(mine), std::span<int>(all), o),
                      Catch::Contains("mismatched"));
  REQUIRE(coll::allreduce(w, 1, coll::reduce_op::sum, o) == w.size());
  coll::barrier(w, o);
}

TEST_CASE("a group's shared-memory region leaves no name another process could open", "[coll]") {
  const coll::group& w = coll::world();
  if (w.nodes() > 1) return;
  // A new group makes its region on its first shm call; member 0 names it after its pid. Names
  // of that prefix already there belong to an earlier process with the same pid (one killed
  // before it unlinked its region): only a name this group adds counts.
  int pid0 = static_cast<int>(getpid());
  coll::broadcast(w, std::span<int>(&pid0, 1), 0);
  const std::string prefix =
      "gaea-coll-" + std::to_string(geteuid()) + "-" + std::to_string(pid0) + "-";
  auto names = [&] {
    std::set<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator("/dev/shm"))
      if (e.path().filename().string().rfind(prefix, 0) == 0)
        out.insert(e.path().filename().string());
    return out;
  };
  const std::set<std::string> before = names();
  coll::barrier(w);
  const coll::group g = w.split(0, w.rank(), "fresh");
  int v = w.rank();
  coll::broadcast(g, std::span<int>(&v, 1), 0);  // makes the region (shm is the first choice)
  coll::options o;
  o.algo = algorithm::shared_memory;
  coll::barrier(g, o);
  std::vector<std::string> added;
  for (const std::string& n : names())
    if (!before.contains(n)) added.push_back(n);
  INFO("new names: " << added.size() << (added.empty() ? "" : ", first " + added.front()));
  REQUIRE(added.empty());
}

TEST_CASE("strings and verdicts travel to every member", "[coll]") {
  const coll::group& w = coll::world();
  const std::string s = coll::broadcast(w, w.rank() == 0 ? std::string(100000, 'x') : "", 0);
  REQUIRE(s.size() == 100000);
  REQUIRE_NOTHROW(coll::agree(w, ""));
  const std::string problem = w.rank() == w.size() - 1 ? "input bad on the last rank" : "";
  REQUIRE_THROWS_WITH(coll::agree(w, problem), "input bad on the last rank");
}
