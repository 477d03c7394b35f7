#pragma once
/// \file
/// Internal (not API): the one way Gaea's destructors run work that can fail — waiting for an
/// operation a request still holds, or the collective clean-up of an array, counter or mutex set —
/// without throwing from a destructor.

#include <cstdio>
#include <exception>
#include <string_view>
#include <utility>

namespace gaea::detail {

/// Calls `f()`. A std::exception it throws is printed on stderr as `prefix`, its message and a
/// newline (e.g. "gaea: destroying shared_counter 'c': " ...), then dropped: a destructor cannot
/// throw, and the rank that failed says so. Anything else thrown ends the program (noexcept).
template <class F>
void destructor_call(std::string_view prefix, F&& f) noexcept {
  try {
    std::forward<F>(f)();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%.*s%s\n", static_cast<int>(prefix.size()), prefix.data(), e.what());
  }
}

}  // namespace gaea::detail
