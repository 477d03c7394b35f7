// The service worker (see detail/service_impl.hpp).
#include "detail/service_impl.hpp"

#include <cstring>
#include <exception>
#include <iostream>
#include <memory>
#include <new>

#include "detail/access.hpp"

namespace gaea::comm {

context::service_impl::service_impl(context& ctx) : ctx_(ctx) {
  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SERIALIZED;  // progress thread, or the app thread when off
  detail::check(ucp_worker_create(detail::access::handle(ctx), &wp, &worker_),
                "ucp_worker_create(service)");
  ucp_am_handler_param_t hp{};
  hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                  UCP_AM_HANDLER_PARAM_FIELD_ARG;
  hp.id = detail::am_request_id;
  hp.cb = &service_impl::on_request;
  hp.arg = this;
  detail::check(ucp_worker_set_am_recv_handler(worker_, &hp), "set_am_recv_handler(request)");
}

context::service_impl::~service_impl() {
  // Drain acknowledgements still in flight so that their blocks are released.
  for (int i = 0; i < 1000 && (in_flight_ > 0 || !acks_.empty()); ++i)
    progress();
  ucp_worker_destroy(worker_);
}

std::vector<std::byte> context::service_impl::address() {
  ucp_address_t* addr = nullptr;
  std::size_t len = 0;
  detail::check(ucp_worker_get_address(worker_, &addr, &len), "ucp_worker_get_address");
  std::vector<std::byte> out(len);
  std::memcpy(out.data(), addr, len);
  ucp_worker_release_address(worker_, addr);
  return out;
}

unsigned context::service_impl::progress() {
  if (has_deferred_.load(std::memory_order_acquire)) {
    std::lock_guard lock(deferred_mutex_);
    for (auto& a : deferred_)
      acks_.push_back(std::move(a));
    deferred_.clear();
    has_deferred_.store(false, std::memory_order_relaxed);
  }
  unsigned n = ucp_worker_progress(worker_);
  if (!acks_.empty()) {
    n += static_cast<unsigned>(acks_.size());
    send_acks();
  }
  return n;
}

void context::service_impl::run_handler(const detail::am_wire_header& wire,
                                        std::span<const std::byte> header,
                                        std::span<const std::byte> data, ucp_ep_h reply_ep) {
  std::int32_t status = 0;
  detail::reply_sink sink;
  sink.requested = (wire.flags & 1u) != 0;
  sink.token = detail::access::token(reply_ep, wire.cookie, wire.reply_addr, wire.reply_capacity,
                                     wire.source);
  try {
    ctx_.dispatch(wire.handler,
                  detail::access::message(wire.source, header, data,
                                          static_cast<std::size_t>(wire.reply_capacity), &sink));
  } catch (const detail::reported_error&) {  // the job is ending with its message
    status = completion::handler_failed;
    ctx_.handler_errors_.fetch_add(1);
  } catch (const std::exception& e) {
    status = completion::handler_failed;
    ctx_.handler_errors_.fetch_add(1);
    std::cerr << "gaea: rank " << ctx_.rank() << ": active-message handler " << int(wire.handler)
              << " from rank " << wire.source << " failed: " << e.what() << std::endl;
  } catch (...) {
    status = completion::handler_failed;
    ctx_.handler_errors_.fetch_add(1);
    std::cerr << "gaea: rank " << ctx_.rank() << ": active-message handler " << int(wire.handler)
              << " from rank " << wire.source << " threw a non-standard exception" << std::endl;
  }
  // A deferred request is answered later through send_deferred_reply (unless it failed here).
  if (sink.requested && (!sink.deferred || status != 0))
    queue_ack(reply_ep, wire.cookie, status, wire.reply_addr,
              status == 0 ? std::move(sink.bytes) : std::vector<std::byte>{});
}

void context::service_impl::queue_ack(ucp_ep_h ep, std::uint64_t cookie, std::int32_t status,
                                      std::uint64_t reply_addr,
                                      std::vector<std::byte> data) noexcept {
  try {
    acks_.push_back(pending_ack{ep, {cookie, status, 0, reply_addr}, std::move(data)});
  } catch (...) {
    std::cerr << "gaea: rank " << ctx_.rank() << ": lost an acknowledgement (out of memory)"
              << std::endl;
  }
}

void context::service_impl::post_deferred(const deferred_reply& t, std::span<const std::byte> bytes,
                                          int status) {
  {
    std::lock_guard lock(deferred_mutex_);
    deferred_.push_back(
        pending_ack{detail::access::ep(t),
                    {detail::access::cookie(t), status, 0, detail::access::reply_addr(t)},
                    std::vector<std::byte>(bytes.begin(), bytes.end())});
    has_deferred_.store(true, std::memory_order_release);
  }
  std::lock_guard lock(waker_mutex_);
  if (waker_)
    waker_();  // the driver's wake-up signals this worker too
  else
    ucp_worker_signal(worker_);
}

void context::service_impl::set_waker(std::function<void()> waker) {
  std::lock_guard lock(waker_mutex_);
  waker_ = std::move(waker);
}

ucs_status_t context::service_impl::on_request(void* arg, const void* header, size_t header_length,
                                               void* data, size_t length,
                                               const ucp_am_recv_param_t* param) noexcept {
  auto* self = static_cast<service_impl*>(arg);
  try {
    return self->receive(header, header_length, data, length, param);
  } catch (...) {
    std::cerr << "gaea: rank " << self->ctx_.rank()
              << ": dropping an active message that could not be received" << std::endl;
    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) ucp_am_data_release(self->worker_, data);
    return UCS_OK;
  }
}

ucs_status_t context::service_impl::receive(const void* header, size_t header_length, void* data,
                                            size_t length, const ucp_am_recv_param_t* param) {
  service_impl* self = this;
  detail::am_wire_header wire{};
  if (header_length < sizeof wire) {  // not a Gaea request: drop it
    std::cerr << "gaea: rank " << ctx_.rank() << ": dropping a malformed active message ("
              << header_length << "-byte header)" << std::endl;
    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) ucp_am_data_release(worker_, data);
    return UCS_OK;
  }
  std::memcpy(&wire, header, sizeof wire);
  const auto* user = static_cast<const std::byte*>(header) + sizeof wire;
  const std::size_t user_len = header_length - sizeof wire;
  ucp_ep_h reply_ep =
      (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) ? param->reply_ep : nullptr;
  if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
    std::unique_ptr<rndv_recv> holder;
    try {
      holder.reset(new rndv_recv{self, wire, std::vector<std::byte>(user, user + user_len),
                                 staging_.take(length), length, reply_ep});
    } catch (const std::bad_alloc&) {  // no room for the payload: refuse it, tell the origin
      std::cerr << "gaea: rank " << ctx_.rank() << ": no memory for an active message of " << length
                << " bytes from rank " << wire.source << std::endl;
      ucp_am_data_release(worker_, data);
      if (wire.flags & 1u)
        queue_ack(reply_ep, wire.cookie, completion::receive_failed, wire.reply_addr);
      return UCS_OK;
    }
    auto* r = holder.release();
    ucp_request_param_t p{};
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p.cb.recv_am = &service_impl::on_rndv_done;
    p.user_data = r;
    ucs_status_ptr_t req =
        ucp_am_recv_data_nbx(self->worker_, data, r->data.bytes.get(), length, &p);
    if (req == nullptr) {
      on_rndv_done(nullptr, UCS_OK, length, r);
    } else if (UCS_PTR_IS_ERR(req)) {
      on_rndv_done(nullptr, UCS_PTR_STATUS(req), length, r);
    }
    return UCS_OK;
  }
  self->run_handler(wire, {user, user_len}, {static_cast<const std::byte*>(data), length},
                    reply_ep);
  return UCS_OK;
}

void context::service_impl::on_rndv_done(void* request, ucs_status_t status, size_t,
                                         void* user_data) noexcept {
  std::unique_ptr<rndv_recv> r(static_cast<rndv_recv*>(user_data));
  if (status == UCS_OK) {
    r->self->run_handler(r->wire, r->header, {r->data.bytes.get(), r->length}, r->reply_ep);
  } else {
    std::cerr << "gaea: rank " << r->self->ctx_.rank() << ": receiving active message from rank "
              << r->wire.source << " failed: " << ucs_status_string(status) << std::endl;
    if (r->wire.flags & 1u)
      r->self->queue_ack(r->reply_ep, r->wire.cookie, completion::receive_failed,
                         r->wire.reply_addr);
  }
  r->self->staging_.give(std::move(r->data));
  if (request) ucp_request_free(request);
}

void context::service_impl::on_ack_sent(void* request, ucs_status_t, void* user_data) {
  auto* b = static_cast<ack_block*>(user_data);
  --b->self->in_flight_;
  delete b;
  ucp_request_free(request);
}

void context::service_impl::send_acks() {
  std::vector<pending_ack> acks;
  acks.swap(acks_);
  for (auto& a : acks) {
    if (!a.ep) {
      std::cerr << "gaea: rank " << ctx_.rank() << ": no reply endpoint for an acknowledgement"
                << std::endl;
      continue;
    }
    auto* b = new ack_block{this, a.payload, std::move(a.data)};
    ucp_request_param_t p{};
    p.op_attr_mask =
        UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
    // Bare acknowledgements go eager; replies with data may use rendezvous (zero copy into
    // the origin's buffer).
    p.flags = b->data.empty() ? UCP_AM_SEND_FLAG_EAGER : 0;
    p.cb.send = &service_impl::on_ack_sent;
    p.user_data = b;
    ucs_status_ptr_t req =
        ucp_am_send_nbx(a.ep, detail::am_reply_id, &b->payload, sizeof b->payload,
                        b->data.empty() ? nullptr : b->data.data(), b->data.size(), &p);
    if (req == nullptr) {
      delete b;
    } else if (UCS_PTR_IS_ERR(req)) {
      std::cerr << "gaea: rank " << ctx_.rank()
                << ": acknowledgement failed: " << ucs_status_string(UCS_PTR_STATUS(req))
                << std::endl;
      delete b;
    } else {
      ++in_flight_;
    }
  }
}

}  // namespace gaea::comm
