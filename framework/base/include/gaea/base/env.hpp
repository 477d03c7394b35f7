#pragma once
/// \file
/// Every GAEA_* environment variable is declared in env.cpp's table, with its default, the values
/// it accepts and its meaning; `gaea-info --env` prints that table. Reading a variable not in the
/// table is a bug (gaea::error), so the table stays the single place where they are documented.
/// `check_all()` (called by the runtime's constructor) validates every set GAEA_* variable
/// against the table before anything collective.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gaea/base/enum_names.hpp"

namespace gaea::env {

/// What a variable accepts; check_all() validates a set value by it.
enum class value_kind {
  choice,    ///< one of `variable::choices` ("a|b|c"), case-sensitive
  size,      ///< an integer >= `variable::min`, with an optional K/M/G suffix (powers of 1024)
  seconds,   ///< a whole number of seconds in [0, 1e9] (no suffix)
  fraction,  ///< a decimal number in (0, 1)
  report,    ///< 0, 1 or a file name ending in .json
  text,      ///< any text (a file name, a list): validated where it is read
};

/// One documented environment variable.
struct variable {
  std::string_view name;               ///< e.g. "GAEA_PROGRESS"
  std::string_view default_str;        ///< default, as text
  std::string_view help;               ///< one-line meaning and accepted values
  value_kind kind = value_kind::text;  ///< how the value is parsed and checked
  std::string_view choices = {};       ///< value_kind::choice: the accepted values, "a|b|c"
  std::int64_t min = 0;                ///< value_kind::size: the smallest accepted value
};

/// All documented variables, in display order.
const std::vector<variable>& table();

/// GAEA_* names read by Gaea's scripts and tests, never by the library (GAEA_BUILD_DIR,
/// GAEA_CLUSTER_NAME, GAEA_TEST_NODES, ...): check_all() accepts them without a warning.
const std::vector<std::string_view>& tool_variables();

/// Why `value` is not acceptable for `v` ("must be one of atomic|progress|owner"), or nullopt
/// when it is. Pure function; thread-safe.
std::optional<std::string> invalid(const variable& v, std::string_view value);

/// The documented variable or tool variable nearest to `name` by edit distance (ignoring case),
/// or nullopt when none is close enough to be a plausible misspelling.
std::optional<std::string_view> closest(std::string_view name);

/// Checks every GAEA_* variable of this process's environment (names compared ignoring case):
/// a documented variable with an invalid value is an error; an unknown name gets a warning on
/// stderr ("gaea: warning: unknown environment variable GAEA_PROGRES=spin (did you mean
/// GAEA_PROGRESS?); it is ignored"). Local (not collective): every rank checks its own
/// environment, so with the same environment every rank reports the same. Throws gaea::error
/// naming every invalid variable, its value and what it accepts. Not thread-safe against
/// concurrent setenv.
void check_all();

/// The raw value of a documented variable, or nullopt when unset/empty.
/// Throws gaea::error if `name` is not in table(). Thread-safe (reads environ only).
std::optional<std::string> raw(std::string_view name);

/// The value, or the documented default when unset.
std::string get_string(std::string_view name);

/// Parses an integer with optional K/M/G suffix (powers of 1024).
/// Throws gaea::error naming the variable and the text when it does not parse.
std::int64_t get_int(std::string_view name);

/// Accepts one of `choices` (case-sensitive); throws gaea::error listing them otherwise. The
/// choices must be those of the table (a mismatch is a bug, reported as gaea::error), so that
/// check_all() and the reader accept the same values.
std::string get_choice(std::string_view name, const std::vector<std::string_view>& choices);

/// The value of a variable whose choices are the names of E (gaea/base/enum_names.hpp). E's
/// names must be the table's choices (a mismatch is a bug, reported as gaea::error), so the
/// table, check_all() and the enum never differ. Throws gaea::error listing the names otherwise.
template <named_enum E>
E get_enum(std::string_view name) {
  std::vector<std::string_view> names;
  for (const enum_name<E>& e : names_of<E>().entries)
    names.push_back(e.name);
  return *try_parse<E>(get_choice(name, names));
}

}  // namespace gaea::env
