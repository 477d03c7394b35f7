#pragma once
/// \file
/// One name table per enum, and everything that needs the names derived from it: to_string(),
/// parse() / try_parse(), choices() ("a|b|c") and env::setting<E> (env.hpp). A module declares
/// the table once, beside the enum, and a function `enum_names_of(E)` that ADL finds:
///
///     enum class mode { off, spin };
///     inline constexpr gaea::enum_name<mode> mode_names[] = {{mode::off, "off"},
///                                                             {mode::spin, "spin"}};
///     constexpr gaea::enum_names<mode> enum_names_of(mode) noexcept {
///       return {"progress mode", mode_names};
///     }
///
/// Then gaea::to_string(mode::spin) == "spin", gaea::parse<mode>("spin") == mode::spin, and
/// gaea::parse<mode>("fast") throws gaea::error("progress mode 'fast' is not one of off|spin").
/// Every function here is pure and thread-safe.

#include <concepts>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "gaea/base/error.hpp"

namespace gaea {

/// One value of an enum and its name.
template <class E>
struct enum_name {
  E value;                ///< the enum value
  std::string_view name;  ///< its name in settings and messages
};

/// An enum's name table: what one value is called in messages ("progress mode") and its
/// (value, name) pairs in display order.
template <class E>
struct enum_names {
  std::string_view what;                  ///< what one value is called in messages
  std::span<const enum_name<E>> entries;  ///< the (value, name) pairs in display order
};

/// An enum with a name table (an `enum_names_of(E)` found by argument-dependent lookup).
template <class E>
concept named_enum = std::is_enum_v<E> && requires(E e) {
  { enum_names_of(e) } -> std::same_as<enum_names<E>>;
};

/// The table of E.
template <named_enum E>
constexpr enum_names<E> names_of() noexcept {
  return enum_names_of(E{});
}

/// True when entry i of E's table is the value i: for tables that also index arrays by value.
template <named_enum E>
constexpr bool in_value_order() noexcept {
  std::size_t i = 0;
  for (const enum_name<E>& e : names_of<E>().entries)
    if (static_cast<std::size_t>(e.value) != i++) return false;
  return true;
}

/// The name of `v`, or "?" for a value outside the table.
template <named_enum E>
constexpr std::string_view to_string(E v) noexcept {
  for (const enum_name<E>& e : names_of<E>().entries)
    if (e.value == v) return e.name;
  return "?";
}

/// The value named `text` (case-sensitive), or nullopt.
template <named_enum E>
constexpr std::optional<E> try_parse(std::string_view text) noexcept {
  for (const enum_name<E>& e : names_of<E>().entries)
    if (e.name == text) return e.value;
  return std::nullopt;
}

/// `names` joined by `sep` ("auto|rapl|perf"): the form in which messages list accepted values.
inline std::string join_names(std::span<const std::string_view> names, std::string_view sep = "|") {
  std::string out;
  for (std::string_view n : names) {
    if (!out.empty()) out += sep;
    out += n;
  }
  return out;
}

/// Every name of E in table order, joined by `sep` ("off|spin|adaptive").
template <named_enum E>
std::string choices(std::string_view sep = "|") {
  std::string out;
  for (const enum_name<E>& e : names_of<E>().entries) {
    if (!out.empty()) out += sep;
    out += e.name;
  }
  return out;
}

/// The value named `text`. Throws gaea::error naming what was parsed, the text and the accepted
/// names ("progress mode 'fast' is not one of off|spin|adaptive|interrupt|auto").
template <named_enum E>
E parse(std::string_view text) {
  if (auto v = try_parse<E>(text)) return *v;
  throw error(std::string(names_of<E>().what) + " '" + std::string(text) + "' is not one of " +
              choices<E>());
}

}  // namespace gaea
