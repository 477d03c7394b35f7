// GAEA_ASSERT: a failed internal invariant throws gaea::error naming it where the build checks
// invariants (GAEA_ASSERTS=ON), and is not evaluated at all where it does not.
#include <catch2/catch.hpp>

#include "gaea/base/assert.hpp"
#include "gaea/base/error.hpp"

TEST_CASE("GAEA_ASSERT checks its condition exactly when the build enables assertions", "[base]") {
  int evaluated = 0;
  auto holds = [&](bool v) {
    ++evaluated;
    return v;
  };
  GAEA_ASSERT(holds(true), "a true invariant");
  if (GAEA_ASSERTS_ENABLED) {
    REQUIRE(evaluated == 1);
    REQUIRE_THROWS_WITH(GAEA_ASSERT(holds(false), "the slot is free"),
                        Catch::StartsWith("internal error: the slot is free (holds(false)) at ") &&
                            Catch::Contains("assert.cpp:"));
    REQUIRE(evaluated == 2);
  } else {
    GAEA_ASSERT(holds(false), "never evaluated");
    REQUIRE(evaluated == 0);
  }
}

TEST_CASE("a failed GAEA_ASSERT is a gaea::error", "[base]") {
  REQUIRE_THROWS_AS(gaea::detail::assert_failed("x > 0", "x is positive", "f.cpp", 7), gaea::error);
  REQUIRE_THROWS_WITH(gaea::detail::assert_failed("x > 0", "x is positive", "f.cpp", 7),
                      "internal error: x is positive (x > 0) at f.cpp:7");
}
