#pragma once
// nlohmann::json for tests. Its internal checks are assert()s, compiled out under NDEBUG, so
// reading a missing key through a const json's operator[] is undefined behaviour: a test that
// should fail on a schema change would read freed or foreign memory instead (it did, once, in
// CI). Here they throw, and Catch2 reports the expression (inside nlohmann's noexcept functions
// the throw terminates: still a failure, never a silent read). Include this before any other path
// to nlohmann/json.hpp.

#include <stdexcept>
#include <string>

#ifdef INCLUDE_NLOHMANN_JSON_HPP_
#error "checked_json.hpp must come before any other include of nlohmann/json.hpp"
#endif
namespace gaea::test {
[[noreturn]] inline void json_check_failed(const char* expression) {
  throw std::logic_error(std::string("nlohmann::json check failed: ") + expression);
}
}  // namespace gaea::test
#define JSON_ASSERT(x) ((x) ? void(0) : ::gaea::test::json_check_failed(#x))
#include <nlohmann/json.hpp>
