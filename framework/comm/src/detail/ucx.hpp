#pragma once
// Internal helpers around the UCX C API: status checks and request plumbing.

#include <ucp/api/ucp.h>

#include <string>
#include <vector>

#include "gaea/base/error.hpp"
#include "gaea/comm/completion.hpp"
#include "gaea/comm/types.hpp"

namespace gaea::comm::detail {

// UCX active-message ids used by Gaea on the wire.
inline constexpr unsigned am_request_id = 10;  // origin worker -> target service worker
inline constexpr unsigned am_reply_id = 11;    // service worker -> origin worker (acks)

// Prefix of every request active message; the user header follows it.
struct am_wire_header {
  std::uint8_t handler;
  std::uint8_t flags;  // bit 0: reply requested
  std::uint16_t reserved;
  std::int32_t source;
  std::uint64_t cookie;          // origin's completion* for the remote completion, or 0
  std::uint64_t reply_addr;      // origin's reply buffer (0: none)
  std::uint64_t reply_capacity;  // its size in bytes
};

struct am_reply_payload {
  std::uint64_t cookie;
  std::int32_t status;  // 0 = handler ran; otherwise the handler threw
  std::int32_t reserved;
  std::uint64_t reply_addr;  // echoed from the request; the reply data (if any) goes there
};

// What a handler's am_message::reply()/defer() write to; read by the service worker afterwards.
struct reply_sink {
  std::vector<std::byte> bytes;
  bool requested = false;  // the origin asked for a remote completion
  bool deferred = false;
  deferred_reply token;
};

inline void check(ucs_status_t st, const std::string& what) {
  if (st != UCS_OK) throw error("gaea::comm: " + what + " failed: " + ucs_status_string(st));
}

// Send-style callback: user_data is a completion*.
inline void complete_cb(void* request, ucs_status_t status, void* user_data) {
  static_cast<completion*>(user_data)->finish(status == UCS_OK ? 0 : static_cast<int>(status));
  ucp_request_free(request);
}

// Attaches the result of a *_nbx call to `c`: immediate completion leaves `c` untouched, an
// in-flight request increments it (its callback decrements). An error is recorded in `c` and
// thrown by the wait, not here: requests posted earlier still point at `c`, so the caller must
// stop posting (return false) but let the wait drain them before anything unwinds.
inline bool attach(ucs_status_ptr_t p, completion& c, const char* what, int target,
                   std::size_t bytes = 0, op_kind kind = op_kind::flush) {
  if (p == nullptr) return true;
  if (UCS_PTR_IS_ERR(p)) {
    c.fail(static_cast<int>(UCS_PTR_STATUS(p)), what, target);
    return false;
  }
  c.add(what, target, bytes, kind);
  return true;
}

inline ucp_request_param_t completion_param(completion& c) {
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.send = complete_cb;
  p.user_data = &c;
  return p;
}

// Arms `w`'s event fd; false when events are pending (progress again before blocking).
inline bool arm(ucp_worker_h w) {
  const ucs_status_t st = ucp_worker_arm(w);
  if (st == UCS_ERR_BUSY) return false;
  check(st, "ucp_worker_arm");
  return true;
}

// The worker's event fd, or -1 when its transports cannot wake a blocked thread.
inline int event_fd(ucp_worker_h w) noexcept {
  int fd = -1;
  return ucp_worker_get_efd(w, &fd) == UCS_OK ? fd : -1;
}

}  // namespace gaea::comm::detail
