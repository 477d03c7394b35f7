// gaea::init/finalize in a process that did not start MPI itself, and objects that outlive the
// runtime (issue2 regression: finalize with a live array used to abort inside UCX).
#include <catch2/catch.hpp>

#include "gaea/counters/shared_counter.hpp"
#include "gaea/ga/global_array.hpp"
#include "gaea/runtime/runtime.hpp"

using Catch::Matchers::Contains;

TEST_CASE("issue2: finalize refuses while Gaea objects are alive, then succeeds", "[lifecycle]") {
  gaea::init();
  REQUIRE(gaea::runtime::initialized());
  CHECK_THROWS_WITH(gaea::init(), Contains("already initialized"));
  {
    gaea::global_array<double> a("kept", {8, 8});
    gaea::counters::shared_counter c("kept counter");
    CHECK_THROWS_WITH(gaea::finalize(),
                      Contains("2 Gaea object(s) still alive") && Contains("'kept'"));
  }
  CHECK_NOTHROW(gaea::finalize());
  CHECK_FALSE(gaea::runtime::initialized());
  // MPI was started by Gaea and is now finalized: a new runtime says so instead of crashing.
  CHECK_THROWS_WITH(gaea::runtime(), Contains("MPI was already finalized"));
}
