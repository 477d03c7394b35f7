#pragma once
/// \file
/// Internal (not API): the loop behind the modules' wait_all() functions (ga, coll).

#include <exception>
#include <span>

namespace gaea::detail {

/// Waits for every request of `rs` in order (anything with wait()); when some fail, the others
/// are still waited for, then the first error is rethrown.
template <class Request>
void wait_each(std::span<Request> rs) {
  std::exception_ptr first;
  for (Request& r : rs) {
    try {
      r.wait();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace gaea::detail
