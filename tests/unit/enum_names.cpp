// The enum name tables of gaea/base/enum_names.hpp, and the enums whose names are the choices of
// a GAEA_* variable: each agrees with the environment table.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "gaea/base/enum_names.hpp"
#include "gaea/base/env.hpp"
#include "gaea/base/error.hpp"
#include "gaea/coll/options.hpp"
#include "gaea/counters/counter_mode.hpp"
#include "gaea/ga/protocol.hpp"
#include "gaea/progress/engine.hpp"

namespace sample {
enum class colour { red, green, blue };
inline constexpr gaea::enum_name<colour> colour_names[] = {
    {colour::red, "red"}, {colour::green, "green"}, {colour::blue, "blue"}};
constexpr gaea::enum_names<colour> enum_names_of(colour) noexcept {
  return {"colour", colour_names};
}
enum class unnamed { a, b };
}  // namespace sample

using Catch::Matchers::Contains;
using sample::colour;

TEST_CASE("enum names: to_string and parse are inverse over the table", "[enum_names]") {
  static_assert(gaea::named_enum<colour>);
  static_assert(!gaea::named_enum<sample::unnamed>);
  static_assert(gaea::to_string(colour::green) == "green");
  static_assert(gaea::try_parse<colour>("blue") == colour::blue);
  static_assert(gaea::in_value_order<colour>());
  for (const auto& e : gaea::names_of<colour>().entries) {
    CHECK(gaea::to_string(e.value) == e.name);
    CHECK(gaea::parse<colour>(e.name) == e.value);
  }
  CHECK(gaea::to_string(static_cast<colour>(7)) == "?");
  CHECK(gaea::choices<colour>() == "red|green|blue");
  CHECK(gaea::choices<colour>(", ") == "red, green, blue");
}

TEST_CASE("enum names: parse rejects unknown text naming the kind, the text and the names",
          "[enum_names][errors]") {
  CHECK_FALSE(gaea::try_parse<colour>("Red").has_value());  // case-sensitive
  CHECK_FALSE(gaea::try_parse<colour>("").has_value());
  CHECK_THROWS_AS(gaea::parse<colour>("purple"), gaea::error);
  CHECK_THROWS_WITH(gaea::parse<colour>("purple"),
                    Contains("colour 'purple' is not one of red|green|blue"));
}

TEST_CASE("enum names: get_enum reads a variable by the enum's names", "[enum_names][env]") {
  unsetenv("GAEA_PROGRESS");
  CHECK(gaea::env::get_enum<gaea::progress::mode>("GAEA_PROGRESS") ==
        gaea::progress::mode::automatic);
  setenv("GAEA_PROGRESS", "interrupt", 1);
  CHECK(gaea::env::get_enum<gaea::progress::mode>("GAEA_PROGRESS") ==
        gaea::progress::mode::interrupt);
  setenv("GAEA_PROGRESS", "fast", 1);
  CHECK_THROWS_WITH(gaea::env::get_enum<gaea::progress::mode>("GAEA_PROGRESS"),
                    Contains("GAEA_PROGRESS='fast' must be one of"));
  unsetenv("GAEA_PROGRESS");
  // An enum whose names are not the variable's choices is a bug, caught at the first read.
  CHECK_THROWS_WITH(gaea::env::get_enum<colour>("GAEA_PROGRESS"),
                    Contains("differ from the environment table"));
}

TEST_CASE("enum names: every enum-valued variable's default parses and its choices match",
          "[enum_names][env]") {
  for (const char* v :
       {"GAEA_PROGRESS", "GAEA_COUNTER", "GAEA_STRIDED", "GAEA_ACC", "GAEA_COLL_ENERGY"})
    unsetenv(v);
  CHECK(gaea::env::get_enum<gaea::progress::mode>("GAEA_PROGRESS") ==
        gaea::progress::mode::automatic);
  CHECK(gaea::env::get_enum<gaea::counters::counter_mode>("GAEA_COUNTER") ==
        gaea::counters::counter_mode::atomic);
  CHECK(gaea::env::get_enum<gaea::ga::strided_protocol>("GAEA_STRIDED") ==
        gaea::ga::strided_protocol::automatic);
  CHECK(gaea::env::get_enum<gaea::ga::acc_protocol>("GAEA_ACC") ==
        gaea::ga::acc_protocol::automatic);
  CHECK(gaea::env::get_enum<gaea::coll::energy_mode>("GAEA_COLL_ENERGY") ==
        gaea::coll::energy_mode::automatic);
}
