// The table the modules' GAEA_* settings register into, their parsing and checks, and the
// start-up check of the whole environment.

#include "gaea/base/env.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "gaea/base/enum_names.hpp"
#include "gaea/base/error.hpp"

namespace gaea::env {

namespace {
// The registry: a function-local static, so registrations from any library's static
// initialisation find it built whatever the order in which the libraries initialise.
std::vector<variable>& registry() {
  static std::vector<variable> vars;
  return vars;
}
}  // namespace

const std::vector<variable>& table() {
  return registry();
}

const std::vector<std::string_view>& tool_variables() {
  // Read by scripts/build.sh, scripts/cluster.sh, tests/package, the Catch2 MPI main and the
  // hostile harness; listed so that start-up does not warn about them (see docs/environment.md).
  static const std::vector<std::string_view> names = {
      "GAEA_BUILD_DIR",        "GAEA_BUILD_TYPE",
      "GAEA_SKIP_DEPS",        "GAEA_CMAKE_ARGS",
      "GAEA_CLUSTER_NAME",     "GAEA_CLUSTER_DIR",
      "GAEA_CLUSTER_SUBNET",   "GAEA_CLUSTER_SHARED_IDENTITY",
      "GAEA_KEEP_PACKAGE_TMP", "GAEA_TEST_NODES",
      "GAEA_SOURCE_DIR",       "GAEA_BINARY_DIR",
      "GAEA_MPIEXEC",          "GAEA_HOSTILE_ID",
      "GAEA_HOSTILE_IN_NS"};
  return names;
}

namespace {

const variable* find(std::string_view name) {
  for (const auto& v : table())
    if (v.name == name) return &v;
  return nullptr;
}

const variable& lookup(std::string_view name) {
  if (const variable* v = find(name)) return *v;
  throw error("gaea::env: variable '" + std::string(name) +
              "' is not registered: declare it as an env::setting in the module that reads it");
}

std::vector<std::string_view> split_choices(std::string_view list) {
  std::vector<std::string_view> out;
  while (!list.empty()) {
    const std::size_t bar = list.find('|');
    out.push_back(list.substr(0, bar));
    list = bar == std::string_view::npos ? std::string_view{} : list.substr(bar + 1);
  }
  return out;
}

// Why not a "size": nullopt and the value, or the reason.
struct size_parse {
  std::int64_t value = 0;
  std::optional<std::string> error;
};

size_parse parse_size(const std::string& text) {
  size_parse r;
  std::size_t pos = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &pos, 10);
  } catch (const std::exception&) {
    r.error = "is not an integer (K/M/G suffixes allowed)";
    return r;
  }
  std::int64_t mult = 1;
  if (pos < text.size()) {
    switch (text[pos]) {
      case 'k':
      case 'K':
        mult = 1LL << 10;
        break;
      case 'm':
      case 'M':
        mult = 1LL << 20;
        break;
      case 'g':
      case 'G':
        mult = 1LL << 30;
        break;
      default:
        r.error = "has an unknown suffix (use K, M or G)";
        return r;
    }
    if (pos + 1 != text.size()) {
      r.error = "has trailing text";
      return r;
    }
  }
  if (value > std::numeric_limits<std::int64_t>::max() / mult ||
      value < std::numeric_limits<std::int64_t>::min() / mult) {
    r.error = "is out of range";
    return r;
  }
  r.value = value * mult;
  return r;
}

// A whole-string decimal number, or nullopt.
std::optional<double> parse_number(const std::string& text) {
  try {
    std::size_t pos = 0;
    const double v = std::stod(text, &pos);
    if (pos == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {  // not a number (or out of range): nullopt
  }
  return std::nullopt;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::optional<std::string> invalid(const variable& v, std::string_view value) {
  const std::string text(value);
  switch (v.kind) {
    case value_kind::choice:
      for (auto c : split_choices(v.choices))
        if (c == value) return std::nullopt;
      return "must be one of " + std::string(v.choices);
    case value_kind::size: {
      const size_parse p = parse_size(text);
      if (p.error) return *p.error;
      if (p.value < v.min) return "must be at least " + std::to_string(v.min);
      return std::nullopt;
    }
    case value_kind::seconds: {
      const size_parse p = parse_size(text);
      const bool digits = !text.empty() && std::isdigit(static_cast<unsigned char>(text.back()));
      if (p.error || !digits || p.value < 0 || p.value > 1'000'000'000)
        return std::string("must be a whole number of seconds in [0, 1000000000] (0: off)");
      return std::nullopt;
    }
    case value_kind::fraction: {
      const auto x = parse_number(text);
      if (!x || !(*x > 0 && *x < 1))
        return std::string("must be a fraction in (0, 1), e.g. 0.02 for 2%");
      return std::nullopt;
    }
    case value_kind::report:
      if (value == "0" || value == "1" || (value.ends_with(".json") && value.size() > 5))
        return std::nullopt;
      return std::string("must be 0, 1 or a file name ending in .json");
    case value_kind::text:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string_view> closest(std::string_view name) {
  const std::string key = upper(name);
  std::optional<std::string_view> best;
  std::size_t best_d = std::numeric_limits<std::size_t>::max();
  auto consider = [&](std::string_view candidate) {
    const std::size_t d = edit_distance(key, candidate);
    if (d < best_d) best_d = d, best = candidate;
  };
  for (const auto& v : table())
    consider(v.name);
  for (auto t : tool_variables())
    consider(t);
  // A misspelling changes a few letters of the part after GAEA_; an unrelated name changes most.
  const std::size_t suffix = key.size() > 5 ? key.size() - 5 : 0;
  if (!best || best_d > std::max<std::size_t>(1, suffix / 3)) return std::nullopt;
  return best;
}

void check_all() {
  std::string errors;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    const std::size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = entry.substr(0, eq), value = entry.substr(eq + 1);
    if (upper(name).rfind("GAEA_", 0) != 0) continue;
    if (const variable* v = find(name)) {
      if (value.empty()) continue;  // empty means unset (the default)
      if (auto why = invalid(*v, value))
        errors += std::string(errors.empty() ? "" : "; ") + "environment variable " +
                  std::string(name) + "='" + std::string(value) + "' " + *why;
      continue;
    }
    const auto& tools = tool_variables();
    if (std::find(tools.begin(), tools.end(), name) != tools.end()) continue;
    const auto near = closest(name);
    std::fprintf(stderr,
                 "gaea: warning: unknown environment variable %s=%s (%s%s); it is ignored\n",
                 std::string(name).c_str(), std::string(value).c_str(),
                 near ? "did you mean " : "gaea-info --env lists the known ones",
                 near ? (std::string(*near) + "?").c_str() : "");
  }
  if (!errors.empty()) throw error(errors);
}

std::optional<std::string> raw(std::string_view name) {
  const variable& v = lookup(name);
  const char* s = std::getenv(std::string(v.name).c_str());
  if (!s || !*s) return std::nullopt;
  return std::string(s);
}

namespace detail {

void add(const variable& v) {
  std::vector<variable>& vars = registry();
  require(v.name.starts_with("GAEA_") && !v.help.empty() && !v.owner.empty(), v,
          "a GAEA_ name, a help text and an owner are required");
  require(find(v.name) == nullptr, v, "the name is registered already");
  require(v.default_str.empty() || !invalid(v, v.default_str), v, "its default is not valid");
  // After the last of its owner's, or before the first owner that sorts after it.
  auto at =
      std::find_if(vars.begin(), vars.end(), [&](const variable& x) { return x.owner > v.owner; });
  vars.insert(at, v);
}

std::string checked_text(const variable& v) {
  const char* s = std::getenv(std::string(v.name).c_str());
  if (!s || !*s) return std::string(v.default_str);
  const std::string text(s);
  if (auto why = invalid(v, text))
    throw error("environment variable " + std::string(v.name) + "='" + text + "' " + *why);
  return text;
}

std::int64_t to_int(const std::string& checked) {
  return parse_size(checked).value;
}

double to_double(const std::string& checked) {
  return parse_number(checked).value_or(0);
}

void require(bool ok, const variable& v, std::string_view why) {
  if (!ok)
    throw error("gaea::env: the declaration of " + std::string(v.name) + " (module '" +
                std::string(v.owner) + "') is wrong: " + std::string(why) + " (a bug)");
}

bool same_choices(std::string_view list, std::span<const std::string_view> names) {
  std::vector<std::string_view> mine = split_choices(list), theirs(names.begin(), names.end());
  std::sort(mine.begin(), mine.end());
  std::sort(theirs.begin(), theirs.end());
  return mine == theirs;
}

}  // namespace detail

}  // namespace gaea::env
