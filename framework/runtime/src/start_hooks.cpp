// The registry of the modules' start hooks (gaea/runtime/detail/start_hooks.hpp).

#include "gaea/runtime/detail/start_hooks.hpp"

#include <exception>
#include <vector>

#include "detail/run_start_hooks.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::detail {

namespace {
// Constructed on first use: the modules register from their static initializers, in any order.
std::vector<void (*)(runtime&)>& hooks() {
  static std::vector<void (*)(runtime&)> registered;
  return registered;
}
}  // namespace

void add_start_hook(void (*hook)(runtime&)) {
  hooks().push_back(hook);
}

void run_start_hooks(runtime& rt) {
  for (void (*hook)(runtime&) : hooks()) {
    try {
      hook(rt);
    } catch (const std::exception& e) {
      rt.fail(e.what(), 1);
    }
  }
}

}  // namespace gaea::detail
