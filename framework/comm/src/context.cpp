// gaea::comm::context: UCX set-up from the environment, address exchange over MPI, the service
// worker, per-thread origin workers, active-message dispatch and the segment registry.

#include "gaea/comm/context.hpp"

#include <net/if.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <sstream>
#include <string_view>

#include "detail/access.hpp"
#include "detail/private_transports.hpp"
#include "detail/process_limits.hpp"
#include "detail/rma_fallback.hpp"
#include "detail/service_impl.hpp"
#include "detail/ucx.hpp"
#include "gaea/base/env.hpp"
#include "gaea/comm/detail/bootstrap.hpp"
#include "gaea/comm/handler_ids.hpp"
#include "gaea/comm/segment.hpp"

namespace gaea::comm {

namespace {
// The transport's GAEA_* settings (gaea-info --env lists them with the other modules').
const env::setting<bool> rkey_ptr_setting{
    {"GAEA_RKEY_PTR", "1",
     "1 = use ucp_rkey_ptr direct load/store for get/put to peers on the node when UCX allows "
     "it; 0 = "
     "always go through UCX RMA",
     env::value_kind::choice, "0|1", 0, "comm"}};
const env::setting<std::int64_t> rkey_cache_setting{
    {"GAEA_RKEY_CACHE",
     "1024",
     "remote keys each worker keeps unpacked (an LFU cache per worker, [PGAS-BGQ eq. 5-6]): "
     "beyond it the least used key is evicted and unpacked again from its packed copy on next "
     "use. Keys of direct (same-node, ucp_rkey_ptr) peers are kept outside the count",
     env::value_kind::size,
     {},
     1,
     "comm"}};
const env::setting<std::int64_t> fail_mem_map_setting{
    {"GAEA_TEST_FAIL_MEM_MAP",
     "0",
     "for tests and benchmarks: a segment of at least this many bytes on a rank (K/M/G "
     "suffixes; 0 = never) acts there as if ucp_mem_map failed, so peers reach it through the "
     "active-message fall-back ([PGAS-BGQ eq. 8])",
     env::value_kind::size,
     {},
     0,
     "comm"}};
const env::setting<std::int64_t> max_transfer_setting{
    {"GAEA_MAX_TRANSFER",
     "1G",
     "largest single UCX transfer in bytes (K/M/G suffixes); larger transfers are split. Lower "
     "it only "
     "to test the splitting",
     env::value_kind::size,
     {},
     8,
     "comm"}};
}  // namespace

config config::from_env() {
  config c;
  c.max_transfer = static_cast<std::size_t>(max_transfer_setting.read());
  c.use_rkey_ptr = rkey_ptr_setting.read();
  c.rkey_cache = static_cast<std::size_t>(rkey_cache_setting.read());
  c.fail_mem_map = static_cast<std::size_t>(fail_mem_map_setting.read());
  return c;
}

namespace {
std::atomic<std::uint64_t> g_generation{1};

struct thread_worker_cache {
  const context* ctx = nullptr;
  std::uint64_t generation = 0;
  worker* w = nullptr;
};
thread_local thread_worker_cache t_worker;

std::vector<char> host_name() {
  char name[MPI_MAX_PROCESSOR_NAME + 1] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  return {name, name + len};
}
}  // namespace

context::context(MPI_Comm comm, const config& cfg) : cfg_(cfg), generation_(g_generation++) {
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);

  // UCX 1.13 sends tcp data in 8 KiB segments and receives in 64 KiB ones; 64 KiB sends are faster
  // for large transfers, no slower for small (docs/environment.md, "UCX options Gaea sets"). UCX
  // reads this transport setting from the environment when it opens the interface
  // (ucp_config_modify does not reach it); a user's value wins.
  // Checked before any collective: the same environment gives the same verdict on every rank.
  const char* user_tls = std::getenv("UCX_TLS");
  const std::string tls = detail::private_transports(user_tls ? user_tls : "",
                                                     detail::kernel_modules::of_this_machine());
  // Only where tcp may be used: UCX warns about a variable that no transport reads.
  if (detail::may_use(tls, "tcp")) setenv("UCX_TCP_TX_SEG_SIZE", "64K", /*overwrite=*/0);
  ucp_config_t* ucfg = nullptr;
  detail::check(ucp_config_read(nullptr, nullptr, &ucfg), "ucp_config_read");
  // Shared memory that only the job's user can map: no sysv (detail/private_transports.hpp).
  if (ucp_config_modify(ucfg, "TLS", tls.c_str()) != UCS_OK) {
    ucp_config_release(ucfg);
    throw error("gaea::comm: UCX does not accept UCX_TLS='" + tls + "' (from UCX_TLS='" +
                (user_tls ? user_tls : "") + "')");
  }
  // Node of every rank: the lowest world rank among those MPI places in its shared-memory domain.
  MPI_Comm node;
  MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  int leader = rank_;
  MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  node_of_ = detail::allgather_value(comm_, leader);
  for (const auto& h : detail::allgatherv(comm_, host_name()))
    hosts_.emplace_back(h.begin(), h.end());
  try {
    const bool posix = detail::may_use(tls, "posix");
    detail::check_process_limits(comm_, rank_, node_of_, posix);
  } catch (...) {
    ucp_config_release(ucfg);
    throw;
  }
  // UCX 1.13's tcp transport can crash when one process drives several tcp devices to itself
  // (openucx/ucx#7547, #8836). A single-node job gains nothing from a second device: use only
  // the loopback one unless the user chose devices.
  const bool one_node = std::all_of(node_of_.begin(), node_of_.end(), [](int n) { return n == 0; });
  if (one_node && !std::getenv("UCX_NET_DEVICES") && if_nametoindex("lo") != 0)
    ucp_config_modify(ucfg, "NET_DEVICES", "lo");
  // UCX's adaptive progress polls only the interfaces that a worker's own endpoints use. The
  // service worker only receives (the threads' workers make the endpoints), so its network
  // interface counts as idle and each message from another host reaches it through UCX's async
  // thread: a thread wake-up per message. A job across hosts polls every interface instead.
  if (!one_node && !std::getenv("UCX_ADAPTIVE_PROGRESS"))
    ucp_config_modify(ucfg, "ADAPTIVE_PROGRESS", "n");
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED |
                      UCP_PARAM_FIELD_ESTIMATED_NUM_EPS;
  params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO64 | UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
  params.mt_workers_shared = 1;
  params.estimated_num_eps = static_cast<std::size_t>(size_);
  const ucs_status_t st = ucp_init(&params, ucfg, &ucp_);
  ucp_config_release(ucfg);
  detail::check(st, "ucp_init (is UCX_TLS valid for this machine?)");

  service_ = std::make_unique<service_impl>(*this);
  register_handler(handler_ids::comm_rma,
                   [this](const am_message& m) { detail::serve_rma_request(*this, m); });
  service_addresses_ = detail::allgatherv(comm_, service_->address());
  // The thread that creates the context gets its worker now. It makes endpoints on first use
  // only: here, one to a rank of every other node (the check below), while all ranks are in
  // this collective. The addresses above stay allgathered: any worker may address any rank.
  worker& w = this_thread_worker();
  check_off_node_transports(w);
  MPI_Barrier(comm_);
}

namespace {
bool is_shared_memory_transport(std::string_view tl) {
  for (std::string_view sm : {"posix/", "sysv/", "xpmem/", "knem/", "cma/"})
    if (tl.starts_with(sm)) return true;
  return false;
}

}  // namespace

void context::check_off_node_transports(worker& w) {
  // UCX decides that a peer shares this machine by the kernel boot id; MPI by the hostname.
  // Hosts that are containers or network namespaces of one kernel share the boot id, so UCX may
  // pick shared memory between them, and messages sent that way never arrive: every wait would
  // hang. Endpoints to other nodes ask for peer-failure handling, which UCX 1.13's shared-memory
  // transports lack, so they are not chosen there; this guards UCX versions that add it. One
  // endpoint per other node tells (reachability is a property of the node pair).
  std::int64_t bad = std::numeric_limits<std::int64_t>::max();  // rank * size + peer
  std::string tls;
  for (int r = 0; r < size_ && bad == std::numeric_limits<std::int64_t>::max(); ++r) {
    if (node_of_[static_cast<std::size_t>(r)] != r || same_node(r)) continue;
    std::istringstream names(w.transports(r));
    for (std::string tl; names >> tl;)
      if (is_shared_memory_transport(tl)) {
        bad = static_cast<std::int64_t>(rank_) * size_ + r;
        tls = tl;
        break;
      }
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_MIN, comm_);
  if (bad == std::numeric_limits<std::int64_t>::max()) return;
  const int from = static_cast<int>(bad / size_), to = static_cast<int>(bad % size_);
  if (rank_ != from) tls = "shared memory";
  throw error("gaea::comm: UCX chose " + tls + " from rank " + std::to_string(from) + " (host '" +
              host(from) + "') to rank " + std::to_string(to) + " (host '" + host(to) +
              "'), which MPI places on another node. The hosts share one kernel boot id "
              "(containers or network namespaces on one machine), so UCX takes them for one "
              "machine, yet shared-memory messages between them are lost. Give every host its own "
              "/proc/sys/kernel/random/boot_id and /dev/shm (scripts/cluster.sh does), or keep "
              "shared memory out of UCX_TLS (e.g. UCX_TLS=tcp,self)");
}

context::~context() {
  poll_hook_ = nullptr;  // what it calls may already be gone
  {
    // Objects that outlive the transport: report them and leave their memory mapped (unmapping
    // after ucp_cleanup would crash); their destructors then do nothing.
    std::lock_guard lock(segments_mutex_);
    for (segment* s : live_segments_) {
      std::cerr << "gaea: rank " << rank_ << ": " << s->name()
                << " is still alive at finalize; destroy Gaea objects before the runtime"
                << std::endl;
      detail::access::orphan(*s);
    }
    if (!live_segments_.empty()) {
      live_segments_.clear();
      leak_ucx_ = true;
    }
  }
  {
    std::lock_guard lock(workers_mutex_);
    workers_.clear();
  }
  service_.reset();
  if (ucp_ && !leak_ucx_) ucp_cleanup(ucp_);
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

worker& context::this_thread_worker() {
  const std::uint64_t gen = generation_.load(std::memory_order_acquire);
  if (t_worker.ctx == this && t_worker.generation == gen) return *t_worker.w;
  std::lock_guard lock(workers_mutex_);
  workers_.push_back(std::make_unique<worker>(*this, static_cast<int>(workers_.size())));
  t_worker = {this, gen, workers_.back().get()};
  return *t_worker.w;
}

op_totals context::operation_totals() {
  std::lock_guard lock(workers_mutex_);
  op_totals t = released_ops_;
  for (const auto& w : workers_)
    w->stats().add_to(t);
  return t;
}

void context::release_workers() {
  std::lock_guard lock(workers_mutex_);
  for (const auto& w : workers_)
    w->stats().add_to(released_ops_);
  workers_.clear();
  generation_.store(g_generation++);  // invalidates every thread's cached worker pointer
}

service_worker& context::service() {
  return *service_;
}

void context::register_handler(handler_id id, am_handler h) {
  if (!h) throw error("gaea::comm: handler " + std::to_string(id) + " is empty");
  std::lock_guard lock(handlers_mutex_);
  // Two modules (or a module and an application) on one id would silently steal each other's
  // messages: the ids have one home, gaea/comm/handler_ids.hpp.
  if (handlers_[id].load(std::memory_order_relaxed))
    throw error("gaea::comm: handler id " + std::to_string(id) + " is already registered on rank " +
                std::to_string(rank_) + " (held by " + std::string(handler_ids::holder_of(id)) +
                "; gaea/comm/handler_ids.hpp lists the ids in use, applications take theirs in " +
                std::to_string(handler_ids::user_first) + "-" +
                std::to_string(handler_ids::user_last) + ")");
  handler_storage_.push_back(std::make_unique<am_handler>(std::move(h)));
  handlers_[id].store(handler_storage_.back().get(), std::memory_order_release);
}

void am_message::reply(std::span<const std::byte> bytes) const {
  if (!sink || !sink->requested)
    throw error("gaea::comm: reply to an active message from rank " + std::to_string(source) +
                " that asked for no remote completion");
  if (bytes.size() > reply_capacity)
    throw error("gaea::comm: reply of " + std::to_string(bytes.size()) +
                " bytes exceeds the reply buffer of " + std::to_string(reply_capacity) +
                " bytes that rank " + std::to_string(source) + " provided");
  sink->bytes.assign(bytes.begin(), bytes.end());
}

deferred_reply am_message::defer() const {
  if (!sink || !sink->requested)
    throw error("gaea::comm: cannot defer an active message from rank " + std::to_string(source) +
                " that asked for no remote completion");
  sink->deferred = true;
  return sink->token;
}

void context::send_deferred_reply(const deferred_reply& token, std::span<const std::byte> bytes,
                                  int status) {
  if (bytes.size() > detail::access::reply_capacity(token))
    throw error("gaea::comm: deferred reply of " + std::to_string(bytes.size()) +
                " bytes exceeds the reply buffer of " +
                std::to_string(detail::access::reply_capacity(token)) + " bytes that rank " +
                std::to_string(token.source()) + " provided");
  service_->post_deferred(token, bytes, status);
}

void context::dispatch(handler_id id, const am_message& msg) {
  am_handler* h = handlers_[id].load(std::memory_order_acquire);
  if (!h) {
    const std::string what =
        "gaea::comm: no handler registered for id " + std::to_string(id) + " (" +
        std::string(handler_ids::holder_of(id)) + ") on rank " + std::to_string(rank_) +
        ", which received a message for it from rank " + std::to_string(msg.source) +
        ": the ranks disagree about which Gaea objects exist (a collective call, such as the "
        "first coll::world() or an object's creation, left out or added on some ranks)";
    if (!fatal_hook_) throw error(what);
    fatal_hook_(what);
    throw detail::reported_error(what);
  }
  (*h)(msg);
}

void context::wait_mpi(MPI_Request& req, std::string_view what) const {
  if (mpi_wait_hook_) {
    mpi_wait_hook_(req, what);
    return;
  }
  int done = 0;
  while (true) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (done) return;
    poll_hook();
  }
}

void context::add_segment(segment* s) {
  std::lock_guard lock(segments_mutex_);
  live_segments_.push_back(s);
}

void context::retire_segment(segment* s) {
  std::lock_guard lock(segments_mutex_);
  std::erase(live_segments_, s);
  retired_.push_back(s->id());
  retired_epoch_.store(retired_.size(), std::memory_order_release);
}

segment* context::find_segment(std::uint64_t id) const {
  std::lock_guard lock(segments_mutex_);
  for (segment* s : live_segments_)
    if (s->id() == id) return s;
  return nullptr;
}

std::vector<std::uint64_t> context::retired_since(std::uint64_t since) const {
  std::lock_guard lock(segments_mutex_);
  return {retired_.begin() + static_cast<std::ptrdiff_t>(since), retired_.end()};
}

std::vector<std::string> context::live_segments() const {
  std::lock_guard lock(segments_mutex_);
  std::vector<std::string> names;
  for (const segment* s : live_segments_)
    names.push_back(s->name());
  return names;
}

}  // namespace gaea::comm
