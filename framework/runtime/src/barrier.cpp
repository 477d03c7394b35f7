// runtime::barrier (a dissemination barrier over active messages, after a flush) and the MPI
// barrier of start-up, before the active-message handlers of every rank exist.

#include <atomic>
#include <cstring>
#include <span>
#include <string>

#include "detail/runtime_state.hpp"
#include "gaea/comm/handler_ids.hpp"
#include "gaea/runtime/communicator.hpp"
#include "gaea/runtime/runtime.hpp"
#include "gaea/trace/recorder.hpp"

namespace gaea {

namespace {
struct barrier_header {
  std::uint64_t epoch;
  std::uint32_t round;
};
}  // namespace

void detail::runtime_state::wait_mpi(MPI_Request& req) {
  int done = 0;
  progress->wait_until(comm->this_thread_worker(), [&] {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    return done != 0;
  });
}

void detail::on_barrier_message(runtime_state& st, const comm::am_message& msg) {
  barrier_header h;
  if (msg.header.size() != sizeof h) throw error("gaea::runtime: malformed barrier message");
  std::memcpy(&h, msg.header.data(), sizeof h);
  if (h.round >= 64) throw error("gaea::runtime: barrier round out of range");
  st.arrivals[h.epoch & 1][h.round].fetch_add(1, std::memory_order_acq_rel);
  st.progress->notify_waiters();
}

void runtime::mpi_barrier() {
  MPI_Request req;
  MPI_Ibarrier(runtime_communicator(), &req);
  const progress::scoped_wait_label label([this] {
    return progress::wait_info{"the start-up barrier (MPI)", {}, ranks_from((rank_ + 1) % size_)};
  });
  st_->wait_mpi(req);
}

void runtime::barrier() {
  require_owner_thread("runtime::barrier");
  const trace::scoped_region region("barrier");
  comm::worker& w = worker();
  comm::completion flushed;
  w.flush_all(flushed);
  progress_->wait(w, flushed);
  // Dissemination barrier: in round k, signal rank + 2^k and wait for rank - 2^k. A peer can be at
  // most one barrier ahead, so arrivals are counted per epoch parity and consumed here.
  const std::uint64_t epoch = ++st_->barrier_epoch;
  auto& arrived = st_->arrivals[epoch & 1];
  comm::completion sent;
  std::uint32_t round = 0;
  int dist = 1;
  const progress::scoped_wait_label label([&] {
    const int from = (rank_ - dist % size_ + size_) % size_;
    // Round k's message leaves `from` when it enters round k.
    return progress::wait_info{
        "gaea::runtime::barrier number " + std::to_string(epoch),
        "round " + std::to_string(round) + ": waiting for " + describe_rank(from) +
            (round == 0 ? std::string(", which has not entered it")
                        : ", which has not reached round " + std::to_string(round)),
        ranks_from(from)};
  });
  for (; dist < size_; dist *= 2, ++round) {
    const barrier_header h{epoch, round};
    w.am_send((rank_ + dist) % size_, comm::handler_ids::runtime_barrier,
              std::as_bytes(std::span<const barrier_header>(&h, 1)), {}, sent, nullptr);
    std::atomic<int>& a = arrived[round];
    progress_->wait_until(
        w, [&a] { return a.load(std::memory_order_acquire) > 0; },
        /*notified=*/true);
    a.fetch_sub(1, std::memory_order_acq_rel);
  }
  progress_->wait(w, sent);
}

}  // namespace gaea
