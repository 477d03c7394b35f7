// Buffers past 2 GiB: 64-bit sizes end to end, messages split at the transport's limit.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "gaea/coll/collectives.hpp"

namespace coll = gaea::coll;

TEST_CASE("a broadcast of more than 2 GiB arrives whole", "[coll][large]") {
  const coll::group& w = coll::world();
  const std::size_t n = (std::size_t{2} << 30) / sizeof(std::uint64_t) + 4099;  // 2 GiB + 32 KiB
  std::vector<std::uint64_t> buf(n, w.rank() == 0 ? 0 : ~std::uint64_t{0});
  if (w.rank() == 0)
    for (std::size_t i = 0; i < n; ++i)
      buf[i] = i * 0x9E3779B97F4A7C15ull;
  coll::options o;
  o.algo = coll::algorithm::binomial;
  coll::broadcast(w, std::span<std::uint64_t>(buf), 0, o);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i)
    bad += buf[i] != i * 0x9E3779B97F4A7C15ull;
  REQUIRE(bad == 0);
}

TEST_CASE("zero-length buffers are valid in every collective", "[coll]") {
  const coll::group& w = coll::world();
  std::vector<int> none;
  coll::broadcast(w, std::span<int>(none), 0);
  coll::allreduce(w, std::span<int>(none), coll::reduce_op::sum);
  coll::allgather(w, std::span<const int>(none), std::span<int>(none));
  coll::alltoall(w, std::span<const int>(none), std::span<int>(none));
  REQUIRE(coll::allreduce(w, 1, coll::reduce_op::sum) == w.size());
}
