// The enum name tables of gaea/base/enum_names.hpp, and the enums whose names are the choices of
// a GAEA_* variable: each agrees with its setting's declared choices.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "gaea/base/enum_names.hpp"
#include "gaea/base/env.hpp"
#include "gaea/base/error.hpp"
#include "gaea/coll/options.hpp"
#include "gaea/counters/counter_mode.hpp"
#include "gaea/ga/protocol.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/progress/settings.hpp"

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

TEST_CASE("enum names: an enum setting reads a variable by the enum's names", "[enum_names][env]") {
  unsetenv("GAEA_PROGRESS");
  CHECK(gaea::progress::mode_from_env() == gaea::progress::mode::automatic);
  setenv("GAEA_PROGRESS", "interrupt", 1);
  CHECK(gaea::progress::mode_from_env() == gaea::progress::mode::interrupt);
  setenv("GAEA_PROGRESS", "fast", 1);
  CHECK_THROWS_WITH(gaea::progress::mode_from_env(),
                    Contains("GAEA_PROGRESS='fast' must be one of"));
  unsetenv("GAEA_PROGRESS");
  // An enum whose names are not the variable's choices is a bug, caught where it is declared.
  CHECK_THROWS_WITH(
      gaea::env::setting<colour>(
          {"GAEA_COLOUR", "red", "h", gaea::env::value_kind::choice, "red|green", 0, "test"}),
      Contains("its choices are not the enum's names"));
}

TEST_CASE("enum names: every enum-valued variable's default parses and its choices match",
          "[enum_names][env]") {
  for (const char* v :
       {"GAEA_PROGRESS", "GAEA_COUNTER", "GAEA_STRIDED", "GAEA_ACC", "GAEA_COLL_ENERGY"})
    unsetenv(v);
  CHECK(gaea::progress::mode_from_env() == gaea::progress::mode::automatic);
  CHECK(gaea::counters::default_counter_mode() == gaea::counters::counter_mode::atomic);
  // ga's protocols are process-wide state other tests set; their defaults are checked when
  // declared, as every setting's (env::detail::add).
  // The choices listed by gaea-info are the enums' names (each setting checks it when declared).
  auto choices_of = [](std::string_view name) {
    for (const auto& v : gaea::env::table())
      if (v.name == name) return std::string(v.choices);
    return std::string("?");
  };
  auto sorted = [](std::string list) {
    std::vector<std::string> parts;
    std::size_t at = 0;
    while (at <= list.size()) {
      const std::size_t bar = std::min(list.find('|', at), list.size());
      parts.push_back(list.substr(at, bar - at));
      at = bar + 1;
    }
    std::sort(parts.begin(), parts.end());
    return parts;
  };
  CHECK(sorted(choices_of("GAEA_PROGRESS")) == sorted(gaea::choices<gaea::progress::mode>()));
  CHECK(sorted(choices_of("GAEA_COUNTER")) ==
        sorted(gaea::choices<gaea::counters::counter_mode>()));
  CHECK(sorted(choices_of("GAEA_STRIDED")) == sorted(gaea::choices<gaea::ga::strided_protocol>()));
  CHECK(sorted(choices_of("GAEA_ACC")) == sorted(gaea::choices<gaea::ga::acc_protocol>()));
  CHECK(sorted(choices_of("GAEA_COLL_ENERGY")) == sorted(gaea::choices<gaea::coll::energy_mode>()));
}
