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

/// Identifies an active-message handler; the ranges and the ids in use are listed in
/// gaea/comm/handler_ids.hpp (applications: handler_ids::user_first..user_last).
using handler_id = std::uint8_t;
/// Largest handler id.
inline constexpr handler_id max_handlers = 255;

namespace detail {
struct reply_sink;
struct access;  // internal members, for comm itself (src/detail/access.hpp)
}  // namespace detail

/// Token to answer an active message after its handler has returned (requests served later by
/// another thread, e.g. an owner's main thread): returned by am_message::defer(), passed to
/// context::send_deferred_reply(). Opaque and copyable; a default-constructed token is empty.
class deferred_reply {
 public:
  deferred_reply() = default;
  /// Rank whose request this token answers (-1 for an empty token).
  int source() const noexcept { return source_; }

 private:
  friend struct detail::access;
  ucp_ep* ep_ = nullptr;          // the service worker's reply endpoint
  std::uint64_t cookie_ = 0;      // origin's remote completion
  std::uint64_t reply_addr_ = 0;  // origin's reply buffer
  std::uint64_t reply_capacity_ = 0;
  int source_ = -1;  // origin rank
};

/// A received active message, valid only during the handler call.
struct am_message {
  int source = -1;                    ///< origin rank
  std::span<const std::byte> header;  ///< the user header as sent
  std::span<const std::byte> data;    ///< the payload, whole (rendezvous is completed before)
  /// Bytes the origin accepts as a reply (0 when it passed no reply buffer).
  std::size_t reply_capacity = 0;

  /// Sets the reply payload, delivered into the origin's reply buffer before its remote
  /// completion finishes. Throws gaea::error if more than reply_capacity bytes, or if the origin
  /// asked for no remote completion. Handler thread only, during the handler call.
  void reply(std::span<const std::byte> bytes) const;
  /// Takes over the acknowledgement: the handler returns without answering, and the origin's
  /// remote completion stays pending until context::send_deferred_reply(token, ...) is called
  /// (from any thread). Throws gaea::error if the origin asked for no remote completion.
  deferred_reply defer() const;

 private:
  friend struct detail::access;
  detail::reply_sink* sink = nullptr;  // where reply() and defer() write
};

/// Runs on the target's service worker (its progress thread, or the main thread when
/// asynchronous progress is off). Must not block or call communication functions.
/// An exception thrown here is reported on stderr and counted, never propagated into UCX.
using am_handler = std::function<void(const am_message&)>;

/// Transport configuration (from comm's GAEA_* settings by default; `gaea-info --env`).
struct config {
  std::size_t max_transfer = std::size_t{1} << 30;  ///< split transfers larger than this
  bool use_rkey_ptr = true;  ///< direct load/store to peers on the node where UCX allows it
  /// Remote keys a worker keeps unpacked (LFU; keys with a direct pointer are not counted).
  std::size_t rkey_cache = 1024;
  /// Test setting: segments of at least this many local bytes act as unregistrable (0: none).
  std::size_t fail_mem_map = 0;
  /// Reads the settings from the environment (GAEA_MAX_TRANSFER, GAEA_RKEY_PTR, GAEA_RKEY_CACHE,
  /// GAEA_TEST_FAIL_MEM_MAP). Throws gaea::error when a variable does not parse, when
  /// GAEA_MAX_TRANSFER is below 8 bytes or when GAEA_RKEY_CACHE is below 1.
  static config from_env();
};

}  // namespace gaea::comm
