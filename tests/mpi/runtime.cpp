// Runtime facts: node numbering and where the progress thread runs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <thread>

#include "gaea/progress/engine.hpp"
#include "gaea/runtime/topology.hpp"
#include "test_support.hpp"

using gaea::test::rt;

TEST_CASE("runtime: ranks, nodes and node-local ranks are consistent", "[runtime]") {
  CHECK(rt().size() >= 1);
  CHECK(rt().nodes() >= 1);
  CHECK(rt().node_id() < rt().nodes());
  CHECK(rt().node_rank() < rt().node_size());
  const auto node_sizes = gaea::test::allgather(static_cast<std::int64_t>(rt().node_size()));
  if (rt().nodes() == 1) {  // the test machine: everything on one node
    CHECK(rt().node_size() == rt().size());
    CHECK(rt().node_rank() == rt().rank());
  }
  CHECK(std::all_of(node_sizes.begin(), node_sizes.end(), [](std::int64_t s) { return s >= 1; }));
}

// Regression: the thread used to take its first step before the parent applied its binding,
// so gaea-info reported "spare core 1" for a thread running on PU 0.
TEST_CASE("runtime: the progress thread runs inside its placement", "[runtime][progress]") {
  auto& eng = rt().progress();
  if (!eng.asynchronous()) return;  // GAEA_PROGRESS=off: no thread to place
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (eng.first_cpu() < 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  REQUIRE(eng.first_cpu() >= 0);
  const auto& cpus = rt().placement().cpus;
  if (!cpus.empty()) {
    INFO("placement " << rt().placement().description << ", first step on PU " << eng.first_cpu()
                      << ", last seen on PU " << eng.last_cpu());
    CHECK(std::find(cpus.begin(), cpus.end(), eng.first_cpu()) != cpus.end());
    CHECK(std::find(cpus.begin(), cpus.end(), eng.last_cpu()) != cpus.end());
  }
  rt().barrier();
}
