#include "gaea/comm/completion.hpp"

#include <ucs/type/status.h>

#include "gaea/base/error.hpp"

namespace gaea::comm {

void completion::check() const {
  const int st = status_.load(std::memory_order_relaxed);
  if (st == 0) return;
  const char* text = st == 1   ? "the target's handler failed"
                     : st == 2 ? "the target could not receive the data"
                               : ucs_status_string(static_cast<ucs_status_t>(st));
  throw Error(std::string("gaea::comm: ") + what_ + " failed: " + text);
}

}  // namespace gaea::comm
