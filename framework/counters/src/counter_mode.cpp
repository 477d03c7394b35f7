#include "gaea/counters/counter_mode.hpp"

#include <string>

#include "gaea/base/env.hpp"

namespace gaea::counters {

std::string_view to_string(counter_mode m) noexcept {
  switch (m) {
    case counter_mode::atomic:
      return "atomic";
    case counter_mode::progress:
      return "progress";
    case counter_mode::owner:
      return "owner";
  }
  return "?";
}

std::optional<counter_mode> parse_counter_mode(std::string_view text) noexcept {
  for (counter_mode m : {counter_mode::atomic, counter_mode::progress, counter_mode::owner})
    if (to_string(m) == text) return m;
  return std::nullopt;
}

counter_mode default_counter_mode() {
  return *parse_counter_mode(env::get_choice("GAEA_COUNTER", {"atomic", "progress", "owner"}));
}

}  // namespace gaea::counters
