// gaea::runtime: start-up and shut-down (MPI, topology, transport, progress thread), barriers,
// failure handling across ranks, report sections, app polls, energy, and init/poll/finalize.

#include "gaea/runtime/runtime.hpp"

#include "gaea/runtime/communicator.hpp"

#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <random>
#include <span>
#include <string_view>
#include <thread>
#include <vector>

#include "detail/peer_status.hpp"
#include "detail/report.hpp"
#include "detail/run_start_hooks.hpp"
#include "gaea/base/clock.hpp"
#include "gaea/base/env.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/base/temporaries.hpp"
#include "gaea/comm/detail/bootstrap.hpp"
#include "gaea/comm/handler_ids.hpp"
#include "gaea/dense/blas.hpp"
#include "gaea/energy/actuator.hpp"
#include "gaea/energy/arbiter.hpp"
#include "gaea/energy/markup.hpp"
#include "gaea/energy/meter.hpp"
#include "gaea/energy/sysfs.hpp"
#include "gaea/trace/recorder.hpp"
#include "gaea/trace/writers.hpp"

namespace gaea {

namespace {
std::atomic<runtime*> g_current{nullptr};
// The communicator of the live (or next) runtime; set_runtime_communicator changes it.
MPI_Comm g_comm = MPI_COMM_WORLD;
std::unique_ptr<runtime> g_owned;  // for init()/finalize()
std::atomic<std::uint64_t> g_instances{0};

// Handlers of the dissemination barrier and of failure reports (gaea/comm/handler_ids.hpp).
constexpr comm::handler_id barrier_handler = comm::handler_ids::runtime_barrier;
constexpr comm::handler_id failure_handler = comm::handler_ids::runtime_failure;
constexpr comm::handler_id status_handler = comm::handler_ids::runtime_status;
struct failure_header {
  std::int32_t cause_rank;  // the rank whose error ends the job
  std::int32_t exit_code;   // its exit code
};
// How long fail() waits for the other ranks to report that they stopped (and printed why).
constexpr std::int64_t failure_grace_ns = 5'000'000'000;
// How long a failing rank R listens for other ranks' failures before printing its own error:
// min(R, steps) steps, so that of ranks failing together the lowest prints.
constexpr std::int64_t failure_listen_step_ns = 50'000'000;
constexpr std::int64_t failure_listen_steps = 20;
// While fail() ends the job, peers die mid-connection; the transport may then abort this rank
// from its own error paths (seen with UCX 1.13 over tcp: a wire-up reply purged when its peer
// died). The job's exit code and message are already decided, so such an abort ends this rank
// with them instead of a signal.
volatile std::sig_atomic_t g_failing_code = 1;
extern "C" void on_abort_while_failing(int) {
  constexpr char note[] = "gaea: the transport aborted while the job was ending (ignored)\n";
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, note, sizeof note - 1);
  std::_Exit(g_failing_code);
}
void guard_abort_while_failing(int code) noexcept {
  g_failing_code = code;
  struct sigaction sa {};
  sa.sa_handler = on_abort_while_failing;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGABRT, &sa, nullptr);
}
struct barrier_header {
  std::uint64_t epoch;
  std::uint32_t round;
};

double parse_slowdown() {
  const std::string text = env::get_string("GAEA_MAX_SLOWDOWN");
  double v = -1;
  try {
    std::size_t pos = 0;
    v = std::stod(text, &pos);
    if (pos != text.size()) v = -1;
  } catch (const std::exception&) {  // not a number: the range check below reports it
  }
  if (!(v > 0 && v < 1))
    throw error("environment variable GAEA_MAX_SLOWDOWN='" + text +
                "' must be a fraction in (0, 1), e.g. 0.02 for 2%");
  return v;
}
// The job key of the node arbiters: world rank 0's pid, clock and a random number, broadcast, so
// that it is the same on every rank of the job and differs between jobs. Collective (world).
std::string job_key(int rank) {
  std::uint64_t v[2] = {0, 0};
  if (rank == 0) {
    std::random_device rd;
    v[0] = (static_cast<std::uint64_t>(getpid()) << 40) ^
           static_cast<std::uint64_t>(gaea::monotonic_ns());
    v[1] = (static_cast<std::uint64_t>(rd()) << 32) | rd();
  }
  MPI_Bcast(v, 2, MPI_UINT64_T, 0, g_comm);
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(v[0]),
                static_cast<unsigned long long>(v[1]));
  return text;
}
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

runtime::runtime(int* argc, char*** argv)
    : instance_(++g_instances), owner_(std::this_thread::get_id()) {
  if (g_current.load() != nullptr)
    throw error("gaea::runtime: a runtime already exists in this process (construct it once)");
  // Read and validate every setting before any collective, so a bad value fails on all ranks.
  env::check_all();  // every set GAEA_* variable: known name, valid value
  const progress::mode m = env::get_enum<progress::mode>("GAEA_PROGRESS");
  const progress::fixed_step_params fixed_step = progress::fixed_step_params::from_env();
  const double max_slowdown = parse_slowdown();
  const std::string dvfs_kind =
      env::get_choice("GAEA_DVFS", {energy::actuator_kinds.begin(), energy::actuator_kinds.end()});
  const std::string throttle_kind = energy::throttle_kind_from_env();
  const std::string manager_kind = env::get_choice(
      "GAEA_ENERGY_MANAGER", {energy::manager_kinds.begin(), energy::manager_kinds.end()});
  env::get_choice("GAEA_ENERGY_METER", {energy::meter_kinds.begin(), energy::meter_kinds.end()});
  report_ = env::get_string("GAEA_REPORT");
  if (report_ != "0" && report_ != "1" && !report_.ends_with(".json"))
    throw error("environment variable GAEA_REPORT='" + report_ +
                "' must be 0, 1 or a file name ending in .json");
  trace_ = env::get_string("GAEA_TRACE");
  detail::check_report_paths(report_, trace_);
  trace_events_ = static_cast<std::uint64_t>(env::get_int("GAEA_TRACE_EVENTS"));
  // The recorder's session: thread registration for every format (the wait-state samples carry
  // the thread's index), regions and counters only for the formats that hold them.
  if (!trace_.empty())
    trace::start(trace_events_, trace::format_of(trace_) != trace::format::hdf5);
  else
    trace::stop();
  const std::filesystem::path sysfs = energy::sysfs_root();
  model_ = energy::model_params::from_env(sysfs);
  const std::string bind_text = env::get_choice("GAEA_PROGRESS_BIND", {"auto", "none"});
  const std::string shared_text = env::get_choice("GAEA_SHARED_CORES", {"auto", "yes", "no"});
  const bool verbose = env::get_int("GAEA_VERBOSE") != 0;
  // One BLAS thread per rank unless asked (gaea/dense/blas.hpp): ranks fill the cores already.
  dense::apply_blas_threads_setting();
  const std::int64_t hang_timeout_s = env::get_int("GAEA_HANG_TIMEOUT");
  if (hang_timeout_s < 0 || hang_timeout_s > 1'000'000'000)
    throw error("environment variable GAEA_HANG_TIMEOUT='" + env::get_string("GAEA_HANG_TIMEOUT") +
                "' must be a number of seconds >= 0 (0 = off)");
  const std::int64_t hang_warn_s = env::get_int("GAEA_HANG_WARN");  // checked by check_all()
  uncaught_at_start_ = std::uncaught_exceptions();
  const comm::config cfg = comm::config::from_env();
  // Before MPI_Init, which may take its own arguments out of argv.
  command_line_ = detail::command_line(argc, argv);

  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (finalized)
    throw error("gaea::runtime: MPI was already finalized; create the runtime before MPI_Finalize");
  if (!inited) {
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    owns_mpi_ = true;
    if (provided < MPI_THREAD_FUNNELED)  // the progress thread exists, though it never calls MPI
      std::fprintf(stderr, "gaea: warning: MPI provides thread level %d < MPI_THREAD_FUNNELED\n",
                   provided);
  }
  // After MPI_Init, so that a handler MPI installs is chained: SIGTERM/SIGINT/SIGHUP (mpirun
  // passes them on to the ranks) remove this rank's temporaries before ending it.
  install_temporary_cleanup();
  MPI_Comm_rank(g_comm, &rank_);
  MPI_Comm_size(g_comm, &size_);
  MPI_Comm_split_type(g_comm, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_comm_);
  MPI_Comm_rank(node_comm_, &node_rank_);
  MPI_Comm_size(node_comm_, &node_size_);
  // Node ids: number the node leaders (node rank 0) in world-rank order.
  MPI_Comm leaders;
  MPI_Comm_split(g_comm, node_rank_ == 0 ? 0 : MPI_UNDEFINED, rank_, &leaders);
  if (node_rank_ == 0) {
    MPI_Comm_rank(leaders, &node_id_);
    MPI_Comm_size(leaders, &nodes_);
    MPI_Comm_free(&leaders);
  }
  MPI_Bcast(&node_id_, 1, MPI_INT, 0, node_comm_);
  MPI_Bcast(&nodes_, 1, MPI_INT, 0, node_comm_);

  topology_ = std::make_unique<topology>();
  const std::vector<int> own = topology_->thread_binding();
  const auto node_bindings = comm::detail::allgatherv(node_comm_, own);
  placement_ = place_progress_thread(topology_->pus_by_core(), topology_->allowed_pus(), own,
                                     node_bindings, node_rank_);
  if (bind_text == "none") {
    placement_.cpus = topology_->allowed_pus();
    placement_.description = "unpinned (GAEA_PROGRESS_BIND=none)";
  }
  // Enough hardware threads for every main thread and every progress thread on the node?
  own_hw_ = placement_.dedicated || topology_->pus() >= 2 * node_size_;
  // GAEA_SHARED_CORES=yes: other processes (other jobs, emulated hosts) use these cores too.
  bool ranks_share_cores = topology_->pus() < node_size_;
  if (shared_text != "auto") ranks_share_cores = shared_text == "yes";
  if (shared_text == "yes") own_hw_ = false;

  // A site energy manager (GEOPM) present: Gaea marks its waits for it and writes no frequency
  // or duty itself (two controllers of one clock would undo each other).
  {
    energy::markup_config mc;
    mc.kind = manager_kind;
    mc.library = env::get_string("GAEA_GEOPM_LIBRARY");
    mc.manager_present = energy::geopm_manager_present();
    energy::markup_choice mk = energy::make_markup(mc);
    markup_ = std::move(mk.markup);
    markup_reason_ = std::move(mk.reason);
  }
  const bool managed = markup_->active();
  // Why DVFS and throttling are off while a manager is marked for.
  const std::string managed_by = managed ? "markup: " + std::string(markup_->name()) +
                                               " controls the frequency (GAEA_ENERGY_MANAGER); no "
                                         : std::string();
  // DVFS: the CPUs this rank's threads run on. The actuator never throws for missing hardware or
  // permission; it says what it does instead.
  {
    energy::actuator_config ac;
    ac.kind = dvfs_kind;
    ac.root = sysfs;
    ac.cpus = own;
    for (int c : placement_.cpus)
      if (std::find(ac.cpus.begin(), ac.cpus.end(), c) == ac.cpus.end()) ac.cpus.push_back(c);
    ac.simulated_cost_ns = model_.transition_ns;
    // Slurm's frequency request for the job (srun --cpu-freq): DVFS keeps to it.
    if (const char* req = std::getenv("SLURM_CPU_FREQ_REQ")) ac.cpu_freq_request = req;
    if (managed) ac.kind = "off";
    energy::actuator_choice choice = energy::make_actuator(ac);
    dvfs_reason_ = managed ? managed_by + "DVFS by Gaea" : std::move(choice.reason);
    // Throttling (clock modulation) on the same CPUs; never throws for missing hardware either.
    energy::throttle_config tc;
    tc.kind = throttle_kind;
    tc.root = sysfs;
    tc.cpus = ac.cpus;
    tc.simulated_cost_ns = model_.throttle_transition_ns;
    if (managed) tc.kind = "off";
    energy::throttle_choice thr = energy::make_throttle(tc);
    throttle_reason_ = managed ? managed_by + "throttling by Gaea" : std::move(thr.reason);
    // Ranks of this job on one node agree on each CPU through the node's arbiter; a rank alone
    // on its node has none. If any rank of the node cannot attach, none of them uses it.
    const std::string key = job_key(rank_);
    std::shared_ptr<energy::arbiter> arbiter;
    std::string why;
    if (node_size_ > 1 && (choice.act->active() || thr.thr->active())) {
      try {
        energy::arbiter_config arb;
        arb.job_key = key;
        arb.node = node_id_;
        arb.local_rank = node_rank_;
        arb.local_ranks = node_size_;
        arb.cpus = ac.cpus;
        arbiter = energy::attach_arbiter(arb);
      } catch (const std::exception& e) {
        why = e.what();
      }
    }
    int attached = why.empty() ? 1 : 0;
    if (node_size_ > 1) MPI_Allreduce(MPI_IN_PLACE, &attached, 1, MPI_INT, MPI_MIN, node_comm_);
    if (!attached) {
      if (!why.empty())
        std::fprintf(stderr,
                     "gaea: rank %d: warning: %s; DVFS and throttle requests of the ranks on this "
                     "node are not arbitrated\n",
                     rank_, why.c_str());
      arbiter.reset();
    } else if (arbiter) {
      energy::unlink_name(*arbiter);  // every rank of the node attached: the memory stays
      const std::string note =
          " (arbitrated among the " + std::to_string(node_size_) + " ranks of this node)";
      dvfs_reason_ += note;
      throttle_reason_ += note;
    }
    const std::shared_ptr<energy::actuator> dvfs = std::move(choice.act);
    actuator_ = energy::arbitrated(dvfs, arbiter, energy::dvfs_source::calls);
    governor_actuator_ = energy::arbitrated(dvfs, arbiter, energy::dvfs_source::governor);
    throttle_ = energy::arbitrated(std::move(thr.thr), arbiter);
  }
  if (actuator_->active()) {
    // Frequency domains: the PUs of one core share a clock.
    std::vector<int> domain_of_cpu;
    const auto& cores = topology_->pus_by_core();
    for (std::size_t c = 0; c < cores.size(); ++c)
      for (int pu : cores[c]) {
        if (pu >= static_cast<int>(domain_of_cpu.size()))
          domain_of_cpu.resize(static_cast<std::size_t>(pu) + 1, -1);
        domain_of_cpu[static_cast<std::size_t>(pu)] = static_cast<int>(c);
      }
    governor_ = std::make_unique<energy::governor>(*governor_actuator_, std::move(domain_of_cpu));
  }

  comm_ = std::make_unique<comm::context>(g_comm, cfg);
  progress::engine_options po;
  po.initial = m;
  po.cpus = placement_.cpus;
  po.share_core = !own_hw_;
  po.ranks_share_cores = ranks_share_cores;
  po.governor = governor_.get();
  po.markup = managed ? markup_.get() : nullptr;
  po.cal = progress::calibrate();
  po.cal.dvfs_ns = actuator_->transition_cost_ns();
  po.fixed_step = fixed_step;
  po.max_slowdown = max_slowdown;
  po.trace = !trace_.empty();
  po.trace_capacity = static_cast<std::size_t>(trace_events_);
  po.app_poll = [this] { return run_app_polls(); };
  po.app_thread = owner_;
  hang_timeout_ns_ = hang_timeout_s * 1'000'000'000;
  verbose_ = verbose;
  po.hang_timeout_ns = hang_timeout_ns_;
  hang_warn_ns_ = hang_warn_s * 1'000'000'000;
  po.hang_warn_ns = hang_warn_ns_;
  po.self = describe_rank(rank_);
  asker_ = std::make_unique<detail::status_asker>([this](int r) { return describe_rank(r); });
  po.ask_peers = [this](comm::worker& w, const progress::wait_info& info) {
    return asker_->ask(w, info);
  };
  po.on_fatal = [this](const std::string& why) { fail(why, 1); };
  progress_ = std::make_unique<progress::engine>(comm_->service(), std::move(po));
  comm_->set_poll_hook([this] { progress_->poll_service(); });
  // A message for a handler nobody registered here ends the job (the engine calls fail() once
  // out of the handler).
  comm_->set_fatal_hook([this](const std::string& why) { progress_->report_fatal(why); });
  // Transport-internal MPI collectives (an object's memory) wait like every other wait.
  comm_->set_mpi_wait_hook([this](MPI_Request& req, std::string_view what) {
    const progress::scoped_wait_label label([&] {
      return progress::wait_info{std::string(what), {}, ranks_from((rank_ + 1) % size_)};
    });
    int done = 0;
    progress_->wait_until(worker(), [&] {
      MPI_Test(&req, &done, MPI_STATUS_IGNORE);
      return done != 0;
    });
  });
  comm_->register_handler(status_handler, [this](const comm::am_message& msg) {
    detail::answer_status(msg, progress_->current_status());
  });
  comm_->register_handler(barrier_handler, [this](const comm::am_message& msg) {
    barrier_header h;
    if (msg.header.size() != sizeof h) throw error("gaea::runtime: malformed barrier message");
    std::memcpy(&h, msg.header.data(), sizeof h);
    if (h.round >= 64) throw error("gaea::runtime: barrier round out of range");
    arrivals_[h.epoch & 1][h.round].fetch_add(1, std::memory_order_acq_rel);
    progress_->notify_waiters();
  });
  failure_.reported.assign(static_cast<std::size_t>(size_), false);
  comm_->register_handler(failure_handler,
                          [this](const comm::am_message& msg) { on_failure_message(msg); });
  start_ns_ = gaea::monotonic_ns();
  add_report_section(
      "throttle", {report_count("transitions"), "throttled_cpu_s", "idle_cycle_cpu_s"}, [this] {
        const energy::level_times t = throttle_->cpu_ns_by_level();
        double throttled = 0, idle = 0;
        for (int j = 1; j < energy::throttle_levels; ++j) {
          const double s = static_cast<double>(t[static_cast<std::size_t>(j)]) * 1e-9;
          throttled += s;
          idle += s * j / energy::throttle_levels;
        }
        return std::vector<double>{static_cast<double>(throttle_->transition_count()), throttled,
                                   idle};
      });
  // The workers' remote-key caches (GAEA_RKEY_CACHE): misses past the first use of each key
  // and evictions say the working set of (segment, peer) keys exceeds the cache.
  add_report_section("remote keys",
                     {report_count("hits"), report_count("misses"), report_count("evictions")},
                     [this] {
                       const comm::op_totals t = comm_->operation_totals();
                       return std::vector<double>{static_cast<double>(t.key_hits),
                                                  static_cast<double>(t.key_misses),
                                                  static_cast<double>(t.key_evictions)};
                     });
  // A report covers the whole run: choose (and prove) the meter now rather than at finalize,
  // since meters count from their creation.
  if (report_ != "0") energy();
  // Every rank registers the barrier handler before this MPI barrier; the AM barrier is safe after.
  mpi_barrier();
  // The report's interval starts here, after the start-up work of every rank (the meter's proof
  // burns CPU) and at nearly the same moment on every rank.
  report_start_ns_ = gaea::monotonic_ns();
  report_start_cpu_ns_ = gaea::process_cpu_ns();
  report_start_unix_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
  g_current.store(this);
  // An exception that escapes everything (or one thrown from a noexcept function) ends the whole
  // job with its message instead of leaving the other ranks waiting for this one.
  previous_terminate_ = std::set_terminate([] {
    std::string what = "std::terminate was called";
    if (const std::exception_ptr e = std::current_exception()) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        what = std::string("uncaught exception: ") + x.what();
      } catch (...) {
        what = "uncaught exception of a type not derived from std::exception";
      }
    }
    if (runtime* r = g_current.load()) r->fail(what, 1);
    std::fprintf(stderr, "gaea: %s\n", what.c_str());
    std::abort();
  });
  if (verbose && rank_ == 0)
    std::fprintf(stderr, "gaea: %d ranks on %d node%s; rank 0 progress %s, %s; %s; %s\n", size_,
                 nodes_, nodes_ == 1 ? "" : "s", std::string(progress::to_string(m)).c_str(),
                 placement_.description.c_str(), topology_->summary().c_str(),
                 progress_->cal().describe().c_str());
  // What DVFS and throttling do here goes to GAEA_VERBOSE (and the report); unasked, a run says
  // so only when a backend the user chose cannot work. A normal run prints nothing.
  const auto chosen = [](const std::string& kind) { return kind != "auto" && kind != "off"; };
  if (rank_ == 0 && (verbose || (chosen(dvfs_kind) && !actuator_->active())))
    std::fprintf(stderr, "gaea: DVFS: %s\n", dvfs_reason_.c_str());
  if (rank_ == 0 && (verbose || (chosen(throttle_kind) && !throttle_->active())))
    std::fprintf(stderr, "gaea: throttle: %s\n", throttle_reason_.c_str());
  if (rank_ == 0 && (verbose || (manager_kind == "geopm" && !managed)))
    std::fprintf(stderr, "gaea: energy manager: %s\n", markup_reason_.c_str());
  detail::run_start_hooks(*this);  // the modules' collective set-up (e.g. coll's world group)
}

std::string runtime::energy_mode() const {
  if (markup_->active()) return "markup: " + std::string(markup_->name());
  if (!actuator_->active() && !throttle_->active()) return "own: sleep-only";
  std::string m = "own DVFS (" + std::string(actuator_->name()) + ")";
  if (throttle_->active()) m += ", throttle (" + std::string(throttle_->name()) + ")";
  return m;
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
    // does), still watching for a failed job and the hang watchdog.
    MPI_Request req;
    MPI_Ibarrier(g_comm, &req);
    const std::int64_t started = gaea::monotonic_ns();
    bool warned = false;
    for (int done = 0;;) {
      MPI_Test(&req, &done, MPI_STATUS_IGNORE);
      if (done) break;
      progress_->poll_service();
      if (const auto cause = progress_->failure()) throw error(*cause);
      if (!warned && hang_warn_ns_ > 0 && gaea::monotonic_ns() - started > hang_warn_ns_) {
        warned = true;
        std::fprintf(stderr,
                     "gaea: %s: warning: no progress for %lld s (GAEA_HANG_WARN) in the shut-down "
                     "barrier (MPI, over all %d ranks); still waiting\n",
                     describe_rank(rank_).c_str(),
                     static_cast<long long>(hang_warn_ns_ / 1'000'000'000), size_);
      }
      if (hang_timeout_ns_ > 0 && gaea::monotonic_ns() - started > hang_timeout_ns_)
        throw error("waited more than " + std::to_string(hang_timeout_ns_ / 1'000'000'000) +
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
  std::set_terminate(previous_terminate_);
  g_current.store(nullptr);
  comm_->set_poll_hook(nullptr);
  progress_.reset();
  comm_->set_mpi_wait_hook(nullptr);  // they call into the engine (its thread has stopped)
  comm_->set_fatal_hook(nullptr);
  governor_.reset();
  if (actuator_) actuator_->restore();
  if (throttle_) throttle_->restore();
  comm_.reset();
  topology_.reset();
  if (node_comm_ != MPI_COMM_NULL) MPI_Comm_free(&node_comm_);
  if (owns_mpi_) MPI_Finalize();
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

void runtime::add_report_section(std::string name, std::vector<report_key> keys,
                                 std::function<std::vector<double>()> values) {
  sections_.push_back({std::move(name), std::move(keys), std::move(values)});
}

std::uint64_t runtime::add_app_poll(std::function<unsigned()> fn) {
  require_owner_thread("runtime::add_app_poll");
  app_polls_.emplace_back(next_app_poll_, std::move(fn));
  return next_app_poll_++;
}

void runtime::remove_app_poll(std::uint64_t id) {
  require_owner_thread("runtime::remove_app_poll");
  std::erase_if(app_polls_, [id](const auto& p) { return p.first == id; });
}

unsigned runtime::run_app_polls() {
  // Called by the engine on the owner thread only. A callback must not wait, but guard anyway:
  // a nested wait must not re-enter the callbacks.
  if (app_polls_.empty() || in_app_poll_) return 0;
  in_app_poll_ = true;
  unsigned n = 0;
  try {
    for (auto& p : app_polls_)
      n += p.second();
  } catch (...) {
    in_app_poll_ = false;
    throw;
  }
  in_app_poll_ = false;
  return n;
}

void runtime::require_owner_thread(const char* what) const {
  if (std::this_thread::get_id() != owner_)
    throw error(std::string("gaea: ") + what +
                " is collective and must be called from the thread that created the runtime");
}

void runtime::mpi_barrier() {
  comm::worker& w = worker();
  MPI_Request req;
  MPI_Ibarrier(g_comm, &req);
  const progress::scoped_wait_label label([this] {
    return progress::wait_info{"the start-up barrier (MPI)", {}, ranks_from((rank_ + 1) % size_)};
  });
  int done = 0;
  progress_->wait_until(w, [&] {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    return done != 0;
  });
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
  const std::uint64_t epoch = ++barrier_epoch_;
  auto& arrived = arrivals_[epoch & 1];
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
    w.am_send((rank_ + dist) % size_, barrier_handler,
              std::as_bytes(std::span<const barrier_header>(&h, 1)), {}, sent, nullptr);
    std::atomic<int>& a = arrived[round];
    progress_->wait_until(
        w, [&a] { return a.load(std::memory_order_acquire) > 0; },
        /*notified=*/true);
    a.fetch_sub(1, std::memory_order_acq_rel);
  }
  progress_->wait(w, sent);
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

void runtime::on_failure_message(const comm::am_message& msg) {
  failure_header h;
  if (msg.header.size() != sizeof h) return;  // malformed: ignore rather than fail twice
  std::memcpy(&h, msg.header.data(), sizeof h);
  const std::string text(reinterpret_cast<const char*>(msg.data.data()), msg.data.size());
  {
    std::lock_guard lock(failure_.mutex);
    if (failure_.cause_rank < 0) {
      failure_.cause_rank = h.cause_rank;
      failure_.cause_code = h.exit_code;
    }
    const auto src = static_cast<std::size_t>(msg.source);
    if (src < failure_.reported.size() && !failure_.reported[src]) {
      failure_.reported[src] = true;
      ++failure_.reports;
    }
  }
  progress_->fail_waits(text);  // keeps the first text; wakes every waiting thread
}

bool runtime::failed() const noexcept {
  return failing_.load(std::memory_order_acquire) || progress_->failure().has_value();
}

bool runtime::may_synchronize() const noexcept {
  return !failed() && std::uncaught_exceptions() <= uncaught_at_start_;
}

void runtime::fail(std::string_view message, int exit_code) noexcept {
  if (failing_.exchange(true)) {
    // Another thread of this rank is already ending the job.
    for (;;)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  progress::scoped_unchecked_waits unchecked;
  try {
    const std::string me = describe_rank(rank_);
    // From here on only this thread drives the transport: the progress thread parks, so nothing
    // progresses it once this rank calls MPI_Abort (peers dying mid-connection then cannot trip
    // the transport's own error paths), and a transport abort while ending is not a new error.
    guard_abort_while_failing(exit_code);
    progress_->set_mode(progress::mode::off, false);
    comm::worker& w = worker();
    // One step of the transport while ending (peers die mid-connection meanwhile).
    const auto poll_while_ending = [&] {
      try {
        if (progress_->poll(w) == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
      } catch (...) {  // not a new error: the job ends anyway
      }
    };
    // Ranks often fail together (the same bad input everywhere): the job's error is printed once,
    // by the lowest of them, so a rank above 0 first listens for another rank's failure.
    const std::int64_t listen_until =
        gaea::monotonic_ns() +
        std::min<std::int64_t>(rank_, failure_listen_steps) * failure_listen_step_ns;
    while (!progress_->failure() && gaea::monotonic_ns() < listen_until)
      poll_while_ending();
    const std::optional<std::string> cause = progress_->failure();
    std::string announce;
    std::int32_t cause_rank = rank_;
    int code = exit_code;
    if (cause) {
      // Another rank's failure reached this rank first: the job ends with that rank's cause and
      // exit code, whatever this rank's message says (often the interrupted call's own wrapping
      // of the cause, e.g. "GA_Sync: <cause>"). Its error line is that rank's to print.
      if (verbose_) {
        std::fprintf(stderr, "gaea: %s: stopping: %s\n", me.c_str(), cause->c_str());
        if (message.find(*cause) == std::string_view::npos &&
            std::string_view(*cause).find(message) == std::string_view::npos)
          std::fprintf(stderr, "gaea: %s: also: %.*s\n", me.c_str(),
                       static_cast<int>(message.size()), message.data());
      }
      std::lock_guard lock(failure_.mutex);
      cause_rank = failure_.cause_rank;
      code = failure_.cause_code;
      announce = *cause;
      guard_abort_while_failing(code);
    } else {
      std::fprintf(stderr, "gaea: %s: error: %.*s\n", me.c_str(), static_cast<int>(message.size()),
                   message.data());
      announce = me + " failed: " + std::string(message);
    }
    std::fflush(stderr);
    // The rank whose error this is tells every rank and waits (up to the grace period) for each
    // to answer, then aborts the job. A rank stopping because it was told answers only those
    // that told it: O(P) new connections in all, not every rank to every rank.
    const bool cause_here = cause_rank == rank_;
    const failure_header h{cause_rank, code};
    comm::completion sent;  // one completion counts every send, as in barrier()
    std::vector<bool> told(static_cast<std::size_t>(size_), false);
    told[static_cast<std::size_t>(rank_)] = true;
    auto tell = [&](int r) {
      told[static_cast<std::size_t>(r)] = true;
      try {
        w.am_send(r, failure_handler, std::as_bytes(std::span<const failure_header>(&h, 1)),
                  std::as_bytes(std::span<const char>(announce.data(), announce.size())), sent,
                  nullptr);
      } catch (...) {  // a lost peer: the others still hear
      }
    };
    if (cause_here)
      for (int r = 0; r < size_; ++r)
        if (!told[static_cast<std::size_t>(r)]) tell(r);
    const std::int64_t deadline = gaea::monotonic_ns() + failure_grace_ns;
    for (;;) {
      std::vector<int> answer;
      {
        std::lock_guard lock(failure_.mutex);
        if (cause_here && failure_.reports >= size_ - 1) break;
        for (int r = 0; r < size_; ++r)
          if (failure_.reported[static_cast<std::size_t>(r)] && !told[static_cast<std::size_t>(r)])
            answer.push_back(r);
      }
      for (int r : answer)
        tell(r);
      if (gaea::monotonic_ns() > deadline) break;
      poll_while_ending();
    }
    std::fflush(stderr);
    remove_temporaries();  // MPI_Abort does not unwind: this rank's half-written files go now
    MPI_Abort(MPI_COMM_WORLD, code);
  } catch (...) {  // fail() never returns: whatever went wrong, the exit below ends this rank
  }
  remove_temporaries();
  std::_Exit(exit_code);
}

double runtime::elapsed() const noexcept {
  return static_cast<double>(gaea::monotonic_ns() - start_ns_) * 1e-9;
}

energy::usage_snapshot runtime::usage() const {
  // CPU time split by DVFS frequency (the progress engine's lowered time) and by throttle duty.
  // The duty enters linearly, never as an "effective frequency" that would be cubed.
  const progress::telemetry_totals t = progress_->totals();
  const double cpu = static_cast<double>(gaea::process_cpu_ns()) * 1e-9;
  const double low =
      static_cast<double>(t.low_freq_cpu_ns + low_freq_credit_ns_.load(std::memory_order_relaxed)) *
      1e-9;
  return energy::rank_usage(model_, elapsed(), cpu, low, *actuator_, *throttle_, sched_getcpu());
}

energy_reading runtime::energy() {
  std::lock_guard lock(meter_mutex_);
  if (!meter_) {
    energy::meter_choice c = energy::select_meter(
        env::get_string("GAEA_ENERGY_METER"), energy::sysfs_root(), model_,
        [this] { return usage(); }, [] { energy::burn_cpu(std::chrono::milliseconds(30)); });
    meter_ = std::move(c.m);
    meter_reason_ = c.reason;
    for (const auto& r : c.rejected)
      meter_reason_ += "; rejected " + r;
    meter_rejected_ = std::move(c.rejected);
  }
  energy_reading r;
  r.joules = meter_->joules().value_or(0.0);
  r.measured = meter_->measured();
  r.source = std::string(meter_->name());
  r.scope = meter_->scope();
  return r;
}

std::string runtime::meter_reason() {
  energy();
  std::lock_guard lock(meter_mutex_);
  return meter_reason_;
}

std::vector<std::string> runtime::meter_rejected() {
  energy();
  std::lock_guard lock(meter_mutex_);
  return meter_rejected_;
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
