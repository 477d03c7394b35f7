// The out-of-line helpers of gaea::error's messages (format_index).

#include "gaea/base/error.hpp"

#include "gaea/base/assert.hpp"

namespace gaea {

std::string format_index(std::span<const std::int64_t> v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

namespace detail {

void assert_failed(const char* condition, const char* what, const char* file, int line) {
  throw error("internal error: " + std::string(what) + " (" + condition + ") at " + file + ":" +
              std::to_string(line));
}

}  // namespace detail

}  // namespace gaea
