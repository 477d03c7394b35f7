#include <catch2/catch.hpp>

#include <cstdlib>

#include "gaea/base/env.hpp"
#include "gaea/base/error.hpp"

TEST_CASE("env: documented variables parse with defaults and suffixes", "[env]") {
  unsetenv("GAEA_MAX_TRANSFER");
  CHECK(gaea::env::get_int("GAEA_MAX_TRANSFER") == (1LL << 30));
  setenv("GAEA_MAX_TRANSFER", "64K", 1);
  CHECK(gaea::env::get_int("GAEA_MAX_TRANSFER") == 65536);
  setenv("GAEA_MAX_TRANSFER", "12x", 1);
  CHECK_THROWS_WITH(gaea::env::get_int("GAEA_MAX_TRANSFER"),
                    Catch::Matchers::Contains("GAEA_MAX_TRANSFER='12x'"));
  setenv("GAEA_MAX_TRANSFER", "lots", 1);
  CHECK_THROWS_AS(gaea::env::get_int("GAEA_MAX_TRANSFER"), gaea::Error);
  unsetenv("GAEA_MAX_TRANSFER");
  setenv("GAEA_PROGRESS", "fast", 1);
  CHECK_THROWS_WITH(gaea::env::get_choice("GAEA_PROGRESS", {"auto", "off"}),
                    Catch::Matchers::Contains("must be one of auto|off"));
  unsetenv("GAEA_PROGRESS");
  CHECK(gaea::env::get_string("GAEA_PROGRESS") == "auto");
  // Undocumented variables are a programming error that names the table.
  CHECK_THROWS_WITH(gaea::env::get_string("GAEA_NOT_A_THING"), Catch::Matchers::Contains("env.cpp"));
  for (const auto& v : gaea::env::table()) {
    CHECK(v.name.substr(0, 5) == "GAEA_");
    CHECK(!v.help.empty());
  }
}
