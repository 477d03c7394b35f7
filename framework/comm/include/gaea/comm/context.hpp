#pragma once
/// \file
/// gaea::comm::context — the transport of one rank: a UCX context with RMA, AMO64, AM and WAKEUP,
/// a service worker that peers connect to (driven by the progress thread), and one origin worker
/// per application thread. MPI is used only to exchange worker addresses and keys.

#include <mpi.h>

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "gaea/comm/op_stats.hpp"
#include "gaea/comm/service.hpp"
#include "gaea/comm/types.hpp"
#include "gaea/comm/worker.hpp"

namespace gaea::comm {

namespace detail {
struct access;  // internal members, for comm itself (src/detail/access.hpp)
}

class segment;

/// A rank's communication context: the UCX context, the service (target-side) worker, one origin
/// worker per thread, the active-message handler table and the MPI communicator it runs on.
/// Collective: construct and destroy on every rank of `comm` (destroy after a barrier).
/// Thread safety: this_thread_worker() and register_handler() are thread-safe; the service worker
/// follows the service_worker contract.
class context {
 public:
  /// Creates the UCX context and service worker, exchanges addresses over `comm` (duplicated).
  context(MPI_Comm comm, const config& cfg);
  ~context();
  context(const context&) = delete;
  context& operator=(const context&) = delete;

  /// This rank's number in the communicator.
  int rank() const noexcept { return rank_; }
  /// Number of ranks in the communicator.
  int size() const noexcept { return size_; }
  /// The configuration the context was created with.
  const config& cfg() const noexcept { return cfg_; }
  /// The context's duplicate of the communicator given to the constructor.
  MPI_Comm mpi_comm() const noexcept { return comm_; }

  /// True when `rank` shares this rank's node (MPI's shared-memory domain, by hostname).
  bool same_node(int rank) const {
    return node_of_.at(static_cast<std::size_t>(rank)) == node_of_[static_cast<std::size_t>(rank_)];
  }
  /// The node of `rank`, named by the lowest rank on it (equal values: same node).
  int node_of(int rank) const { return node_of_.at(static_cast<std::size_t>(rank)); }
  /// Host name of `rank` (MPI_Get_processor_name), for messages.
  const std::string& host(int rank) const { return hosts_.at(static_cast<std::size_t>(rank)); }
  /// The calling thread's origin worker, created (with endpoints to all ranks) on first use.
  worker& this_thread_worker();
  /// The target-side worker for the progress engine.
  service_worker& service();

  /// Registers `h` for `id` on this rank. Register on every rank before any peer sends to `id`
  /// (e.g. before the collective that creates the object the handler serves). Each id is
  /// registered at most once per context: gaea/comm/handler_ids.hpp assigns the ids, and a second
  /// registration throws gaea::error naming the id and its holder (nothing is replaced).
  void register_handler(handler_id id, am_handler h);

  /// Closes every origin worker (forced: call after a barrier that follows the last operation).
  /// The service worker stays up for peers that are still closing theirs.
  void release_workers();
  /// Operations issued so far by every worker of this rank (released workers included).
  op_totals operation_totals();

  /// Answers a request whose handler called am_message::defer(): sends `bytes` (at most the
  /// origin's reply capacity, gaea::error otherwise) and finishes the origin's remote completion
  /// with `status` (0 = success). Thread-safe; the service worker sends it on its next progress.
  void send_deferred_reply(const deferred_reply& token, std::span<const std::byte> bytes = {},
                           int status = 0);

  /// True when a handler is registered for `id` on this rank.
  bool has_handler(handler_id id) const noexcept {
    return handlers_[id].load(std::memory_order_acquire) != nullptr;
  }

  /// Handler failures caught on this rank's service worker (see am_handler).
  std::uint64_t handler_errors() const noexcept { return handler_errors_.load(); }

  /// Called by every transport-internal wait loop (collective allocation, endpoint close). The
  /// runtime sets it to progress the service worker when no progress thread does; without it a
  /// rank waiting there would stop serving its peers. Set/cleared by the owning thread only.
  void set_poll_hook(std::function<void()> hook) { poll_hook_ = std::move(hook); }
  /// Calls the poll hook if one is set (transport-internal wait loops; owning thread).
  void poll_hook() const {
    if (poll_hook_) poll_hook_();
  }
  /// Waits for a non-blocking MPI request of a collective over every rank of the context,
  /// described by `what` (the same text on every rank), through the MPI wait hook when one is
  /// set, else calling the poll hook.
  void wait_mpi(MPI_Request& req, std::string_view what = "an MPI collective over all ranks") const;
  /// How wait_mpi waits (the runtime's: through the progress engine, so that such a wait is
  /// described, warned about and watched like any other). Set/cleared by the owning thread only.
  void set_mpi_wait_hook(std::function<void(MPI_Request&, std::string_view)> hook) {
    mpi_wait_hook_ = std::move(hook);
  }
  /// Told when a message arrives for a handler id nobody registered on this rank: the ranks
  /// disagree about which objects exist, an error that must end the job. Called on the thread that
  /// progresses the service worker, inside its progress call, so it must only record the error
  /// (the runtime's engine::report_fatal). Without a hook the message is reported and dropped.
  /// Set before any peer can send (construction of the runtime), by the owning thread.
  void set_fatal_hook(std::function<void(const std::string&)> hook) {
    fatal_hook_ = std::move(hook);
  }

  /// Names of the segments still allocated (objects that outlive the runtime are an error).
  std::vector<std::string> live_segments() const;

 private:
  friend struct detail::access;
  class service_impl;
  void add_segment(segment* s);
  void retire_segment(segment* s);
  segment* find_segment(std::uint64_t id) const;
  std::vector<std::uint64_t> retired_since(std::uint64_t since) const;
  void dispatch(handler_id id, const am_message& msg);
  /// Throws gaea::error on every rank when UCX reaches a rank of another node through shared
  /// memory (collective).
  void check_off_node_transports(worker& w);
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  std::vector<int> node_of_;  // per rank: the lowest rank of its node
  std::vector<std::string> hosts_;
  config cfg_;
  ucp_context* ucp_ = nullptr;
  std::unique_ptr<service_impl> service_;
  std::vector<std::vector<std::byte>> service_addresses_;
  std::mutex workers_mutex_;
  std::vector<std::unique_ptr<worker>> workers_;
  op_totals released_ops_;  // operations of workers already destroyed
  // Read lock-free by the service worker; entries are set once and live until the context dies.
  std::array<std::atomic<am_handler*>, 256> handlers_{};
  std::vector<std::unique_ptr<am_handler>> handler_storage_;
  std::mutex handlers_mutex_;
  std::atomic<std::uint64_t> handler_errors_{0};
  std::uint64_t next_segment_id_ = 1;
  std::atomic<std::uint64_t> generation_;
  std::function<void()> poll_hook_;
  std::function<void(MPI_Request&, std::string_view)> mpi_wait_hook_;
  std::function<void(const std::string&)> fatal_hook_;
  mutable std::mutex segments_mutex_;
  std::vector<segment*> live_segments_;
  std::vector<std::uint64_t> retired_;
  std::atomic<std::uint64_t> retired_epoch_{0};
  bool leak_ucx_ = false;
};

}  // namespace gaea::comm
