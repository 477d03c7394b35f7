// The out-of-line helpers of gaea::error's messages (format_index).

#include "gaea/base/error.hpp"

namespace gaea {

std::string format_index(std::span<const std::int64_t> v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

}  // namespace gaea
