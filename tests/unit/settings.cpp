// gaea::env::setting: typed settings, their parsing, their errors and their registration. Its
// own program (gaea_settings_unit, base only), so that the settings declared here stay out of
// the table the other unit tests compare with docs/environment.md.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "gaea/base/enum_names.hpp"
#include "gaea/base/env.hpp"
#include "gaea/base/error.hpp"

using Catch::Matchers::Contains;
using gaea::env::setting;
using gaea::env::value_kind;

namespace settings_test {
enum class shade { light, dark };
inline constexpr gaea::enum_name<shade> shade_names[] = {{shade::light, "light"},
                                                         {shade::dark, "dark"}};
constexpr gaea::enum_names<shade> enum_names_of(shade) noexcept {
  return {"shade", shade_names};
}
}  // namespace settings_test

namespace {
using settings_test::shade;

// Declared as a module declares its own: at namespace scope, registered at load.
const setting<std::int64_t> size_s{{"GAEA_T_SIZE", "4K", "a size", value_kind::size, {}, 8, "t"}};
const setting<std::int64_t> secs_s{
    {"GAEA_T_SECS", "60", "seconds", value_kind::seconds, {}, 0, "t"}};
const setting<double> frac_s{
    {"GAEA_T_FRAC", "0.02", "a fraction", value_kind::fraction, {}, 0, "t"}};
const setting<bool> flag_s{{"GAEA_T_FLAG", "0", "a flag", value_kind::choice, "0|1", 0, "t"}};
const setting<std::string> text_s{{"GAEA_T_TEXT", "", "a text", value_kind::text, {}, 0, "t"}};
const setting<shade> shade_s{
    {"GAEA_T_SHADE", "dark", "an enum", value_kind::choice, "dark|light", 0, "t"}};
constexpr std::string_view kinds[] = {"x", "y"};
const setting<std::string> kind_s{{"GAEA_T_KIND", "x", "a kind", value_kind::choice, "x|y", 0, "a"},
                                  kinds};

// Sets a variable for one scope.
struct scoped_env {
  const char* name;
  scoped_env(const char* n, const char* v) : name(n) { setenv(n, v, 1); }
  ~scoped_env() { unsetenv(name); }
};

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const gaea::error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("settings: unset or empty values give the typed defaults", "[env][settings]") {
  CHECK(size_s.read() == 4096);
  CHECK(secs_s.read() == 60);
  CHECK(frac_s.read() == 0.02);
  CHECK_FALSE(flag_s.read());
  CHECK(text_s.read().empty());
  CHECK(shade_s.read() == shade::dark);
  CHECK(kind_s.read() == "x");
  CHECK_FALSE(size_s.raw());
  scoped_env e("GAEA_T_SIZE", "");  // empty means unset
  CHECK(size_s.read() == 4096);
  CHECK_FALSE(size_s.raw());
}

TEST_CASE("settings: set values are parsed into their types", "[env][settings]") {
  {
    scoped_env e("GAEA_T_SIZE", "3M");
    CHECK(size_s.read() == 3 << 20);
    CHECK(size_s.raw() == "3M");
  }
  {
    scoped_env e("GAEA_T_SECS", "0");
    CHECK(secs_s.read() == 0);
  }
  {
    scoped_env e("GAEA_T_FRAC", "0.5");
    CHECK(frac_s.read() == 0.5);
  }
  {
    scoped_env e("GAEA_T_FLAG", "1");
    CHECK(flag_s.read());
  }
  {
    scoped_env e("GAEA_T_TEXT", "a,b=c");
    CHECK(text_s.read() == "a,b=c");
  }
  {
    scoped_env e("GAEA_T_SHADE", "light");
    CHECK(shade_s.read() == shade::light);
  }
  {
    scoped_env e("GAEA_T_KIND", "y");
    CHECK(kind_s.read() == "y");
  }
}

TEST_CASE("settings: a bad value is an error naming the variable, the value and what it accepts",
          "[env][settings]") {
  {
    scoped_env e("GAEA_T_SIZE", "12x");
    CHECK_THROWS_AS(size_s.read(), gaea::error);
    CHECK_THAT(error_of([] { size_s.read(); }),
               Contains("environment variable GAEA_T_SIZE='12x' has an unknown suffix"));
  }
  {
    scoped_env e("GAEA_T_SIZE", "7");
    CHECK_THAT(error_of([] { size_s.read(); }), Contains("GAEA_T_SIZE='7' must be at least 8"));
  }
  {
    scoped_env e("GAEA_T_SECS", "2.5");
    CHECK_THAT(error_of([] { secs_s.read(); }),
               Contains("GAEA_T_SECS='2.5' must be a whole number of seconds"));
  }
  {
    scoped_env e("GAEA_T_FRAC", "1");
    CHECK_THAT(error_of([] { frac_s.read(); }),
               Contains("GAEA_T_FRAC='1' must be a fraction in (0, 1)"));
  }
  {
    scoped_env e("GAEA_T_FLAG", "yes");
    CHECK_THAT(error_of([] { flag_s.read(); }), Contains("GAEA_T_FLAG='yes' must be one of 0|1"));
  }
  {
    scoped_env e("GAEA_T_SHADE", "Dark");  // case-sensitive
    CHECK_THAT(error_of([] { shade_s.read(); }),
               Contains("GAEA_T_SHADE='Dark' must be one of dark|light"));
  }
  {
    scoped_env e("GAEA_T_KIND", "z");
    CHECK_THAT(error_of([] { kind_s.read(); }), Contains("GAEA_T_KIND='z' must be one of x|y"));
  }
}

TEST_CASE("settings: check_all and read give the same verdict", "[env][settings]") {
  scoped_env e("GAEA_T_SHADE", "grey");
  const std::string at_start = error_of([] { gaea::env::check_all(); });
  const std::string at_read = error_of([] { shade_s.read(); });
  CHECK(!at_read.empty());
  CHECK_THAT(at_start, Contains(at_read));
}

TEST_CASE("settings: registered in the table, grouped by owner in declaration order",
          "[env][settings]") {
  const auto& t = gaea::env::table();
  REQUIRE(t.size() == 7);
  CHECK(t[0].name == "GAEA_T_KIND");  // owner "a" before owner "t"
  const char* order[] = {"GAEA_T_SIZE", "GAEA_T_SECS", "GAEA_T_FRAC",
                         "GAEA_T_FLAG", "GAEA_T_TEXT", "GAEA_T_SHADE"};
  for (std::size_t i = 0; i < 6; ++i)
    CHECK(t[i + 1].name == order[i]);
  CHECK(t[1].owner == "t");
  CHECK(gaea::env::closest("GAEA_T_SHADES") == "GAEA_T_SHADE");
  CHECK(gaea::env::raw("GAEA_T_TEXT") == std::nullopt);
  CHECK_THAT(error_of([] { gaea::env::raw("GAEA_T_NONE"); }), Contains("is not registered"));
}

TEST_CASE("settings: a declaration that does not fit its type is refused as a bug",
          "[env][settings]") {
  using gaea::env::variable;
  CHECK_THAT(error_of([] {
               setting<bool> s{{"GAEA_T_B", "a", "h", value_kind::choice, "a|b", 0, "t"}};
             }),
             Contains("GAEA_T_B (module 't') is wrong: its kind does not fit bool"));
  CHECK_THAT(error_of([] {
               setting<std::int64_t> s{{"GAEA_T_I", "", "h", value_kind::text, {}, 0, "t"}};
             }),
             Contains("does not fit std::int64_t"));
  CHECK_THAT(error_of([] {
               setting<double> s{{"GAEA_T_D", "1", "h", value_kind::size, {}, 0, "t"}};
             }),
             Contains("does not fit double"));
  // An enum's names must be the declared choices (then check_all and the enum never differ).
  CHECK_THAT(error_of([] {
               setting<shade> s{{"GAEA_T_E", "dark", "h", value_kind::choice, "dark|dim", 0, "t"}};
             }),
             Contains("its choices are not the enum's names"));
  CHECK_THAT(
      error_of([] {
        setting<std::string> s{{"GAEA_T_K", "x", "h", value_kind::choice, "x|z", 0, "t"}, kinds};
      }),
      Contains("its choices are not the names given"));
  CHECK_THAT(error_of([] {
               setting<std::int64_t> s{{"GAEA_T_M", "4", "h", value_kind::size, {}, 8, "t"}};
             }),
             Contains("its default is not valid"));
  CHECK_THAT(error_of([] {
               setting<std::string> s{{"GAEA_T_TEXT", "", "h", value_kind::text, {}, 0, "u"}};
             }),
             Contains("the name is registered already"));
  CHECK_THAT(error_of([] {
               setting<std::string> s{{"GAEA_T_O", "", "h", value_kind::text, {}, 0, ""}};
             }),
             Contains("an owner are required"));
  CHECK(gaea::env::table().size() == 7);  // none of these was registered
}
