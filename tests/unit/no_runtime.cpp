// Unit test: using counters or arrays before gaea::runtime starts is a gaea::error, not a crash.

#include <catch2/catch.hpp>

#include "gaea/counters/shared_counter.hpp"
#include "gaea/ga/global_array.hpp"
#include "gaea/runtime/runtime.hpp"

TEST_CASE("use before init gives gaea::error, not a crash", "[errors]") {
  using Catch::Matchers::Contains;
  CHECK_FALSE(gaea::runtime::initialized());
  CHECK_THROWS_WITH(gaea::global_array<double>("early", {4, 4}), Contains("not initialized"));
  CHECK_THROWS_WITH(gaea::counters::shared_counter("early"), Contains("not initialized"));
  CHECK_THROWS_AS(gaea::runtime::current(), gaea::error);
  CHECK_THROWS_WITH(gaea::finalize(), Contains("init was not called"));
}
