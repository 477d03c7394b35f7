#include "gaea/runtime/runtime.hpp"

#include <atomic>
#include <cstdio>
#include <vector>

#include "gaea/base/env.hpp"
#include "gaea/comm/bootstrap.hpp"

namespace gaea {

namespace {
std::atomic<runtime*> g_current{nullptr};
std::unique_ptr<runtime> g_owned;  // for init()/finalize()
std::atomic<std::uint64_t> g_instances{0};

progress::mode resolve_mode(const std::string& text, bool has_own_hw_thread) {
  if (text == "off") return progress::mode::off;
  if (text == "spin") return progress::mode::spin;
  if (text == "adaptive") return progress::mode::adaptive;
  return has_own_hw_thread ? progress::mode::spin : progress::mode::adaptive;  // auto
}
}  // namespace

runtime::runtime(int* argc, char*** argv)
    : instance_(++g_instances), owner_(std::this_thread::get_id()) {
  if (g_current.load() != nullptr)
    throw Error("gaea::runtime: a runtime already exists in this process (construct it once)");
  // Read and validate every setting before any collective, so a bad value fails on all ranks.
  const std::string mode_text =
      env::get_choice("GAEA_PROGRESS", {"auto", "spin", "adaptive", "off"});
  const std::string bind_text = env::get_choice("GAEA_PROGRESS_BIND", {"auto", "none"});
  const bool verbose = env::get_int("GAEA_VERBOSE") != 0;
  const comm::config cfg = comm::config::from_env();

  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (finalized)
    throw Error("gaea::runtime: MPI was already finalized; create the runtime before MPI_Finalize");
  if (!inited) {
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    owns_mpi_ = true;
    if (provided < MPI_THREAD_FUNNELED)  // the progress thread exists, though it never calls MPI
      std::fprintf(stderr, "gaea: warning: MPI provides thread level %d < MPI_THREAD_FUNNELED\n",
                   provided);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_comm_);
  MPI_Comm_rank(node_comm_, &node_rank_);
  MPI_Comm_size(node_comm_, &node_size_);
  // Node ids: number the node leaders (node rank 0) in world-rank order.
  MPI_Comm leaders;
  MPI_Comm_split(MPI_COMM_WORLD, node_rank_ == 0 ? 0 : MPI_UNDEFINED, rank_, &leaders);
  if (node_rank_ == 0) {
    MPI_Comm_rank(leaders, &node_id_);
    MPI_Comm_size(leaders, &nodes_);
    MPI_Comm_free(&leaders);
  }
  MPI_Bcast(&node_id_, 1, MPI_INT, 0, node_comm_);
  MPI_Bcast(&nodes_, 1, MPI_INT, 0, node_comm_);

  topology_ = std::make_unique<topology>();
  const std::vector<int> own = topology_->thread_binding();
  const auto node_bindings = comm::allgatherv(node_comm_, own);
  placement_ = place_progress_thread(topology_->pus_by_core(), topology_->allowed_pus(), own,
                                     node_bindings, node_rank_);
  if (bind_text == "none") {
    placement_.cpus = topology_->allowed_pus();
    placement_.description = "unpinned (GAEA_PROGRESS_BIND=none)";
  }
  // Enough hardware threads for every main thread and every progress thread on the node?
  own_hw_ = placement_.dedicated || topology_->pus() >= 2 * node_size_;
  const progress::mode m = resolve_mode(mode_text, own_hw_);

  comm_ = std::make_unique<comm::context>(MPI_COMM_WORLD, cfg);
  progress_ = std::make_unique<progress::engine>(comm_->service(), m, placement_.cpus,
                                                 /*share_core=*/!own_hw_);
  comm_->set_poll_hook([this] { progress_->poll_service(); });
  barrier();
  g_current.store(this);
  if (verbose && rank_ == 0)
    std::fprintf(stderr, "gaea: %d ranks on %d node%s; rank 0 progress %s, %s; %s\n", size_, nodes_,
                 nodes_ == 1 ? "" : "s", std::string(progress::to_string(m)).c_str(),
                 placement_.description.c_str(), topology_->summary().c_str());
}

runtime::~runtime() {
  try {
    barrier();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gaea: rank %d: final barrier failed: %s\n", rank_, e.what());
  }
  g_current.store(nullptr);
  // Acknowledgements still owed to this thread's worker arrive before its endpoints close.
  comm::worker& w = worker();
  progress_->wait_until(w, [&w] { return w.pending_acks() <= 0; });
  // Origin workers next (their endpoints point at peers' service workers, which stay served by
  // the progress threads, or by the poll hook when off, until every rank has closed them), then
  // the progress thread. No blocking MPI call while a peer may still need this rank's service.
  comm_->release_workers();
  MPI_Request req;
  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  comm_->wait_mpi(req);
  comm_->set_poll_hook(nullptr);
  progress_.reset();
  comm_.reset();
  topology_.reset();
  if (node_comm_ != MPI_COMM_NULL) MPI_Comm_free(&node_comm_);
  if (owns_mpi_) MPI_Finalize();
}

runtime& runtime::current() {
  runtime* r = g_current.load();
  if (!r)
    throw Error(
        "gaea: the runtime is not initialized: construct a gaea::runtime (or call "
        "gaea::init) before using Gaea objects");
  return *r;
}

bool runtime::initialized() noexcept {
  return g_current.load() != nullptr;
}

void runtime::require_owner_thread(const char* what) const {
  if (std::this_thread::get_id() != owner_)
    throw Error(std::string("gaea: ") + what +
                " is collective and must be called from the thread that created the runtime");
}

void runtime::barrier() {
  require_owner_thread("runtime::barrier");
  comm::worker& w = worker();
  comm::completion flushed;
  w.flush_all(flushed);
  progress_->wait(w, flushed);
  MPI_Request req;
  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  int done = 0;
  progress_->wait_until(w, [&] {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    return done != 0;
  });
}

void init(int* argc, char*** argv) {
  if (g_owned) throw Error("gaea::init: already initialized");
  g_owned = std::make_unique<runtime>(argc, argv);
}

void finalize() {
  if (!g_owned)
    throw Error("gaea::finalize: gaea::init was not called (or finalize was called twice)");
  if (const auto live = g_owned->comm().live_segments(); !live.empty()) {
    std::string names;
    for (const auto& n : live)
      names += (names.empty() ? "" : ", ") + n;
    throw Error("gaea::finalize: " + std::to_string(live.size()) + " Gaea object(s) still alive (" +
                names + "); destroy them before finalize");
  }
  g_owned.reset();
}

}  // namespace gaea
