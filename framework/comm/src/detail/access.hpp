#pragma once
// The internal members of the public comm classes (context, worker, segment), for this module's
// own code only: the classes befriend this struct, so their headers show the API alone. Every
// function forwards inline (no cost on the transfer paths).

#include <ucp/api/ucp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gaea/base/error.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/segment.hpp"
#include "gaea/comm/worker.hpp"

namespace gaea::comm::detail {

/// A handler failure already handed to the context's fatal hook (the job is ending with its
/// message): counted by the service worker, not printed again.
struct reported_error : error {
  using error::error;
};

struct access {
  // context
  static ucp_context* handle(const context& c) noexcept { return c.ucp_; }
  /// Packed address of `rank`'s service worker.
  static const std::vector<std::byte>& service_address(const context& c, int rank) {
    return c.service_addresses_.at(static_cast<std::size_t>(rank));
  }
  /// This rank's proposal for the next segment's id: every id it has not used yet is at least
  /// this. The members of a segment agree on the largest proposal (unused on each of them).
  static std::uint64_t next_segment_id(const context& c) noexcept { return c.next_segment_id_; }
  /// Records that `id` is taken on this rank.
  static void use_segment_id(context& c, std::uint64_t id) noexcept {
    c.next_segment_id_ = std::max(c.next_segment_id_, id + 1);
  }
  static void add_segment(context& c, segment* s) { c.add_segment(s); }
  /// The live segment with id `id` on this rank, or null. Thread-safe.
  static segment* find_segment(context& c, std::uint64_t id) { return c.find_segment(id); }
  /// Unregisters `s` and retires its id: workers drop their keys for it lazily, on their thread.
  static void retire_segment(context& c, segment* s) { c.retire_segment(s); }
  static std::uint64_t retired_epoch(const context& c) noexcept {
    return c.retired_epoch_.load(std::memory_order_acquire);
  }
  /// Ids retired after epoch `since` (epoch = number of ids retired so far).
  static std::vector<std::uint64_t> retired_since(const context& c, std::uint64_t since) {
    return c.retired_since(since);
  }

  // worker
  static ucp_worker* handle(const worker& w) noexcept { return w.worker_; }
  /// The acknowledgement of a remote completion arrived (or will never come).
  static void ack_received(worker& w) noexcept { --w.pending_acks_; }
  /// Reports the lost peer behind `ep` and ends the process (UCX error callback).
  [[noreturn]] static void peer_lost(const worker& w, const ucp_ep* ep, const char* why) {
    w.peer_lost(ep, why);
  }

  // active messages
  static am_message message(int source, std::span<const std::byte> header,
                            std::span<const std::byte> data, std::size_t reply_capacity,
                            reply_sink* sink) noexcept {
    am_message m;
    m.source = source;
    m.header = header;
    m.data = data;
    m.reply_capacity = reply_capacity;
    m.sink = sink;
    return m;
  }
  static deferred_reply token(ucp_ep* ep, std::uint64_t cookie, std::uint64_t reply_addr,
                              std::uint64_t reply_capacity, int source) noexcept {
    deferred_reply t;
    t.ep_ = ep;
    t.cookie_ = cookie;
    t.reply_addr_ = reply_addr;
    t.reply_capacity_ = reply_capacity;
    t.source_ = source;
    return t;
  }
  static ucp_ep* ep(const deferred_reply& t) noexcept { return t.ep_; }
  static std::uint64_t cookie(const deferred_reply& t) noexcept { return t.cookie_; }
  static std::uint64_t reply_addr(const deferred_reply& t) noexcept { return t.reply_addr_; }
  static std::uint64_t reply_capacity(const deferred_reply& t) noexcept {
    return t.reply_capacity_;
  }

  // segment
  /// Called by a context destroyed while `s` lives: the memory stays mapped (leaked) and the
  /// destructor does nothing.
  static void orphan(segment& s) noexcept { s.ctx_ = nullptr; }
};

}  // namespace gaea::comm::detail
