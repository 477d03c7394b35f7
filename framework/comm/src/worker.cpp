// gaea::comm::worker: endpoints, put/get (contiguous and strided), atomics, active messages,
// flushes, and the active-message fall-back for memory without a registration.

#include "gaea/comm/worker.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <utility>

#include "detail/access.hpp"
#include "detail/rma_fallback.hpp"
#include "detail/ucx.hpp"
#include "gaea/base/detail/copy.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/handler_ids.hpp"
#include "gaea/comm/segment.hpp"

namespace gaea::comm {

namespace {

// A reply whose data comes by rendezvous: received straight into the origin's reply buffer.
struct reply_recv {
  worker* origin;
  completion* c;
  std::int32_t status;
};
void on_reply_data(void* request, ucs_status_t status, size_t, void* user_data) {
  auto* r = static_cast<reply_recv*>(user_data);
  r->c->finish(status == UCS_OK ? r->status : completion::receive_failed);
  detail::access::ack_received(*r->origin);
  delete r;
  if (request) ucp_request_free(request);
}

ucs_status_t on_reply(void* arg, const void* header, size_t header_length, void* data,
                      size_t length, const ucp_am_recv_param_t* param) {
  if (header_length < sizeof(detail::am_reply_payload)) return UCS_OK;
  detail::am_reply_payload r{};
  std::memcpy(&r, header, sizeof r);
  auto* self = static_cast<worker*>(arg);
  auto* c = reinterpret_cast<completion*>(r.cookie);
  if (length > 0 && r.reply_addr != 0) {
    auto* dst = reinterpret_cast<void*>(r.reply_addr);
    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
      auto* rr = new reply_recv{self, c, r.status};
      ucp_request_param_t p{};
      p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
      p.cb.recv_am = &on_reply_data;
      p.user_data = rr;
      ucs_status_ptr_t req =
          ucp_am_recv_data_nbx(detail::access::handle(*self), data, dst, length, &p);
      if (req == nullptr)
        on_reply_data(nullptr, UCS_OK, length, rr);
      else if (UCS_PTR_IS_ERR(req))
        on_reply_data(nullptr, UCS_PTR_STATUS(req), length, rr);
      return UCS_OK;
    }
    gaea::detail::copy_bytes(dst, data, length);
  }
  c->finish(r.status);
  detail::access::ack_received(*self);
  return UCS_OK;
}

// Keeps the operand of an atomic alive until UCX has consumed it.
struct atomic_block {
  completion* c;
  std::int64_t operand;
};
void atomic_cb(void* request, ucs_status_t status, void* user_data) {
  auto* b = static_cast<atomic_block*>(user_data);
  b->c->finish(status == UCS_OK ? 0 : static_cast<int>(status));
  delete b;
  ucp_request_free(request);
}

// Keeps the wire header (prefix + user header) alive until the send completes.
struct am_block {
  completion* local;
  completion* remote;
  worker* origin;
  std::vector<std::byte> header;
};
void am_cb(void* request, ucs_status_t status, void* user_data) {
  auto* b = static_cast<am_block*>(user_data);
  b->local->finish(status == UCS_OK ? 0 : static_cast<int>(status));
  if (status != UCS_OK && b->remote) {  // no acknowledgement will ever come
    b->remote->finish(completion::send_failed);
    detail::access::ack_received(*b->origin);
  }
  delete b;
  ucp_request_free(request);
}

// A peer this worker talks to is gone (its process died, or its host is unreachable). Gaea has
// no recovery: a global array or counter with a lost owner cannot be completed, so the rank
// says which peer it lost and ends, and the launcher ends the others.
void on_peer_failure(void* arg, ucp_ep_h ep, ucs_status_t status) {
  detail::access::peer_lost(*static_cast<const worker*>(arg), ep, ucs_status_string(status));
}

void close_cb(void* request, ucs_status_t, void* user_data) {
  --*static_cast<int*>(user_data);
  ucp_request_free(request);
}

}  // namespace

worker::worker(context& ctx, int index) : ctx_(ctx), index_(index) {
  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SINGLE;  // one worker per thread
  detail::check(ucp_worker_create(detail::access::handle(ctx), &wp, &worker_), "ucp_worker_create");
  ucp_am_handler_param_t hp{};
  hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                  UCP_AM_HANDLER_PARAM_FIELD_ARG;
  hp.id = detail::am_reply_id;
  hp.cb = &on_reply;
  hp.arg = this;
  detail::check(ucp_worker_set_am_recv_handler(worker_, &hp), "set_am_recv_handler(reply)");

  // Endpoints are made on first use (endpoint()): at P ranks, one to every peer would cost
  // every worker P endpoints (KiB, a socket or a QP each) and P wire-ups [PGAS-BGQ §III.B].
  eps_.resize(static_cast<std::size_t>(ctx.size()), nullptr);
  unflushed_.resize(static_cast<std::size_t>(ctx.size()), 0);
}

ucp_ep* worker::endpoint(int target) {
  ucp_ep*& slot = eps_[static_cast<std::size_t>(target)];
  if (slot) return slot;
  ucp_ep_params_t ep{};
  ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
  ep.address =
      reinterpret_cast<const ucp_address_t*>(detail::access::service_address(ctx_, target).data());
  // Peer-failure handling only towards other nodes: UCX 1.13's shared-memory transports do not
  // support it (UCX would fall back to tcp inside the node), and a process that dies on this
  // node is seen at once by the node's launcher daemon.
  if (!ctx_.same_node(target)) {
    ep.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
    ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    ep.err_handler.cb = &on_peer_failure;
    ep.err_handler.arg = this;
  }
  detail::check(ucp_ep_create(worker_, &ep, &slot),
                "ucp_ep_create to rank " + std::to_string(target) +
                    (ctx_.same_node(target) ? std::string()
                                            : " on another node (host '" + ctx_.host(target) +
                                                  "': UCX_TLS must include a network transport)"));
  ++endpoints_;
  return slot;
}

worker::~worker() {
  // Keys go before their endpoints (UCX's rule); nothing is outstanding any more.
  for (auto& [slot, k] : keys_)
    if (k.rkey) ucp_rkey_destroy(k.rkey);
  for (ucp_rkey* r : retired_keys_)
    ucp_rkey_destroy(r);
  // A graceful (flushing) close: a forced close is undefined unless every endpoint was created
  // with peer error handling. The peers' service workers are still being progressed (by their
  // progress threads, or through the poll hook by their application threads when off).
  int outstanding = 0;
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.send = close_cb;
  p.user_data = &outstanding;
  for (ucp_ep_h ep : eps_) {
    if (!ep) continue;
    ucs_status_ptr_t req = ucp_ep_close_nbx(ep, &p);
    if (req != nullptr && !UCS_PTR_IS_ERR(req)) ++outstanding;
  }
  while (outstanding > 0) {
    ucp_worker_progress(worker_);
    ctx_.poll_hook();
  }
  ucp_worker_destroy(worker_);
}

void worker::peer_lost(const ucp_ep* ep, const char* why) const {
  const auto it = std::find(eps_.begin(), eps_.end(), ep);
  const int peer = it == eps_.end() ? -1 : static_cast<int>(it - eps_.begin());
  std::fprintf(stderr,
               "gaea: rank %d (host %s): lost the connection to rank %d (host %s): %s; the job "
               "cannot continue without it\n",
               ctx_.rank(), ctx_.host(ctx_.rank()).c_str(), peer,
               peer >= 0 ? ctx_.host(peer).c_str() : "?", why);
  std::fflush(stderr);
  std::_Exit(EXIT_FAILURE);
}

unsigned worker::progress() {
  return ucp_worker_progress(worker_);
}

bool worker::arm() {
  return detail::arm(worker_);
}

int worker::event_fd() {
  return detail::event_fd(worker_);
}

void worker::signal() {
  ucp_worker_signal(worker_);
}

std::size_t worker::strided_extent(const segment& seg, std::size_t rows, std::size_t stride,
                                   std::size_t row_bytes, const char* op) const {
  std::size_t span = 0;
  if (__builtin_mul_overflow(rows - 1, stride, &span) ||
      __builtin_add_overflow(span, row_bytes, &span))
    throw error(std::string("gaea::comm: ") + op + " on segment '" + seg.name() +
                "': " + std::to_string(rows) + " rows of " + std::to_string(row_bytes) +
                " bytes, " + std::to_string(stride) + " bytes apart, overflow 64-bit offsets");
  return span;
}

void worker::check_range(int target, const segment& seg, std::uint64_t offset, std::size_t bytes,
                         const char* op) const {
  if (target < 0 || target >= ctx_.size())
    throw error(std::string("gaea::comm: ") + op + " on segment '" + seg.name() + "': rank " +
                std::to_string(target) + " out of range [0, " + std::to_string(ctx_.size()) + ")");
  const std::size_t sz = seg.size(target);
  if (offset > sz || bytes > sz - offset)
    throw error(std::string("gaea::comm: ") + op + " on segment '" + seg.name() + "': bytes [" +
                std::to_string(offset) + ", " + std::to_string(offset + bytes) + ") outside rank " +
                std::to_string(target) + "'s " + std::to_string(sz) + " bytes");
}

const worker::remote_key& worker::atomic_key(int target, const segment& seg, std::uint64_t offset,
                                             const char* op) {
  check_range(target, seg, offset, sizeof(std::int64_t), op);
  if (offset % 8 != 0)
    throw error(std::string("gaea::comm: ") + op + " on segment '" + seg.name() + "': offset " +
                std::to_string(offset) + " is not 8-byte aligned");
  return key(target, seg);
}

bool worker::is_direct(int target, const segment& seg) {
  return key(target, seg).direct != nullptr;
}

std::byte* worker::direct_base(int target, const segment& seg) {
  check_range(target, seg, 0, 0, "direct_base");
  return key(target, seg).direct;
}

void worker::put(int target, const segment& seg, std::uint64_t offset, const void* src,
                 std::size_t bytes, completion& local) {
  put_strided(target, seg, offset, bytes, src, bytes, bytes, 1, local);
}

void worker::get(int target, const segment& seg, std::uint64_t offset, void* dst, std::size_t bytes,
                 completion& done) {
  get_strided(target, seg, offset, bytes, dst, bytes, bytes, 1, done);
}

void worker::put_strided(int target, const segment& seg, std::uint64_t offset,
                         std::size_t remote_stride, const void* src, std::size_t local_stride,
                         std::size_t row_bytes, std::size_t rows, completion& local) {
  strided<direction::put>(target, seg, offset, remote_stride, static_cast<const std::byte*>(src),
                          local_stride, row_bytes, rows, local);
}

void worker::get_strided(int target, const segment& seg, std::uint64_t offset,
                         std::size_t remote_stride, void* dst, std::size_t local_stride,
                         std::size_t row_bytes, std::size_t rows, completion& done) {
  strided<direction::get>(target, seg, offset, remote_stride, static_cast<std::byte*>(dst),
                          local_stride, row_bytes, rows, done);
}

// One RMA (or one memcpy, on the direct path) per row, split at the transfer limit.
template <worker::direction Dir>
void worker::strided(int target, const segment& seg, std::uint64_t offset,
                     std::size_t remote_stride, local_ptr<Dir> local, std::size_t local_stride,
                     std::size_t row_bytes, std::size_t rows, completion& c) {
  constexpr const char* op = Dir == direction::put ? "put" : "get";
  if (rows == 0 || row_bytes == 0) return;
  check_range(target, seg, offset, strided_extent(seg, rows, remote_stride, row_bytes, op), op);
  stats_.record(Dir == direction::put ? op_kind::put : op_kind::get, rows * row_bytes);
  const remote_key& k = key(target, seg);
  if (k.direct) {
    for (std::size_t r = 0; r < rows; ++r) {
      std::byte* remote = k.direct + offset + r * remote_stride;
      local_ptr<Dir> mine = local + r * local_stride;
      if constexpr (Dir == direction::put)
        gaea::detail::copy_bytes(remote, mine, row_bytes);
      else
        gaea::detail::copy_bytes(mine, remote, row_bytes);
    }
    return;
  }
  if (!k.rkey) {
    strided_fallback<Dir>(target, seg, offset, remote_stride, local, local_stride, row_bytes, rows,
                          c);
    return;
  }
  ucp_request_param_t p = detail::completion_param(c);
  ucp_ep_h ep = endpoint(target);  // made by key() above
  if constexpr (Dir == direction::put)
    unflushed_[static_cast<std::size_t>(target)] += rows * row_bytes;
  const std::size_t max = ctx_.cfg().max_transfer;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t done = 0; done < row_bytes; done += max) {
      const std::size_t n = std::min(max, row_bytes - done);
      local_ptr<Dir> mine = local + r * local_stride + done;
      const std::uint64_t remote = k.base + offset + r * remote_stride + done;
      ucs_status_ptr_t req;
      if constexpr (Dir == direction::put)
        req = ucp_put_nbx(ep, mine, n, remote, k.rkey, &p);
      else
        req = ucp_get_nbx(ep, mine, n, remote, k.rkey, &p);
      if (!detail::attach(req, c, op, target, n,
                          Dir == direction::put ? op_kind::put : op_kind::get))
        return;
    }
}

template <worker::direction Dir>
void worker::strided_fallback(int target, const segment& seg, std::uint64_t offset,
                              std::size_t remote_stride, local_ptr<Dir> local,
                              std::size_t local_stride, std::size_t row_bytes, std::size_t rows,
                              completion& c) {
  const std::size_t max = ctx_.cfg().max_transfer;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t done = 0; done < row_bytes; done += max) {
      const std::size_t n = std::min(max, row_bytes - done);
      local_ptr<Dir> mine = local + r * local_stride + done;
      detail::rma_request q{};
      q.segment = seg.id();
      q.offset = offset + r * remote_stride + done;
      q.bytes = n;
      q.op = Dir == direction::put ? detail::rma_op::put : detail::rma_op::get;
      const auto header = std::as_bytes(std::span(&q, 1));
      // The same completion for the local and the remote side: a put is complete at the owner
      // when `c` is, so flush() has nothing more to wait for.
      if constexpr (Dir == direction::put)
        am_send(target, handler_ids::comm_rma, header, std::span(mine, n), c, &c);
      else
        am_send(target, handler_ids::comm_rma, header, {}, c, &c, std::span(mine, n));
    }
}

void worker::atomic_fallback(int target, const segment& seg, std::uint64_t offset, bool swap,
                             std::int64_t operand, std::int64_t desired, std::int64_t* result,
                             completion& c) {
  detail::rma_request q{};
  q.segment = seg.id();
  q.offset = offset;
  q.bytes = sizeof(std::int64_t);
  q.operand = operand;
  q.desired = desired;
  q.op = swap ? detail::rma_op::compare_swap : detail::rma_op::fetch_add;
  am_send(target, handler_ids::comm_rma, std::as_bytes(std::span(&q, 1)), {}, c, &c,
          std::as_writable_bytes(std::span(result, 1)));
}

namespace {
void post_atomic(ucp_ep_h ep, ucp_atomic_op_t op, std::int64_t operand, std::int64_t* result,
                 std::uint64_t raddr, ucp_rkey_h rkey, completion& c, int target,
                 const char* what) {
  auto* b = new atomic_block{&c, operand};
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                   UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
  p.cb.send = atomic_cb;
  p.user_data = b;
  p.datatype = ucp_dt_make_contig(sizeof(std::int64_t));
  p.reply_buffer = result;
  ucs_status_ptr_t req = ucp_atomic_op_nbx(ep, op, &b->operand, 1, raddr, rkey, &p);
  if (req == nullptr || UCS_PTR_IS_ERR(req)) delete b;
  detail::attach(req, c, what, target);
}
}  // namespace

void worker::fetch_add(int target, const segment& seg, std::uint64_t offset, std::int64_t value,
                       std::int64_t* result, completion& done) {
  const remote_key& k = atomic_key(target, seg, offset, "fetch_add");
  stats_.record(op_kind::atomic, sizeof(std::int64_t));
  if (!k.rkey) return atomic_fallback(target, seg, offset, false, value, 0, result, done);
  post_atomic(endpoint(target), UCP_ATOMIC_OP_ADD, value, result, k.base + offset, k.rkey, done,
              target, "fetch_add");
}

void worker::compare_swap(int target, const segment& seg, std::uint64_t offset,
                          std::int64_t expected, std::int64_t desired, std::int64_t* result,
                          completion& done) {
  const remote_key& k = atomic_key(target, seg, offset, "compare_swap");
  stats_.record(op_kind::atomic, sizeof(std::int64_t));
  if (!k.rkey) return atomic_fallback(target, seg, offset, true, expected, desired, result, done);
  *result = desired;  // UCX swaps *result in when the remote value equals `expected`
  post_atomic(endpoint(target), UCP_ATOMIC_OP_CSWAP, expected, result, k.base + offset, k.rkey,
              done, target, "compare_swap");
}

void worker::am_send(int target, handler_id id, std::span<const std::byte> header,
                     std::span<const std::byte> data, completion& local, completion* remote,
                     std::span<std::byte> reply) {
  if (!reply.empty() && !remote)
    throw error("gaea::comm: am_send with a reply buffer needs a remote completion");
  if (target < 0 || target >= ctx_.size())
    throw error("gaea::comm: am_send to rank " + std::to_string(target) + " out of range [0, " +
                std::to_string(ctx_.size()) + ")");
  if (data.size() > ctx_.cfg().max_transfer)
    throw error("gaea::comm: active message of " + std::to_string(data.size()) +
                " bytes exceeds the transfer limit of " + std::to_string(ctx_.cfg().max_transfer));
  stats_.record(op_kind::active_message, header.size() + data.size());
  auto* b = new am_block{&local, remote, this,
                         std::vector<std::byte>(sizeof(detail::am_wire_header) + header.size())};
  detail::am_wire_header wire{};
  wire.handler = id;
  wire.flags = remote ? 1 : 0;
  wire.source = ctx_.rank();
  wire.cookie = reinterpret_cast<std::uint64_t>(remote);
  wire.reply_addr = reinterpret_cast<std::uint64_t>(reply.data());
  wire.reply_capacity = reply.size();
  std::memcpy(b->header.data(), &wire, sizeof wire);
  if (!header.empty()) std::memcpy(b->header.data() + sizeof wire, header.data(), header.size());
  ucp_request_param_t p{};
  p.op_attr_mask =
      UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
  p.flags = remote ? UCP_AM_SEND_FLAG_REPLY : 0;
  p.cb.send = am_cb;
  p.user_data = b;
  if (remote) {
    remote->add("active message (remote completion)", target, header.size() + data.size(),
                op_kind::active_message);
    ++pending_acks_;
  }
  ucs_status_ptr_t req = ucp_am_send_nbx(endpoint(target), detail::am_request_id, b->header.data(),
                                         b->header.size(), data.data(), data.size(), &p);
  if (req == nullptr || UCS_PTR_IS_ERR(req)) {
    delete b;
    if (remote && UCS_PTR_IS_ERR(req)) {
      remote->finish(completion::send_failed);
      --pending_acks_;
    }
  }
  detail::attach(req, local, "active message", target, data.size(), op_kind::active_message);
}

void worker::flush(int target, completion& done) {
  if (target < 0 || target >= ctx_.size())
    throw error("gaea::comm: flush to rank " + std::to_string(target) + " out of range [0, " +
                std::to_string(ctx_.size()) + ")");
  stats_.record(op_kind::flush, 0);
  // No endpoint: nothing was ever issued to `target`, so there is nothing to complete.
  ucp_ep_h ep = eps_[static_cast<std::size_t>(target)];
  if (!ep) return;
  ucp_request_param_t p = detail::completion_param(done);
  const std::size_t bytes = std::exchange(unflushed_[static_cast<std::size_t>(target)], 0);
  detail::attach(ucp_ep_flush_nbx(ep, &p), done, "flush", target, bytes, op_kind::put);
}

void worker::flush_all(completion& done) {
  stats_.record(op_kind::flush, 0);
  ucp_request_param_t p = detail::completion_param(done);
  std::size_t bytes = 0;
  for (std::size_t& b : unflushed_)
    bytes += std::exchange(b, 0);
  detail::attach(ucp_worker_flush_nbx(worker_, &p), done, "flush_all", -1, bytes, op_kind::put);
}

std::string worker::transports(int target) {
  if (target < 0 || target >= ctx_.size())
    throw error("gaea::comm: transports of rank " + std::to_string(target) + " out of range [0, " +
                std::to_string(ctx_.size()) + ")");
  char* buf = nullptr;
  std::size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  if (!f) return "?";
  ucp_ep_print_info(endpoint(target), f);
  std::fclose(f);
  std::istringstream in(std::string(buf, len));
  std::free(buf);
  // Lines look like "#   lane[0]:  2:posix/memory.0 md[1] ... rma_bw#0 am". Keep tl/device.
  std::string line, out;
  while (std::getline(in, line)) {
    const auto lane = line.find("lane[");
    if (lane == std::string::npos) continue;
    std::istringstream ls(line.substr(line.find(':', lane) + 1));
    std::string tok;
    ls >> tok;
    const auto colon = tok.find(':');
    if (colon != std::string::npos) tok = tok.substr(colon + 1);
    const auto dot = tok.rfind('.');
    if (dot != std::string::npos) tok = tok.substr(0, dot);
    if (out.find(tok) == std::string::npos) out += (out.empty() ? "" : " ") + tok;
  }
  return out.empty() ? "?" : out;
}

}  // namespace gaea::comm
