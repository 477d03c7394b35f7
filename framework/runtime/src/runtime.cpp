#include "gaea/runtime/runtime.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <span>
#include <vector>

#include "gaea/base/env.hpp"
#include "gaea/comm/bootstrap.hpp"
#include "gaea/energy/sysfs.hpp"
#include "gaea/progress/clock.hpp"
#include "report.hpp"

namespace gaea {

namespace {
std::atomic<runtime*> g_current{nullptr};
std::unique_ptr<runtime> g_owned;  // for init()/finalize()
std::atomic<std::uint64_t> g_instances{0};

// Handler of the dissemination barrier (comm's range 0-15 is shared with the runtime).
constexpr comm::handler_id barrier_handler = 1;
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
  } catch (const std::exception&) {
  }
  if (!(v > 0 && v < 1))
    throw Error("environment variable GAEA_MAX_SLOWDOWN='" + text +
                "' must be a fraction in (0, 1), e.g. 0.02 for 2%");
  return v;
}
}  // namespace

runtime::runtime(int* argc, char*** argv)
    : instance_(++g_instances), owner_(std::this_thread::get_id()) {
  if (g_current.load() != nullptr)
    throw Error("gaea::runtime: a runtime already exists in this process (construct it once)");
  // Read and validate every setting before any collective, so a bad value fails on all ranks.
  const std::string mode_text =
      env::get_choice("GAEA_PROGRESS", {"auto", "spin", "adaptive", "interrupt", "off"});
  const double max_slowdown = parse_slowdown();
  const std::string dvfs_kind =
      env::get_choice("GAEA_DVFS", {"auto", "cpufreq", "msr", "simulated", "off"});
  const std::string throttle_kind = energy::throttle_kind_from_env();
  env::get_choice("GAEA_ENERGY_METER", {"auto", "rapl", "perf", "model"});
  report_ = env::get_string("GAEA_REPORT");
  if (report_ != "0" && report_ != "1" && !report_.ends_with(".json"))
    throw Error("environment variable GAEA_REPORT='" + report_ +
                "' must be 0, 1 or a file name ending in .json");
  trace_ = env::get_string("GAEA_TRACE");
  detail::check_report_paths(report_, trace_);
  const std::filesystem::path sysfs = energy::sysfs_root();
  model_ = energy::model_params::from_env(sysfs);
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
  const progress::mode m = *progress::parse_mode(mode_text);

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
    energy::actuator_choice choice = energy::make_actuator(ac);
    actuator_ = std::move(choice.act);
    dvfs_reason_ = std::move(choice.reason);
    // Throttling (clock modulation) on the same CPUs; never throws for missing hardware either.
    energy::throttle_config tc;
    tc.kind = throttle_kind;
    tc.root = sysfs;
    tc.cpus = std::move(ac.cpus);
    tc.simulated_cost_ns = model_.throttle_transition_ns;
    energy::throttle_choice thr = energy::make_throttle(tc);
    throttle_ = std::move(thr.thr);
    throttle_reason_ = std::move(thr.reason);
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
    governor_ = std::make_unique<energy::governor>(*actuator_, std::move(domain_of_cpu));
  }

  comm_ = std::make_unique<comm::context>(MPI_COMM_WORLD, cfg);
  progress::engine_options po;
  po.initial = m;
  po.cpus = placement_.cpus;
  po.share_core = !own_hw_;
  po.governor = governor_.get();
  po.cal = progress::calibrate();
  po.cal.dvfs_ns = actuator_->transition_cost_ns();
  po.max_slowdown = max_slowdown;
  po.trace = !trace_.empty();
  po.app_poll = [this] { return run_app_polls(); };
  po.app_thread = owner_;
  progress_ = std::make_unique<progress::engine>(comm_->service(), std::move(po));
  comm_->set_poll_hook([this] { progress_->poll_service(); });
  comm_->register_handler(barrier_handler, [this](const comm::am_message& msg) {
    barrier_header h;
    if (msg.header.size() != sizeof h) throw Error("gaea::runtime: malformed barrier message");
    std::memcpy(&h, msg.header.data(), sizeof h);
    if (h.round >= 64) throw Error("gaea::runtime: barrier round out of range");
    arrivals_[h.epoch & 1][h.round].fetch_add(1, std::memory_order_acq_rel);
    progress_->notify_waiters();
  });
  start_ns_ = progress::monotonic_ns();
  add_report_section("throttle", {"transitions", "throttled_cpu_s", "idle_cycle_cpu_s"}, [this] {
    const energy::level_times t = throttle_->cpu_ns_by_level();
    double throttled = 0, idle = 0;
    for (int j = 1; j < energy::throttle_levels; ++j) {
      const double s = static_cast<double>(t[static_cast<std::size_t>(j)]) * 1e-9;
      throttled += s;
      idle += s * j / energy::throttle_levels;
    }
    return std::vector<double>{static_cast<double>(throttle_->transition_count()), throttled, idle};
  });
  // A report covers the whole run: choose (and prove) the meter now rather than at finalize,
  // since meters count from their creation.
  if (report_ != "0") energy();
  // Every rank registers the barrier handler before this MPI barrier; the AM barrier is safe after.
  mpi_barrier();
  g_current.store(this);
  if (verbose && rank_ == 0)
    std::fprintf(stderr, "gaea: %d ranks on %d node%s; rank 0 progress %s, %s; %s; %s\n", size_,
                 nodes_, nodes_ == 1 ? "" : "s", std::string(progress::to_string(m)).c_str(),
                 placement_.description.c_str(), topology_->summary().c_str(),
                 progress_->cal().describe().c_str());
  // One line on what DVFS does here: always when it cannot work (no hardware or no permission),
  // and when the user chose a backend or asked for verbosity.
  if (rank_ == 0 &&
      ((!actuator_->active() && dvfs_kind != "off") || dvfs_kind != "auto" || verbose))
    std::fprintf(stderr, "gaea: DVFS: %s\n", dvfs_reason_.c_str());
  if (rank_ == 0 && (throttle_kind != "auto" || verbose))
    std::fprintf(stderr, "gaea: throttle: %s\n", throttle_reason_.c_str());
}

runtime::~runtime() {
  try {
    barrier();
    write_report_and_trace();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gaea: rank %d: final barrier or report failed: %s\n", rank_, e.what());
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
    throw Error(
        "gaea: the runtime is not initialized: construct a gaea::runtime (or call "
        "gaea::init) before using Gaea objects");
  return *r;
}

bool runtime::initialized() noexcept {
  return g_current.load() != nullptr;
}

void runtime::add_report_section(std::string name, std::vector<std::string> keys,
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
    throw Error(std::string("gaea: ") + what +
                " is collective and must be called from the thread that created the runtime");
}

void runtime::mpi_barrier() {
  comm::worker& w = worker();
  MPI_Request req;
  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  int done = 0;
  progress_->wait_until(w, [&] {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    return done != 0;
  });
}

void runtime::barrier() {
  require_owner_thread("runtime::barrier");
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
  for (int dist = 1; dist < size_; dist *= 2, ++round) {
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

double runtime::elapsed() const noexcept {
  return static_cast<double>(progress::monotonic_ns() - start_ns_) * 1e-9;
}

energy::usage_snapshot runtime::usage() const {
  // CPU time split by DVFS frequency (the progress engine's lowered time) and by throttle duty.
  // The duty enters linearly, never as an "effective frequency" that would be cubed.
  const progress::telemetry_totals t = progress_->totals();
  const double cpu = static_cast<double>(progress::process_cpu_ns()) * 1e-9;
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

void init(int* argc, char*** argv) {
  if (g_owned) throw Error("gaea::init: already initialized");
  g_owned = std::make_unique<runtime>(argc, argv);
}

unsigned poll() {
  return runtime::current().poll();
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
