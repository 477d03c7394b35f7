#pragma once
/// \file
/// Small shared types of the transport layer.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

// Opaque UCX handles, so that public headers do not pull in ucp.h.
struct ucp_context;
struct ucp_worker;
struct ucp_ep;
struct ucp_rkey;
struct ucp_mem;

namespace gaea::comm {

/// Identifies an active-message handler; a module picks ids from its own range
/// (comm reserves 0-15, ga 16-31, counters 32-47, applications 128-255).
using handler_id = std::uint8_t;
inline constexpr handler_id max_handlers = 255;

/// A received active message, valid only during the handler call.
struct am_message {
  int source;                         ///< origin rank
  std::span<const std::byte> header;  ///< the user header as sent
  std::span<const std::byte> data;    ///< the payload, whole (rendezvous is completed before)
};

/// Runs on the target's service worker (its progress thread, or the main thread when
/// asynchronous progress is off). Must not block or call communication functions.
/// An exception thrown here is reported on stderr and counted, never propagated into UCX.
using am_handler = std::function<void(const am_message&)>;

/// Transport configuration (from GAEA_* variables by default; see gaea::env::table()).
struct config {
  std::size_t max_transfer = std::size_t{1} << 30;  ///< split transfers larger than this
  bool use_rkey_ptr = true;  ///< direct load/store to peers on the node where UCX allows it
  static config from_env();
};

}  // namespace gaea::comm
