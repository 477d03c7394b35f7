#pragma once
/// \file
/// GAEA_* environment variables. Each module declares the variables it reads in its own code, as
/// typed settings (`env::setting<T>`: name, default, accepted values, help, owner module) that
/// register themselves into one table when the module is loaded; `gaea-info --env` prints that
/// table and `check_all()` (called by the runtime's constructor) validates every set GAEA_*
/// variable against it before anything collective. A setting parses and checks its value with
/// the same function check_all() uses, so a reader can never accept what start-up rejects.
///
/// Registration is static (an object at namespace scope in the source that reads it, so every
/// program that can read a setting has it registered; docs/environment.md lists where); the
/// table itself is a function-local static, built on first use, so the order in which libraries
/// initialise does not matter. A program that links gaea::gaea loads every module
/// (cmake/gaea_settings_anchor.cpp), so its table is complete; a program that links only some
/// modules (gaea::energy alone) knows only theirs.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
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
  std::string_view owner = {};         ///< the module that declares and reads it ("coll")
};

/// Every registered variable, grouped by owner module (alphabetical), each module's in the order
/// it declares them. Thread-safe once registration is over (after static initialisation).
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

/// The raw value of a registered variable, or nullopt when unset/empty (for tools that show the
/// environment, such as gaea-info). Throws gaea::error if `name` is not in table(). Thread-safe
/// (reads environ only).
std::optional<std::string> raw(std::string_view name);

namespace detail {
// Internal to setting<T> (not API): registration and the checked text of a value.
void add(const variable& v);                  // throws if the name is registered already
std::string checked_text(const variable& v);  // the value or default; throws if invalid
std::int64_t to_int(const std::string& checked);
double to_double(const std::string& checked);
void require(bool ok, const variable& v, std::string_view why);  // unless ok: a bug
bool same_choices(std::string_view list, std::span<const std::string_view> names);
}  // namespace detail

/// A typed GAEA_* setting, declared at namespace scope in the module that reads it:
///
///     const env::setting<std::int64_t> chunk{{.name = "GAEA_COLL_CHUNK", .default_str = "64K",
///         .help = "...", .kind = env::value_kind::size, .min = 1, .owner = "coll"}};
///     s.chunk = chunk.read();
///
/// T and the kind agree: std::int64_t for size and seconds, double for fraction, bool for the
/// choice "0|1", std::string for text, report and choice, a named enum E for a choice whose
/// values are E's names. The constructor registers the variable into table() and throws
/// gaea::error (a bug, at load time) when T does not fit the kind, when an enum's names or the
/// given `names` differ from the declared choices, or when the name is registered twice. Not
/// copyable or movable: the table points at it.
template <class T>
class setting {
 public:
  /// Declares and registers `spec` (see the class comment for the checks). Not thread-safe: run
  /// during static initialisation, as every declaration at namespace scope is.
  explicit setting(const variable& spec) : spec_(spec) {
    check_type();
    detail::add(spec_);
  }
  /// A choice setting of type std::string whose values are `names` (another module's list, such
  /// as energy::actuator_kinds): they must be the declared choices, in any order.
  setting(const variable& spec, std::span<const std::string_view> names) : spec_(spec) {
    static_assert(std::is_same_v<T, std::string>, "names are for std::string choice settings");
    detail::require(spec_.kind == value_kind::choice && detail::same_choices(spec_.choices, names),
                    spec_, "its choices are not the names given");
    detail::add(spec_);
  }
  setting(const setting&) = delete;
  setting& operator=(const setting&) = delete;

  /// The declaration: name, default, accepted values, help, owner.
  const variable& spec() const noexcept { return spec_; }
  /// The variable's name ("GAEA_COLL_CHUNK").
  std::string_view name() const noexcept { return spec_.name; }
  /// The value as set, or nullopt when unset or empty. Thread-safe (reads environ only).
  std::optional<std::string> raw() const { return env::raw(spec_.name); }

  /// The value parsed now (the default when unset or empty). Modules read their settings once
  /// per runtime into typed fields. Throws gaea::error "environment variable NAME='value' must
  /// be ..." (the message check_all() gives) when the value is not accepted. Thread-safe.
  T read() const {
    const std::string text = detail::checked_text(spec_);
    if constexpr (std::is_same_v<T, std::int64_t>)
      return detail::to_int(text);
    else if constexpr (std::is_same_v<T, double>)
      return detail::to_double(text);
    else if constexpr (std::is_same_v<T, bool>)
      return text == "1";
    else if constexpr (std::is_same_v<T, std::string>)
      return text;
    else
      return *try_parse<T>(text);
  }

 private:
  // T fits the declared kind (and an enum's names are the declared choices), or a bug.
  void check_type() const {
    const value_kind k = spec_.kind;
    if constexpr (std::is_same_v<T, std::int64_t>) {
      detail::require(k == value_kind::size || k == value_kind::seconds, spec_,
                      "its kind does not fit std::int64_t");
    } else if constexpr (std::is_same_v<T, double>) {
      detail::require(k == value_kind::fraction, spec_, "its kind does not fit double");
    } else if constexpr (std::is_same_v<T, bool>) {
      detail::require(k == value_kind::choice && spec_.choices == "0|1", spec_,
                      "its kind does not fit bool (choices 0|1)");
    } else if constexpr (std::is_same_v<T, std::string>) {
      detail::require(
          k != value_kind::size && k != value_kind::seconds && k != value_kind::fraction, spec_,
          "its kind does not fit std::string");
    } else {
      static_assert(named_enum<T>,
                    "setting<T>: T is std::int64_t, double, bool, std::string or a named enum");
      std::vector<std::string_view> names;
      for (const enum_name<T>& e : names_of<T>().entries)
        names.push_back(e.name);
      detail::require(k == value_kind::choice && detail::same_choices(spec_.choices, names), spec_,
                      "its choices are not the enum's names");
    }
  }

  variable spec_;
};

}  // namespace gaea::env
