// GAEA_SHARED_CORES: whether a rank's waits treat its cores as shared with other processes.
// `auto` follows the count of ranks and hardware threads on the node; `yes` marks the cores
// shared although the count says otherwise (other jobs, emulated hosts on the same CPUs); `no`
// never. Shared-memory collectives stay correct either way (single copy is off when shared).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "gaea/coll/collectives.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/topology.hpp"
#include "test_support.hpp"

using gaea::test::rt;

TEST_CASE("GAEA_SHARED_CORES decides whether waits treat the cores as shared", "[progress]") {
  const char* v = std::getenv("GAEA_SHARED_CORES");
  const std::string setting = v && *v ? v : "auto";
  const bool outnumbered = rt().topo().pus() < rt().node_size();
  INFO("GAEA_SHARED_CORES=" << setting << "; " << rt().topo().pus() << " hardware threads, "
                            << rt().node_size() << " ranks on the node");
  if (setting == "yes") {
    CHECK(rt().progress().ranks_share_cores());
    CHECK(rt().progress().share_core());
    CHECK_FALSE(rt().progress_has_own_hw_thread());
  } else if (setting == "no") {
    CHECK_FALSE(rt().progress().ranks_share_cores());
  } else {
    CHECK(rt().progress().ranks_share_cores() == outnumbered);
  }
}

TEST_CASE("shared-memory broadcast and alltoall of single-copy sizes are exact on shared cores",
          "[coll]") {
  const int me = rt().rank(), n = rt().size();
  for (const std::size_t count : {std::size_t{8} << 10, std::size_t{200} << 10}) {
    std::vector<std::int64_t> b(count);
    if (me == n - 1) std::iota(b.begin(), b.end(), std::int64_t{7});
    gaea::coll::broadcast(gaea::coll::world(), std::span<std::int64_t>(b), n - 1);
    CHECK(b.front() == 7);
    CHECK(b.back() == static_cast<std::int64_t>(count) + 6);
    std::vector<std::int64_t> send(count * static_cast<std::size_t>(n)), recv(send.size(), -1);
    for (std::size_t i = 0; i < send.size(); ++i)
      send[i] = static_cast<std::int64_t>(i) * 1000 + me;
    gaea::coll::alltoall(gaea::coll::world(), std::span<const std::int64_t>(send),
                         std::span<std::int64_t>(recv));
    std::int64_t bad = 0;
    for (int from = 0; from < n; ++from)
      for (std::size_t i = 0; i < count; ++i) {
        const std::size_t at = static_cast<std::size_t>(from) * count + i;
        const std::size_t sent_at = static_cast<std::size_t>(me) * count + i;
        bad += recv[at] != static_cast<std::int64_t>(sent_at) * 1000 + from;
      }
    CHECK(bad == 0);
  }
}
