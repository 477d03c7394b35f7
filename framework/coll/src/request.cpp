// gaea::coll::request: the handle of a non-blocking collective, its wait, test and wait_all.

#include "gaea/coll/request.hpp"

#include "detail/execution.hpp"
#include "gaea/base/detail/wait_each.hpp"

namespace gaea::coll {

void request::wait() {
  if (const auto held = release()) held->request_wait();
}

bool request::test() {
  if (!request_handle::test()) return false;
  (void)release();  // complete: the collective's state is not needed any more
  return true;
}

void wait_all(std::span<request> rs) {
  gaea::detail::wait_each(rs);
}

}  // namespace gaea::coll
