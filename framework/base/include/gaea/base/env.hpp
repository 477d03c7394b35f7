#pragma once
/// \file
/// Every GAEA_* environment variable is declared in env.cpp's table, with its default and its
/// meaning; `gaea-info --env` prints that table. Reading a variable not in the table is a bug
/// (gaea::Error), so the table stays the single place where they are documented.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gaea::env {

/// One documented environment variable.
struct variable {
  std::string_view name;         ///< e.g. "GAEA_PROGRESS"
  std::string_view default_str;  ///< default, as text
  std::string_view help;         ///< one-line meaning and accepted values
};

/// All documented variables, in display order.
const std::vector<variable>& table();

/// The raw value of a documented variable, or nullopt when unset/empty.
/// Throws gaea::Error if `name` is not in table(). Thread-safe (reads environ only).
std::optional<std::string> raw(std::string_view name);

/// The value, or the documented default when unset.
std::string get_string(std::string_view name);

/// Parses an integer with optional K/M/G suffix (powers of 1024).
/// Throws gaea::Error naming the variable and the text when it does not parse.
std::int64_t get_int(std::string_view name);

/// Accepts one of `choices` (case-sensitive); throws gaea::Error listing them otherwise.
std::string get_choice(std::string_view name, const std::vector<std::string_view>& choices);

}  // namespace gaea::env
