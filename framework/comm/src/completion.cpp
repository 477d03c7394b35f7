// gaea::comm::completion::check: resets the counter and throws the first failure it recorded.

#include "gaea/comm/completion.hpp"

#include <ucs/type/status.h>

#include "gaea/base/error.hpp"

namespace gaea::comm {

void completion::check() {
  bytes_.store(0, std::memory_order_relaxed);
  kinds_.store(0, std::memory_order_relaxed);
  const int st = status_.exchange(0, std::memory_order_relaxed);
  if (st == 0) return;
  const char* text = st == handler_failed   ? "the target's handler failed"
                     : st == receive_failed ? "the target could not receive the data"
                     : st == send_failed    ? "the message could not be sent"
                                            : ucs_status_string(static_cast<ucs_status_t>(st));
  throw error(std::string("gaea::comm: ") + what_ +
              (target_ >= 0 ? " to rank " + std::to_string(target_) : std::string()) +
              " failed: " + text);
}

}  // namespace gaea::comm
