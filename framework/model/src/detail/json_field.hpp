#pragma once
// Reading typed values out of the module's JSON files (machine descriptions, the apps' profiles)
// with errors that name the file and the key.

#include <nlohmann/json.hpp>
#include <string>

#include "gaea/base/error.hpp"

namespace gaea::model::detail {

/// The value of `key` in `j` as T. `what` names the file in errors ("profile 'p.json'"),
/// `where` prefixes the key's name ("intra."), `hint` follows a missing key's message.
template <class T>
T json_field(const nlohmann::json& j, const std::string& key, const std::string& what,
             const std::string& where = {}, const std::string& hint = {}) {
  const auto it = j.find(key);
  if (it == j.end()) throw error(what + ": key '" + where + key + "' missing" + hint);
  try {
    return it->template get<T>();
  } catch (const nlohmann::json::exception&) {
    throw error(what + ": key '" + where + key + "' has the wrong type: " + it->dump());
  }
}

/// json_field, or `fallback` when `key` is absent.
template <class T>
T json_field_or(const nlohmann::json& j, const std::string& key, T fallback,
                const std::string& what, const std::string& where = {}) {
  return j.contains(key) ? json_field<T>(j, key, what, where) : fallback;
}

/// `text` parsed, or a gaea::error naming `what`.
inline nlohmann::json parse_json(const std::string& text, const std::string& what) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw error(what + " is not valid JSON: " + e.what());
  }
}

}  // namespace gaea::model::detail
