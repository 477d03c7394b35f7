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
  CHECK_THROWS_WITH(gaea::env::get_string("GAEA_NOT_A_THING"),
                    Catch::Matchers::Contains("env.cpp"));
  for (const auto& v : gaea::env::table()) {
    CHECK(v.name.substr(0, 5) == "GAEA_");
    CHECK(!v.help.empty());
  }
}

#include <fstream>
#include <sstream>

TEST_CASE("env: the README documents exactly the variables of the table", "[env][docs]") {
  std::ifstream in(std::string(GAEA_SOURCE_DIR) + "/README.md");
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string readme = ss.str();
  for (const auto& v : gaea::env::table()) {
    INFO(v.name);
    CHECK(readme.find("| `" + std::string(v.name) + "` | `" + std::string(v.default_str) + "` |") !=
          std::string::npos);
  }
  // And no GAEA_ variable row in the README that the table does not know.
  std::size_t pos = 0, rows = 0;
  while ((pos = readme.find("| `GAEA_", pos)) != std::string::npos)
    ++rows, ++pos;
  CHECK(rows == gaea::env::table().size());
}
