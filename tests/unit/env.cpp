// Unit tests of the GAEA_* table: parsing, validation, suggestions, docs/environment.md in step.

#include <catch2/catch.hpp>

#include <cstdlib>

#include <algorithm>
#include <utility>
#include <vector>

#include "gaea/base/env.hpp"
#include "gaea/base/error.hpp"
#include "gaea/comm/types.hpp"
#include "gaea/progress/settings.hpp"

TEST_CASE("env: modules' settings parse with defaults and suffixes", "[env]") {
  // GAEA_MAX_TRANSFER is comm's setting, read by comm::config::from_env().
  unsetenv("GAEA_MAX_TRANSFER");
  CHECK(gaea::comm::config::from_env().max_transfer == (std::size_t{1} << 30));
  setenv("GAEA_MAX_TRANSFER", "64K", 1);
  CHECK(gaea::comm::config::from_env().max_transfer == 65536);
  setenv("GAEA_MAX_TRANSFER", "12x", 1);
  CHECK_THROWS_WITH(gaea::comm::config::from_env(),
                    Catch::Matchers::Contains("GAEA_MAX_TRANSFER='12x'"));
  setenv("GAEA_MAX_TRANSFER", "lots", 1);
  CHECK_THROWS_AS(gaea::comm::config::from_env(), gaea::error);
  setenv("GAEA_MAX_TRANSFER", "4", 1);
  CHECK_THROWS_WITH(gaea::comm::config::from_env(),
                    Catch::Matchers::Contains("GAEA_MAX_TRANSFER='4' must be at least 8"));
  unsetenv("GAEA_MAX_TRANSFER");
  setenv("GAEA_PROGRESS", "fast", 1);
  CHECK_THROWS_WITH(gaea::progress::mode_from_env(),
                    Catch::Matchers::Contains(
                        "'fast' must be one of auto|spin|adaptive|adaptive_fixed|interrupt|off"));
  unsetenv("GAEA_PROGRESS");
  CHECK(gaea::progress::mode_from_env() == gaea::progress::mode::automatic);
  // A variable no module registered is a programming error.
  CHECK_THROWS_WITH(gaea::env::raw("GAEA_NOT_A_THING"),
                    Catch::Matchers::Contains("is not registered"));
  for (const auto& v : gaea::env::table()) {
    CHECK(v.name.substr(0, 5) == "GAEA_");
    CHECK(!v.help.empty());
    CHECK(!v.owner.empty());
  }
}

TEST_CASE("env: every module's settings are registered with their owner", "[env]") {
  // One variable of each module that declares some (all of them: the docs test below).
  const std::pair<std::string_view, std::string_view> owned[] = {
      {"GAEA_COLL_CHUNK", "coll"},    {"GAEA_MAX_TRANSFER", "comm"},   {"GAEA_COUNTER", "counters"},
      {"GAEA_BLAS_THREADS", "dense"}, {"GAEA_THROTTLE", "energy"},     {"GAEA_STRIDED", "ga"},
      {"GAEA_PROGRESS", "progress"},  {"GAEA_HANG_TIMEOUT", "runtime"}};
  for (const auto& [name, owner] : owned) {
    INFO(name);
    const auto& t = gaea::env::table();
    const auto it = std::find_if(t.begin(), t.end(), [&](const auto& v) { return v.name == name; });
    REQUIRE(it != t.end());
    CHECK(it->owner == owner);
  }
  // Grouped by owner: each owner's variables are contiguous.
  std::vector<std::string_view> seen;
  for (const auto& v : gaea::env::table()) {
    if (!seen.empty() && seen.back() == v.owner) continue;
    CHECK(std::find(seen.begin(), seen.end(), v.owner) == seen.end());
    seen.push_back(v.owner);
  }
}

#include <fstream>
#include <sstream>

namespace {
// The reference of the variables for users: docs/environment.md (linked from the README).
std::string environment_doc() {
  std::ifstream in(std::string(GAEA_SOURCE_DIR) + "/docs/environment.md");
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("env: docs/environment.md documents exactly the variables of the table", "[env][docs]") {
  const std::string readme = environment_doc();
  for (const auto& v : gaea::env::table()) {
    INFO(v.name);
    CHECK(readme.find("| `" + std::string(v.name) + "` | `" + std::string(v.default_str) + "` |") !=
          std::string::npos);
  }
  // And no GAEA_ variable row in the document's variables section (up to its next "## " heading)
  // that the table does not know.
  const std::size_t begin = readme.find("# Environment variables");
  REQUIRE(begin != std::string::npos);
  const std::size_t end = readme.find("\n## ", begin);
  const std::string section = readme.substr(begin, end == std::string::npos ? end : end - begin);
  std::size_t pos = 0, rows = 0;
  while ((pos = section.find("| `GAEA_", pos)) != std::string::npos)
    ++rows, ++pos;
  CHECK(rows == gaea::env::table().size());
}

TEST_CASE("env: the docs/environment.md row of a choice variable names every choice",
          "[env][docs]") {
  const std::string readme = environment_doc();
  for (const auto& v : gaea::env::table()) {
    if (v.kind != gaea::env::value_kind::choice) continue;
    const std::size_t start = readme.find("| `" + std::string(v.name) + "` |");
    REQUIRE(start != std::string::npos);
    const std::string row = readme.substr(start, readme.find('\n', start) - start);
    std::string_view rest = v.choices;
    while (!rest.empty()) {
      const std::size_t bar = rest.find('|');
      const std::string choice(rest.substr(0, bar));
      rest = bar == std::string_view::npos ? std::string_view{} : rest.substr(bar + 1);
      INFO(v.name << " choice " << choice);
      CHECK(row.find("`" + choice + "`") != std::string::npos);
    }
  }
}

TEST_CASE("env: every default is a valid value of its own kind", "[env]") {
  for (const auto& v : gaea::env::table()) {
    INFO(v.name);
    if (!v.default_str.empty()) CHECK_FALSE(gaea::env::invalid(v, v.default_str));
    if (v.kind == gaea::env::value_kind::choice) CHECK(!v.choices.empty());
  }
}

TEST_CASE("env: values are validated by kind", "[env]") {
  using gaea::env::value_kind;
  const gaea::env::variable choice{"GAEA_X", "a", "h", value_kind::choice, "a|bb|c"};
  CHECK_FALSE(gaea::env::invalid(choice, "bb"));
  CHECK(gaea::env::invalid(choice, "b") == "must be one of a|bb|c");
  CHECK(gaea::env::invalid(choice, "A"));  // case-sensitive
  const gaea::env::variable size{"GAEA_X", "1", "h", value_kind::size, {}, 8};
  CHECK_FALSE(gaea::env::invalid(size, "8"));
  CHECK_FALSE(gaea::env::invalid(size, "2K"));
  CHECK(gaea::env::invalid(size, "7") == "must be at least 8");
  CHECK(gaea::env::invalid(size, "-1G"));
  CHECK(gaea::env::invalid(size, "12x"));
  CHECK(gaea::env::invalid(size, "9999999999999G") == "is out of range");
  const gaea::env::variable secs{"GAEA_X", "0", "h", value_kind::seconds};
  CHECK_FALSE(gaea::env::invalid(secs, "0"));
  CHECK_FALSE(gaea::env::invalid(secs, "20"));
  for (const char* bad : {"-1", "nan", "inf", "5s", "2.5", "1K", "", "1000000001"})
    CHECK(gaea::env::invalid(secs, bad));
  const gaea::env::variable frac{"GAEA_X", "0.5", "h", value_kind::fraction};
  CHECK_FALSE(gaea::env::invalid(frac, "0.02"));
  for (const char* bad : {"0", "1", "nan", "0.5x"})
    CHECK(gaea::env::invalid(frac, bad));
  const gaea::env::variable report{"GAEA_X", "0", "h", value_kind::report};
  for (const char* good : {"0", "1", "out/run.json"})
    CHECK_FALSE(gaea::env::invalid(report, good));
  for (const char* bad : {"2", "yes", ".json", "run.txt"})
    CHECK(gaea::env::invalid(report, bad));
}

TEST_CASE("env: misspelt names suggest the closest known one", "[env]") {
  CHECK(gaea::env::closest("GAEA_PROGRES") == "GAEA_PROGRESS");
  CHECK(gaea::env::closest("GAEA_PROGRESS_BND") == "GAEA_PROGRESS_BIND");
  CHECK(gaea::env::closest("gaea_counter") == "GAEA_COUNTER");
  CHECK(gaea::env::closest("GAEA_RKEYPTR") == "GAEA_RKEY_PTR");
  CHECK(gaea::env::closest("GAEA_TEST_NODE") == "GAEA_TEST_NODES");
  CHECK_FALSE(gaea::env::closest("GAEA_FOO"));
  CHECK_FALSE(gaea::env::closest("GAEA_SOMETHING_ELSE_ENTIRELY"));
}

TEST_CASE("env: check_all rejects invalid values and names all of them", "[env]") {
  for (const auto& v : gaea::env::table())
    unsetenv(std::string(v.name).c_str());
  CHECK_NOTHROW(gaea::env::check_all());
  setenv("GAEA_PROGRES", "spin", 1);  // unknown: a warning, not an error
  setenv("GAEA_TEST_NODES", "1", 1);  // a tool variable: silently accepted
  CHECK_NOTHROW(gaea::env::check_all());
  setenv("GAEA_COUNTER", "xyz", 1);
  setenv("GAEA_RKEY_PTR", "2", 1);
  setenv("GAEA_MAX_TRANSFER", "", 1);  // empty = unset
  try {
    gaea::env::check_all();
    FAIL("check_all accepted GAEA_COUNTER=xyz");
  } catch (const gaea::error& e) {
    const std::string what = e.what();
    CHECK_THAT(
        what, Catch::Matchers::Contains("GAEA_COUNTER='xyz' must be one of atomic|progress|owner"));
    CHECK_THAT(what, Catch::Matchers::Contains("GAEA_RKEY_PTR='2' must be one of 0|1"));
    CHECK_THAT(what, !Catch::Matchers::Contains("GAEA_MAX_TRANSFER"));
  }
  for (const char* n :
       {"GAEA_PROGRES", "GAEA_TEST_NODES", "GAEA_COUNTER", "GAEA_RKEY_PTR", "GAEA_MAX_TRANSFER"})
    unsetenv(n);
  CHECK_NOTHROW(gaea::env::check_all());
}

TEST_CASE("env: docs/environment.md names every tool variable", "[env][docs]") {
  const std::string readme = environment_doc();
  for (auto name : gaea::env::tool_variables()) {
    INFO(name);
    CHECK(readme.find(std::string(1, '`').append(name).append(1, '`')) != std::string::npos);
  }
}
