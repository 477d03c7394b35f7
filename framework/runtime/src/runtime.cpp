// gaea::runtime's lifecycle: start-up (MPI, then the set-up units: settings, placement, node
// energy; then the transport, progress engine and handlers) and shut-down, the accessors, app
// polls, and init/poll/finalize. Barriers, failure, energy and the report have their own units.

#include "gaea/runtime/runtime.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "detail/report.hpp"
#include "detail/run_start_hooks.hpp"
#include "detail/runtime_state.hpp"
#include "gaea/base/clock.hpp"
#include "gaea/base/launcher.hpp"
#include "gaea/base/temporaries.hpp"
#include "gaea/comm/handler_ids.hpp"
#include "gaea/runtime/communicator.hpp"
#include "gaea/runtime/extension.hpp"
#include "gaea/runtime/topology.hpp"

namespace gaea {

namespace {
std::atomic<runtime*> g_current{nullptr};
// The communicator of the live (or next) runtime; set_runtime_communicator changes it.
MPI_Comm g_comm = MPI_COMM_WORLD;
std::unique_ptr<runtime> g_owned;  // for init()/finalize()
std::atomic<std::uint64_t> g_instances{0};
}  // namespace

MPI_Comm runtime_communicator() noexcept {
  return g_comm;
}
void set_runtime_communicator(MPI_Comm comm) {
  if (g_current.load() != nullptr)
    throw error("set_runtime_communicator: a gaea::runtime is live; destroy it first");
  if (comm == MPI_COMM_NULL) throw error("set_runtime_communicator: MPI_COMM_NULL");
  g_comm = comm;
}
MPI_Comm node_comm(const runtime& rt) noexcept {
  return detail::runtime_state::of(rt).node_comm;
}

runtime::runtime() : runtime(nullptr, nullptr) {}

runtime::runtime(int* argc, char*** argv)
    : instance_(++g_instances), st_(new detail::runtime_state()) {
  try {
    start(argc, argv);
  } catch (...) {
    delete st_;  // what start() built goes, in the state's order
    throw;
  }
}

void runtime::start(int* argc, char*** argv) {
  st_->owner = std::this_thread::get_id();
  if (g_current.load() != nullptr)
    throw error("gaea::runtime: a runtime already exists in this process (construct it once)");
  // Read and validate every setting before any collective, so a bad value fails on all ranks.
  st_->cfg = detail::read_runtime_settings();
  st_->uncaught_at_start = std::uncaught_exceptions();
  // Before MPI_Init, which may take its own arguments out of argv.
  st_->command_line = detail::command_line(argc, argv);
  start_mpi(argc, argv);
  st_->where = detail::place_on_node(st_->node_comm, node_rank_, node_size_, st_->cfg.bind,
                                     st_->cfg.shared_cores);
  st_->energy = detail::make_node_energy(st_->cfg, *this, g_comm, st_->node_comm, st_->where);
  start_transport();
  st_->start_ns = gaea::monotonic_ns();
  detail::add_runtime_report_sections(*this, *st_);
  // A report covers the whole run: choose (and prove) the meter now rather than at finalize,
  // since meters count from their creation.
  if (st_->cfg.report != "0") energy();
  // Every rank registers the barrier handler before this MPI barrier; the AM barrier is safe after.
  mpi_barrier();
  // The report's interval starts here, after the start-up work of every rank (the meter's proof
  // burns CPU) and at nearly the same moment on every rank.
  st_->report_start_ns = gaea::monotonic_ns();
  st_->report_start_cpu_ns = gaea::process_cpu_ns();
  st_->report_start_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
  g_current.store(this);
  st_->previous_terminate = detail::install_terminate_handler();
  print_start_lines();
  detail::run_start_hooks(*this);  // the modules' collective set-up (e.g. coll's world group)
}

void runtime::start_mpi(int* argc, char*** argv) {
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (finalized)
    throw error("gaea::runtime: MPI was already finalized; create the runtime before MPI_Finalize");
  if (!inited) {
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    st_->owns_mpi = true;
    if (provided < MPI_THREAD_FUNNELED)  // the progress thread exists, though it never calls MPI
      std::fprintf(stderr, "gaea: warning: MPI provides thread level %d < MPI_THREAD_FUNNELED\n",
                   provided);
  }
  // After MPI_Init, so that a handler MPI installs is chained: SIGTERM/SIGINT/SIGHUP (mpirun
  // passes them on to the ranks) remove this rank's temporaries before ending it.
  install_temporary_cleanup();
  MPI_Comm_rank(g_comm, &rank_);
  MPI_Comm_size(g_comm, &size_);
  MPI_Comm_split_type(g_comm, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &st_->node_comm);
  MPI_Comm_rank(st_->node_comm, &node_rank_);
  MPI_Comm_size(st_->node_comm, &node_size_);
  // Node ids: number the node leaders (node rank 0) in world-rank order.
  MPI_Comm leaders;
  MPI_Comm_split(g_comm, node_rank_ == 0 ? 0 : MPI_UNDEFINED, rank_, &leaders);
  if (node_rank_ == 0) {
    MPI_Comm_rank(leaders, &node_id_);
    MPI_Comm_size(leaders, &nodes_);
    MPI_Comm_free(&leaders);
  }
  MPI_Bcast(&node_id_, 1, MPI_INT, 0, st_->node_comm);
  MPI_Bcast(&nodes_, 1, MPI_INT, 0, st_->node_comm);
}

void runtime::start_transport() {
  const detail::runtime_settings& cfg = st_->cfg;
  detail::node_energy& e = *st_->energy;
  st_->comm = std::make_unique<comm::context>(g_comm, cfg.transport);
  comm_ = st_->comm.get();
  progress::engine_options po;
  po.initial = cfg.mode;
  po.cpus = st_->where.progress.cpus;
  po.share_core = !st_->where.own_hw;
  po.ranks_share_cores = st_->where.ranks_share_cores;
  po.governor = e.governor.get();
  po.markup = e.managed() ? e.markup.get() : nullptr;
  po.cal = progress::calibrate();
  po.cal.dvfs_ns = e.actuator->transition_cost_ns();
  po.fixed_step = cfg.fixed_step;
  po.max_slowdown = cfg.max_slowdown;
  po.trace = !cfg.trace.empty();
  po.trace_capacity = static_cast<std::size_t>(cfg.trace_events);
  po.app_poll = [this] { return run_app_polls(); };
  po.app_thread = st_->owner;
  po.hang_timeout_ns = cfg.hang_timeout_ns;
  po.hang_warn_ns = cfg.hang_warn_ns;
  po.self = describe_rank(rank_);
  st_->asker = std::make_unique<detail::status_asker>([this](int r) { return describe_rank(r); });
  po.ask_peers = [this](comm::worker& w, const progress::wait_info& info) {
    return st_->asker->ask(w, info);
  };
  po.on_fatal = [this](const std::string& why) { fail(why, 1); };
  st_->progress = std::make_unique<progress::engine>(comm_->service(), std::move(po));
  progress_ = st_->progress.get();
  comm_->set_poll_hook([this] { progress_->poll_service(); });
  // A message for a handler nobody registered here ends the job (the engine calls fail() once
  // out of the handler).
  comm_->set_fatal_hook([this](const std::string& why) { progress_->report_fatal(why); });
  // Transport-internal MPI collectives (an object's memory) wait like every other wait.
  comm_->set_mpi_wait_hook([this](MPI_Request& req, std::string_view what) {
    const progress::scoped_wait_label label([&] {
      return progress::wait_info{std::string(what), {}, ranks_from((rank_ + 1) % size_)};
    });
    st_->wait_mpi(req);
  });
  detail::runtime_state& st = *st_;
  comm_->register_handler(comm::handler_ids::runtime_status, [&st](const comm::am_message& msg) {
    detail::answer_status(msg, st.progress->current_status());
  });
  comm_->register_handler(comm::handler_ids::runtime_barrier, [&st](const comm::am_message& msg) {
    detail::on_barrier_message(st, msg);
  });
  st.failure.reported.assign(static_cast<std::size_t>(size_), false);
  comm_->register_handler(comm::handler_ids::runtime_failure, [&st](const comm::am_message& msg) {
    detail::on_failure_message(st, msg);
  });
}

void runtime::print_start_lines() const {
  const detail::runtime_settings& cfg = st_->cfg;
  if (cfg.verbose && rank_ == 0)
    std::fprintf(stderr, "gaea: %d ranks on %d node%s; rank 0 progress %s, %s; %s; %s\n", size_,
                 nodes_, nodes_ == 1 ? "" : "s", std::string(progress::to_string(cfg.mode)).c_str(),
                 st_->where.progress.description.c_str(), st_->where.topo->summary().c_str(),
                 progress_->cal().describe().c_str());
  st_->energy->print_start_lines(rank_, cfg);
}

runtime::~runtime() {
  // Destroyed during unwinding or after another rank failed: no collective shut-down can work.
  if (!may_synchronize()) {
    if (const auto cause = progress_->failure()) fail(*cause, 1);
    fail(
        "an exception left the scope of gaea::runtime (catch it inside that scope and call "
        "gaea::runtime::fail(e.what()) to have its message printed)",
        1);
  }
  try {
    barrier();
    write_report_and_trace();
    // Acknowledgements still owed to this thread's worker arrive before its endpoints close.
    comm::worker& w = worker();
    progress_->wait_until(w, [&w] { return w.pending_acks() <= 0; });
    g_current.store(nullptr);
    // Origin workers next (their endpoints point at peers' service workers, which stay served by
    // the progress threads, or by the poll hook when off, until every rank has closed them), then
    // the progress thread. No blocking MPI call while a peer may still need this rank's service.
    comm_->release_workers();
    // This thread's worker is gone: wait by polling the service (as comm::context::wait_mpi
    // does), still watching for a failed job and the hang watchdog. The shut-down barrier is
    // MPI's, like start-up's: without the workers, runtime::barrier cannot run here.
    MPI_Request req;
    MPI_Ibarrier(g_comm, &req);
    const std::int64_t hang_warn_ns = st_->cfg.hang_warn_ns;
    const std::int64_t hang_timeout_ns = st_->cfg.hang_timeout_ns;
    const std::int64_t started = gaea::monotonic_ns();
    bool warned = false;
    for (int done = 0;;) {
      MPI_Test(&req, &done, MPI_STATUS_IGNORE);
      if (done) break;
      progress_->poll_service();
      if (const auto cause = progress_->failure()) throw error(*cause);
      if (!warned && hang_warn_ns > 0 && gaea::monotonic_ns() - started > hang_warn_ns) {
        warned = true;
        std::fprintf(stderr,
                     "gaea: %s: warning: no progress for %lld s (GAEA_HANG_WARN) in the shut-down "
                     "barrier (MPI, over all %d ranks); still waiting\n",
                     describe_rank(rank_).c_str(),
                     static_cast<long long>(hang_warn_ns / 1'000'000'000), size_);
      }
      if (hang_timeout_ns > 0 && gaea::monotonic_ns() - started > hang_timeout_ns)
        throw error("waited more than " + std::to_string(hang_timeout_ns / 1'000'000'000) +
                    " s (GAEA_HANG_TIMEOUT) for the shut-down barrier; a rank has stopped, is far "
                    "behind, or has left out a collective call");
    }
  } catch (const std::exception& e) {
    // Another rank's failure keeps its text (and exit code); an error of this rank says where.
    const auto cause = progress_->failure();
    fail(cause && *cause == e.what() ? std::string(e.what())
                                     : std::string("shutting down: ") + e.what(),
         1);
  }
  std::set_terminate(st_->previous_terminate);
  g_current.store(nullptr);
  comm_->set_poll_hook(nullptr);
  st_->progress.reset();
  progress_ = nullptr;
  comm_->set_mpi_wait_hook(nullptr);  // they call into the engine (its thread has stopped)
  comm_->set_fatal_hook(nullptr);
  st_->energy->restore();
  st_->comm.reset();
  comm_ = nullptr;
  st_->where.topo.reset();
  if (st_->node_comm != MPI_COMM_NULL) MPI_Comm_free(&st_->node_comm);
  if (st_->owns_mpi) MPI_Finalize();
  delete st_;
}

const topology& runtime::topo() const noexcept {
  return *st_->where.topo;
}
const progress_placement& runtime::placement() const noexcept {
  return st_->where.progress;
}
bool runtime::progress_has_own_hw_thread() const noexcept {
  return st_->where.own_hw;
}
comm::worker& runtime::worker() {
  return comm_->this_thread_worker();
}
void runtime::wait(comm::completion& c) {
  progress_->wait(worker(), c);
}
unsigned runtime::poll() {
  return progress_->poll(worker());
}
bool runtime::on_owner_thread() const noexcept {
  return std::this_thread::get_id() == st_->owner;
}
const std::vector<std::string>& runtime::command_line() const noexcept {
  return st_->command_line;
}

runtime& runtime::current() {
  runtime* r = g_current.load();
  if (!r)
    throw error(
        "gaea: the runtime is not initialized: construct a gaea::runtime (or call "
        "gaea::init) before using Gaea objects");
  return *r;
}

bool runtime::initialized() noexcept {
  return g_current.load() != nullptr;
}

bool runtime::is_live(std::uint64_t instance) noexcept {
  const runtime* r = g_current.load();
  return r != nullptr && r->instance_ == instance;
}

void add_report_section(runtime& rt, std::string name, std::vector<report_key> keys,
                        std::function<std::vector<double>()> values) {
  detail::runtime_state::of(rt).sections.push_back(
      {std::move(name), std::move(keys), std::move(values)});
}

std::uint64_t add_app_poll(runtime& rt, std::function<unsigned()> fn) {
  rt.require_owner_thread("runtime::add_app_poll");
  detail::runtime_state& st = detail::runtime_state::of(rt);
  st.app_polls.emplace_back(st.next_app_poll, std::move(fn));
  return st.next_app_poll++;
}

void remove_app_poll(runtime& rt, std::uint64_t id) {
  rt.require_owner_thread("runtime::remove_app_poll");
  std::erase_if(detail::runtime_state::of(rt).app_polls,
                [id](const auto& p) { return p.first == id; });
}

unsigned runtime::run_app_polls() {
  // Called by the engine on the owner thread only. A callback must not wait, but guard anyway:
  // a nested wait must not re-enter the callbacks.
  if (st_->app_polls.empty() || st_->in_app_poll) return 0;
  st_->in_app_poll = true;
  unsigned n = 0;
  try {
    for (auto& p : st_->app_polls)
      n += p.second();
  } catch (...) {
    st_->in_app_poll = false;
    throw;
  }
  st_->in_app_poll = false;
  return n;
}

void runtime::require_owner_thread(const char* what) const {
  if (std::this_thread::get_id() != st_->owner)
    throw error(std::string("gaea: ") + what +
                " is collective and must be called from the thread that created the runtime");
}

std::vector<int> runtime::ranks_from(int first) const {
  std::vector<int> r;
  if (size_ < 2) return r;
  r.reserve(static_cast<std::size_t>(size_ - 1));
  r.push_back(first);
  for (int q = 0; q < size_; ++q)
    if (q != first && q != rank_) r.push_back(q);
  return r;
}

std::string runtime::describe_rank(int rank) const {
  std::string host = "?";
  try {
    host = comm_->host(rank);
  } catch (...) {  // a message names the rank with "?" rather than fail while describing it
  }
  return "rank " + std::to_string(rank) + " (host " + host + ")";
}

double runtime::elapsed() const noexcept {
  return static_cast<double>(gaea::monotonic_ns() - st_->start_ns) * 1e-9;
}

energy_reading runtime::energy() {
  detail::node_energy& e = *st_->energy;
  return e.read([this, &e] { return e.usage(elapsed(), progress_->totals()); });
}

std::string runtime::meter_reason() {
  energy();
  return st_->energy->meter_reason();
}

std::vector<std::string> runtime::meter_rejected() {
  energy();
  return st_->energy->meter_rejected();
}

std::string runtime::energy_mode() const {
  return st_->energy->mode();
}
const energy::region_markup& runtime::markup() const noexcept {
  return *st_->energy->markup;
}
const std::string& runtime::markup_reason() const noexcept {
  return st_->energy->markup_reason;
}
const energy::actuator& runtime::dvfs() const noexcept {
  return *st_->energy->actuator;
}
energy::actuator& runtime::dvfs() noexcept {
  return *st_->energy->actuator;
}
const std::string& runtime::dvfs_reason() const noexcept {
  return st_->energy->dvfs_reason;
}
energy::throttle& runtime::throttle() noexcept {
  return *st_->energy->throttle;
}
const energy::throttle& runtime::throttle() const noexcept {
  return *st_->energy->throttle;
}
const std::string& runtime::throttle_reason() const noexcept {
  return st_->energy->throttle_reason;
}
void runtime::credit_low_frequency(std::int64_t cpu_ns) noexcept {
  st_->energy->low_freq_credit_ns.fetch_add(cpu_ns, std::memory_order_relaxed);
}
const energy::model_params& runtime::model() const noexcept {
  return st_->energy->model;
}

int detail::run_main(std::string_view program, int* argc, char*** argv,
                     int (*call)(void*, runtime&), void* body, int error_exit_code) {
  std::unique_ptr<runtime> rt;
  try {
    rt = std::make_unique<runtime>(argc, argv);
  } catch (const std::exception& e) {
    launcher::print_error(program, e.what());
    return error_exit_code;
  }
  try {
    return call(body, *rt);
  } catch (const std::exception& e) {
    rt->fail(e.what(), error_exit_code);
  } catch (...) {
    rt->fail("an exception of a type not derived from std::exception", error_exit_code);
  }
}

void init(int* argc, char*** argv) {
  if (g_owned) throw error("gaea::init: already initialized");
  g_owned = std::make_unique<runtime>(argc, argv);
}

unsigned poll() {
  return runtime::current().poll();
}

void finalize() {
  if (!g_owned)
    throw error("gaea::finalize: gaea::init was not called (or finalize was called twice)");
  if (const auto live = g_owned->comm().live_segments(); !live.empty()) {
    std::string names;
    for (const auto& n : live)
      names += (names.empty() ? "" : ", ") + n;
    throw error("gaea::finalize: " + std::to_string(live.size()) + " Gaea object(s) still alive (" +
                names + "); destroy them before finalize");
  }
  g_owned.reset();
}

}  // namespace gaea
