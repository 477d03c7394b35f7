// Buffers past 2 GiB: 64-bit sizes end to end, messages split at the transport's limit.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "gaea/coll/collectives.hpp"

namespace coll = gaea::coll;

TEST_CASE("a broadcast of more than 2 GiB arrives whole, by messages and through shared memory",
          "[coll][large]") {
  const coll::group& w = coll::world();
  const std::size_t n = (std::size_t{2} << 30) / sizeof(std::uint64_t) + 4099;  // 2 GiB + 32 KiB
  std::vector<std::uint64_t> buf(n);
  std::vector<coll::algorithm> algos{coll::algorithm::binomial};
  if (w.nodes() == 1) algos.push_back(coll::algorithm::shared_memory);  // 16 Ki pipelined steps
  for (coll::algorithm a : algos) {
    INFO("algorithm " << coll::to_string(a));
    for (std::size_t i = 0; i < n; ++i)
      buf[i] = w.rank() == 0 ? i * 0x9E3779B97F4A7C15ull : ~std::uint64_t{0};
    coll::options o;
    o.algo = a;
    coll::broadcast(w, std::span<std::uint64_t>(buf), 0, o);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i)
      bad += buf[i] != i * 0x9E3779B97F4A7C15ull;
    REQUIRE(bad == 0);
  }
}

TEST_CASE("a gatherv and scatterv part of more than 2 GiB arrives whole", "[coll][large]") {
  const coll::group& w = coll::world();
  const auto p = static_cast<std::size_t>(w.size());
  const std::size_t big = (std::size_t{2} << 30) / sizeof(std::uint64_t) + 4099;  // 2 GiB + 32 KiB
  std::vector<std::int64_t> counts(p, 3);
  counts[p - 1] = static_cast<std::int64_t>(big);  // the last member's part is the large one
  const std::size_t total = 3 * (p - 1) + big;
  auto value = [](std::size_t i) { return i * 0x9E3779B97F4A7C15ull; };
  const auto me = static_cast<std::size_t>(w.rank());
  std::vector<std::uint64_t> mine(static_cast<std::size_t>(counts[me]));
  for (std::size_t j = 0; j < mine.size(); ++j)
    mine[j] = value(3 * me + j);  // its place in the root's buffer
  std::vector<std::uint64_t> all(w.rank() == 0 ? total : 0);
  coll::gatherv(w, std::span<const std::uint64_t>(mine), std::span<std::uint64_t>(all),
                std::span<const std::int64_t>(counts), 0);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < all.size(); ++i)
    bad += all[i] != value(i);
  REQUIRE(bad == 0);
  std::fill(mine.begin(), mine.end(), 0);
  coll::scatterv(w, std::span<const std::uint64_t>(all), std::span<const std::int64_t>(counts),
                 std::span<std::uint64_t>(mine), 0);
  for (std::size_t j = 0; j < mine.size(); ++j)
    bad += mine[j] != value(3 * me + j);
  REQUIRE(bad == 0);
}

TEST_CASE("zero-length buffers are valid in every collective", "[coll]") {
  const coll::group& w = coll::world();
  std::vector<int> none;
  coll::broadcast(w, std::span<int>(none), 0);
  coll::allreduce(w, std::span<int>(none), coll::reduce_op::sum);
  coll::allgather(w, std::span<const int>(none), std::span<int>(none));
  coll::alltoall(w, std::span<const int>(none), std::span<int>(none));
  coll::gather(w, std::span<const int>(none), std::span<int>(none), 0);
  coll::scatter(w, std::span<const int>(none), std::span<int>(none), w.size() - 1);
  REQUIRE(coll::allreduce(w, 1, coll::reduce_op::sum) == w.size());
}
