#pragma once
// The service worker of a context: the target side of a rank, which every peer's endpoints
// address. It receives requests, runs their handlers and sends the acknowledgements (and
// deferred replies) back.

#include <ucp/api/ucp.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <vector>

#include "detail/staging_pool.hpp"
#include "detail/ucx.hpp"
#include "gaea/comm/context.hpp"

namespace gaea::comm {

class context::service_impl final : public service_worker {
 public:
  explicit service_impl(context& ctx);
  ~service_impl() override;
  std::vector<std::byte> address();
  unsigned progress() override;
  bool arm() override { return detail::arm(worker_); }
  int event_fd() override { return detail::event_fd(worker_); }
  void signal() override { ucp_worker_signal(worker_); }

 private:
  struct pending_ack {
    ucp_ep_h ep;
    detail::am_reply_payload payload;
    std::vector<std::byte> data;  // reply payload (may be empty)
  };
  struct rndv_recv {
    service_impl* self;
    detail::am_wire_header wire;
    std::vector<std::byte> header;
    detail::staging_pool::buffer data;  // `length` bytes used
    std::size_t length;
    ucp_ep_h reply_ep;
  };
  void run_handler(const detail::am_wire_header& wire, std::span<const std::byte> header,
                   std::span<const std::byte> data, ucp_ep_h reply_ep);
  void queue_ack(ucp_ep_h ep, std::uint64_t cookie, std::int32_t status, std::uint64_t reply_addr,
                 std::vector<std::byte> data = {}) noexcept;

  /// Any thread: queues the answer to a deferred request and wakes the service worker.
  void post_deferred(const deferred_reply& t, std::span<const std::byte> bytes, int status);
  void set_waker(std::function<void()> waker) override;

  // UCX callbacks must never throw: every exception is caught, reported and turned into a
  // failed acknowledgement.
  static ucs_status_t on_request(void* arg, const void* header, size_t header_length, void* data,
                                 size_t length, const ucp_am_recv_param_t* param) noexcept;
  ucs_status_t receive(const void* header, size_t header_length, void* data, size_t length,
                       const ucp_am_recv_param_t* param);
  static void on_rndv_done(void* request, ucs_status_t status, size_t, void* user_data) noexcept;

  struct ack_block {
    service_impl* self;
    detail::am_reply_payload payload;
    std::vector<std::byte> data;
  };
  static void on_ack_sent(void* request, ucs_status_t, void* user_data);
  void send_acks();

  context& ctx_;
  ucp_worker_h worker_ = nullptr;
  std::vector<pending_ack> acks_;
  detail::staging_pool staging_;  // rendezvous payloads, reused
  std::int64_t in_flight_ = 0;
  std::mutex deferred_mutex_;
  std::vector<pending_ack> deferred_;  // answers posted by other threads
  std::atomic<bool> has_deferred_{false};
  std::mutex waker_mutex_;
  std::function<void()> waker_;  // the driver's wake-up (see service_worker::set_waker)

  friend class context;
};

}  // namespace gaea::comm
