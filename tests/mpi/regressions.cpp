// Regression tests for defects found in review of the foundation (comm, runtime). Each case
// names the failure it guards against.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstring>
#include <thread>

#include "gaea/comm/completion.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/segment.hpp"
#include "gaea/comm/worker.hpp"
#include "test_support.hpp"

using namespace gaea;
using Catch::Matchers::Contains;
using gaea::test::rt;

TEST_CASE("comm: a collective allocation keeps serving peers (was a deadlock with progress off)",
          "[regression][comm]") {
  if (rt().size() < 2) return;
  comm::segment a(rt().comm(), 1 << 20, "served");
  rt().barrier();
  if (rt().rank() == 1) {  // needs rank 0's service worker (tcp: software RMA)
    std::vector<char> buf(1 << 20);
    comm::completion c;
    rt().worker().get(0, a, 0, buf.data(), buf.size(), c);
    rt().wait(c);
  }
  // Rank 0 goes straight into this collective while rank 1 still waits for its get.
  comm::segment b(rt().comm(), 64, "next");
  rt().barrier();
  CHECK(b.local_size() == 64);
}

TEST_CASE("comm: a completion is reusable after a failed operation (failure was sticky)",
          "[regression][comm]") {
  static std::atomic<int> calls{0};
  calls = 0;
  rt().comm().register_handler(201, [](const comm::am_message&) {
    if (calls++ == 0) throw std::runtime_error("first call fails");
  });
  rt().barrier();
  auto& w = rt().worker();
  comm::completion local, remote;
  const std::vector<std::byte> payload(16);
  if (rt().rank() == 0) {
    w.am_send(rt().size() - 1, 201, {}, payload, local, &remote);
    rt().wait(local);
    CHECK_THROWS_WITH(rt().wait(remote), Contains("handler failed"));
    w.am_send(rt().size() - 1, 201, {}, payload, local, &remote);
    rt().wait(local);
    CHECK_NOTHROW(rt().wait(remote));
  }
  rt().barrier();
}

TEST_CASE("comm: a handler throwing a non-standard exception is reported, not fatal",
          "[regression][comm]") {
  rt().comm().register_handler(202, [](const comm::am_message&) { throw 42; });
  rt().barrier();
  comm::completion local, remote;
  rt().worker().am_send((rt().rank() + 1) % rt().size(), 202, {}, {}, local, &remote);
  rt().wait(local);
  CHECK_THROWS_WITH(rt().wait(remote), Contains("handler failed"));
  rt().barrier();
  CHECK(rt().comm().handler_errors() >= 1);
}

TEST_CASE("comm: strided extents that overflow 64 bits give gaea::error (was a segfault)",
          "[regression][comm][errors]") {
  comm::segment s(rt().comm(), 64, "small");
  comm::completion c;
  char buf[64] = {};
  CHECK_THROWS_WITH(rt().worker().put_strided(0, s, 0, std::size_t{1} << 63, buf, 8, 8, 3, c),
                    Contains("'small'") && Contains("overflow"));
  CHECK_THROWS_WITH(rt().worker().get_strided(0, s, 0, std::size_t{1} << 63, buf, 8, 8, 3, c),
                    Contains("overflow"));
  CHECK(c.done());
  rt().barrier();
}

TEST_CASE("runtime: collectives from a thread other than the runtime's are refused",
          "[regression][runtime][errors]") {
  std::string message;
  std::thread t([&] {
    try {
      rt().barrier();
    } catch (const gaea::error& e) {
      message = e.what();
    }
  });
  t.join();
  CHECK_THAT(message, Contains("must be called from the thread that created the runtime"));
}
