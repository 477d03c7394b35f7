#pragma once
/// \file
/// gaea::progress::engine — the per-rank progress thread and the waits of application threads,
/// under one switchable wait mode.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "gaea/base/enum_names.hpp"
#include "gaea/comm/completion.hpp"
#include "gaea/comm/service.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/progress/calibration.hpp"
#include "gaea/progress/detail/wait_strategy.hpp"
#include "gaea/progress/fixed_step.hpp"
#include "gaea/progress/telemetry.hpp"

namespace gaea::energy {
class governor;
class region_markup;
}  // namespace gaea::energy

namespace gaea::progress {

/// How the progress thread and application threads wait (GAEA_PROGRESS).
enum class mode {
  off,       ///< no asynchronous progress: application threads progress the service worker when
             ///< they wait (the progress thread is parked)
  spin,      ///< poll with `pause`
  adaptive,  ///< spin while traffic is recent, then micro-sleep with a doubling step
  /// `adaptive_fixed`: [AdaptivePolling Fig. 3] as published: probe, and after an idle probe sleep
  /// d, d growing by a fixed step from d_min to d_max, back to d_min on traffic
  /// (engine_options::fixed_step, GAEA_ADAPTIVE_FIXED_*). Never blocks.
  adaptive_fixed,
  interrupt,  ///< drain, arm, block in epoll on the event fd
  automatic,  ///< `auto`: spin / micro-sleep / block by calibrated thresholds (auto_policy).
              ///< On shared cores (engine_options::share_core) it hands the service worker
              ///< over: an application thread serves it while it waits, as in `off`, and the
              ///< progress thread stays parked until no thread has waited for
              ///< auto_params::takeover_ns or a wait blocks; it then drains and blocks on the
              ///< worker's event fd (never spins or micro-sleeps: the core is someone's). A
              ///< wait for a bulk get or put (auto_policy::interrupt_bytes) hands the worker
              ///< to the progress thread at once, and both poll until it ends, as in `spin`,
              ///< unless the node has more ranks than hardware threads
              ///< (engine_options::ranks_share_cores).
};
/// The names of the modes (GAEA_PROGRESS's choices): "auto" for automatic.
inline constexpr enum_name<mode> mode_names[] = {{mode::off, "off"},
                                                 {mode::spin, "spin"},
                                                 {mode::adaptive, "adaptive"},
                                                 {mode::adaptive_fixed, "adaptive_fixed"},
                                                 {mode::interrupt, "interrupt"},
                                                 {mode::automatic, "auto"}};
/// Name table of mode for gaea::to_string and gaea::parse.
constexpr enum_names<mode> enum_names_of(mode) noexcept {
  return {"progress mode", mode_names};
}
/// Text name of `m` (the spelling parse_mode accepts).
constexpr std::string_view to_string(mode m) noexcept {
  return gaea::to_string<mode>(m);
}
/// Parses "off|spin|adaptive|adaptive_fixed|interrupt|auto"; nullopt otherwise.
constexpr std::optional<mode> parse_mode(std::string_view text) noexcept {
  return gaea::try_parse<mode>(text);
}

/// What a wait waits for (scoped_wait_label): for the hang warning (GAEA_HANG_WARN) and the
/// watchdog (GAEA_HANG_TIMEOUT).
struct wait_info {
  /// The collective or operation, worded alike on every rank that takes part, so that the ranks
  /// in the same one can be told from those elsewhere ("gaea::runtime::barrier number 3").
  std::string what;
  /// This rank's part of it ("round 1: waiting for rank 2 (host h)"); may be empty.
  std::string detail;
  /// World ranks worth asking what they are doing: those waited for first, then the other
  /// members of the collective. Empty: none known.
  std::vector<int> ranks;
  /// "what (detail)".
  std::string text() const { return detail.empty() ? what : what + " (" + detail + ")"; }
};

/// Peers' answers to "what are you doing?", asked by a wait that passed GAEA_HANG_WARN
/// (engine_options::ask_peers). Owned by the waiting thread.
class peer_query {
 public:
  virtual ~peer_query() = default;
  /// True once every asked rank has answered.
  virtual bool answered() const = 0;
  /// What the asked ranks are doing, for the warning, compared with `mine` (called once, when
  /// answered or when the waiting thread stops waiting for answers).
  virtual std::string report(const wait_info& mine) = 0;
};

/// Counters of the progress thread (relaxed; approximate while running).
struct stats {
  std::uint64_t steps = 0;       ///< progress calls
  std::uint64_t busy_steps = 0;  ///< calls that handled at least one event
  std::uint64_t events = 0;      ///< events handled
};

/// Settings of an engine, fixed at construction.
struct engine_options {
  /// Wait mode at start (set_mode / scoped_mode change it later).
  mode initial = mode::automatic;
  bool dvfs = true;       ///< lower the core's frequency around blocking sleeps
  std::vector<int> cpus;  ///< PUs the progress thread may run on (empty: leave affinity)
  /// The progress thread shares cores with application threads: spinning is kept short and
  /// application-thread waits back off instead of spinning in `spin` mode.
  bool share_core = false;
  /// With share_core, spinning threads (progress and application) call sched_yield() this often,
  /// so that a thread woken on their CPU runs within microseconds instead of at the end of the
  /// scheduler's slice (framework/progress/README.md, "Shared cores").
  std::int64_t yield_interval_ns = 2000;
  /// More ranks on the node than hardware threads: a rank's second polling thread would take a
  /// core from another rank, so auto's bulk waits keep serving the service worker themselves.
  bool ranks_share_cores = false;
  energy::governor* governor = nullptr;  ///< DVFS (null: none); must outlive the engine
  /// A site energy manager's region markup (null: none; gaea/energy/markup.hpp): the outermost
  /// wait of the app_thread enters its region and leaves it when the wait ends. Must outlive the
  /// engine. Null costs a wait one predictable branch.
  energy::region_markup* markup = nullptr;
  calibration cal;               ///< costs the auto policy trades against each other
  fixed_step_params fixed_step;  ///< mode adaptive_fixed's schedule (must be valid)
  double max_slowdown = 0.02;    ///< GAEA_MAX_SLOWDOWN
  bool trace = false;            ///< record the time series (GAEA_TRACE)
  std::size_t trace_capacity = std::size_t{1} << 20;  ///< samples per thread
  /// Called by poll() on thread `app_thread` only, after the workers (null: none). The runtime
  /// uses it to run work that must happen on the application's main thread whenever that thread
  /// waits (its "app poll" callbacks). Returns the events it handled.
  std::function<unsigned()> app_poll;
  /// The thread on which app_poll runs (the application's main thread).
  std::thread::id app_thread;
  /// GAEA_HANG_TIMEOUT: an application-thread wait that lasts longer throws gaea::error naming
  /// what it waited for (scoped_wait_label). 0: no watchdog.
  std::int64_t hang_timeout_ns = 0;
  /// GAEA_HANG_WARN: an application-thread wait that lasts longer prints one warning on stderr
  /// naming what it waits for and, through ask_peers, what the ranks it waits for are doing; the
  /// wait goes on. 0: no warning.
  std::int64_t hang_warn_ns = 0;
  /// Starts asking info.ranks, over `w` (the waiting thread's worker, which the wait keeps
  /// progressing), what they are doing (empty function or null result: nobody is asked).
  std::function<std::unique_ptr<peer_query>(comm::worker& w, const wait_info& info)> ask_peers;
  /// How the warning names this rank ("rank 0 (host h)").
  std::string self = "this rank";
  /// Ends the job for report_fatal() (the runtime's fail); must not return. Empty: the thread
  /// that finds the report throws gaea::error instead.
  std::function<void(const std::string&)> on_fatal;
};

/// What a rank's application threads are doing, for a peer that asks (engine::current_status).
struct wait_status {
  std::string what;  ///< wait_info::what of the wait described (empty: none)
  std::string text;  ///< for people: "waiting for 3.0 s in ..." or "not in a Gaea wait ..."
};

/// Owns the progress thread. Thread safety: wait()/wait_until()/poll() may be called from any
/// application thread with that thread's own worker; set_mode() and the telemetry accessors from
/// any thread; construction and destruction from the owning thread.
class engine {
 public:
  /// Starts the progress thread. Throws gaea::error if `opt.fixed_step` is invalid
  /// (fixed_step_params::validate).
  engine(comm::service_worker& service, engine_options opt);
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  /// The wait mode now in force. Thread-safe.
  mode current_mode() const noexcept;
  /// Whether DVFS around blocking sleeps is on now. Thread-safe.
  bool dvfs_enabled() const noexcept;
  /// True unless the mode is off. Thread-safe.
  bool asynchronous() const noexcept { return current_mode() != mode::off; }
  /// Switches the wait mode of the progress thread (at once, waking it if it is blocked) and of
  /// application-thread waits that start after the call. Prefer scoped_mode.
  void set_mode(mode m, bool dvfs);

  /// Progresses `w` (and the service worker when mode is off) until `c` is done, waiting by the
  /// current mode. Throws gaea::error if an operation attached to `c` failed.
  void wait(comm::worker& w, comm::completion& c);
  /// Progresses until `pred()` holds. `notified`: pred becomes true only through events on `w` or
  /// through notify_waiters() (so the thread may block); otherwise (e.g. an MPI request) the
  /// thread spins or micro-sleeps.
  template <class Pred>
  void wait_until(comm::worker& w, Pred&& pred, bool notified = false) {
    if (pred()) return;
    wait_scope scope(*this, w, 0, notified ? transfer_kind::notification : transfer_kind::other,
                     notified);
    while (!pred())
      scope.step();
  }
  /// One progress step of the calling thread (its worker, the service worker when mode is off,
  /// and engine_options::app_poll on the app thread); returns events handled.
  unsigned poll(comm::worker& w);
  /// The test of a non-blocking operation completed by `c`: one poll() step unless `c` is already
  /// done; true when it is done. Never blocks; same threads as poll().
  bool test(comm::worker& w, const comm::completion& c) {
    if (!c.done()) poll(w);
    return c.done();
  }
  /// Progresses the service worker if mode is off, or auto on shared cores (mode::automatic),
  /// and no other thread is progressing it; else nothing.
  unsigned poll_service();
  /// Wakes every application thread blocked in a notified wait (called by handlers that make a
  /// waited-for predicate true). Thread-safe.
  void notify_waiters() noexcept;

  /// The job has failed (another rank reported an error): from now on every application-thread
  /// wait, current or future, throws gaea::error(reason) instead of waiting for peers that will
  /// not come, except waits inside scoped_unchecked_waits. The first reason is kept. Thread-safe.
  void fail_waits(const std::string& reason);
  /// The reason given to fail_waits(), or nullopt while the job has not failed. Thread-safe.
  std::optional<std::string> failure() const;
  /// An error found inside a handler that must end the job (a message for a handler nobody
  /// registered): the next thread to progress the service worker, once out of the handler, calls
  /// engine_options::on_fatal(reason). The first reason is kept. Thread-safe.
  void report_fatal(const std::string& reason);
  /// What this rank's application threads wait for now (each wait describes itself once it has
  /// lasted a second), or that none waits and since when. Thread-safe; for the status handler.
  wait_status current_status() const;

  /// Step counters of the progress thread. Thread-safe (approximate while it runs).
  stats thread_stats() const noexcept;
  /// The CPU the progress thread last ran on / ran its first step on (-1 if unknown).
  int last_cpu() const noexcept { return last_cpu_.load(std::memory_order_relaxed); }
  /// The CPU the progress thread ran its first step on (-1 if unknown). Thread-safe.
  int first_cpu() const noexcept { return first_cpu_.load(std::memory_order_relaxed); }
  /// Telemetry of the progress thread plus every application thread that waited.
  telemetry_totals totals() const;
  /// Time series of all threads (empty unless engine_options::trace).
  std::vector<trace_sample> trace(std::uint64_t* dropped = nullptr) const;
  /// The costs the auto policy uses (engine_options::cal).
  const calibration& cal() const noexcept { return opt_.cal; }
  /// The auto policy's parameters for application-thread waits, derived from the calibration.
  const auto_params& auto_parameters() const noexcept { return auto_app_; }
  /// Estimated latency the waits added (penalty) as a fraction of the engine's lifetime.
  double estimated_slowdown() const;
  /// engine_options::max_slowdown.
  double max_slowdown() const noexcept { return opt_.max_slowdown; }
  /// Size from which the calling thread's auto waits for `kind` block at once (calibrated
  /// online).
  std::size_t interrupt_bytes(comm::worker& w, transfer_kind kind = transfer_kind::other);
  /// engine_options::share_core.
  bool share_core() const noexcept { return opt_.share_core; }
  /// engine_options::ranks_share_cores.
  bool ranks_share_cores() const noexcept { return opt_.ranks_share_cores; }

 private:
  struct thread_state;
  /// One wait of an application thread: picks the strategy at construction, steps, ends.
  class wait_scope {
   public:
    /// `rma`: the bytes are gets and puts only (comm::completion::only), not active messages.
    wait_scope(engine& e, comm::worker& w, std::size_t bytes, transfer_kind kind, bool notified,
               bool rma = false);
    ~wait_scope();
    void step() {
      // A failed job, the warning or the watchdog; one relaxed load when none applies.
      if (checked_ && (e_.failed_.load(std::memory_order_relaxed) || next_check_ns_ != 0)) check();
      // A mode switch during the wait (set_mode also wakes it) takes effect at the next step.
      if (e_.mode_.load(std::memory_order_acquire) != packed_) reselect();
      strategy_->after_step(e_.poll(w_, !handed_back_));
    }

   private:
    void select();
    void reselect();
    void check();
    void warn(std::int64_t waited);
    bool checked_;  // not inside scoped_unchecked_waits
    engine& e_;
    comm::worker& w_;
    thread_state& ts_;
    std::size_t bytes_;
    transfer_kind kind_;
    bool notified_;
    bool rma_;
    int packed_;  // the mode (and DVFS flag) the strategy was chosen for
    detail::wait_strategy* strategy_;
    bool counted_ = false;              // this wait is counted in engine::serving_ (hand-over)
    bool handed_back_ = false;          // it blocked: the progress thread serves for the rest of it
    void* outer_ = nullptr;             // the serving wait this one is nested in (hand-over)
    bool bulk_ = false;                 // handed over for a bulk transfer: counted in bulk_waits_
    std::int64_t saved_yield_ns_ = -1;  // the thread's yield interval while serving (-1: kept)
    std::int64_t start_ns_ = 0;         // coarse monotonic time
    std::int64_t next_check_ns_ = 0;    // when check() next has work (0: never)
    // The hang warning: not yet due, peers asked (until query_deadline_ns_), printed.
    enum class warning : std::uint8_t { pending, asking, done } warning_ = warning::pending;
    bool published_ = false;  // this wait's description is in its thread's status
    std::unique_ptr<peer_query> query_;
    std::int64_t query_deadline_ns_ = 0;
    friend class engine;
  };
  /// `auto` on shared cores hands the service worker over (see mode::automatic).
  bool hands_over(mode m) const noexcept { return m == mode::automatic && opt_.share_core; }
  /// A wait stops serving the service worker: it ends, or it is about to block (`blocking`: the
  /// progress thread takes over at once).
  void end_serving(wait_scope& w, bool blocking) noexcept;
  /// A bulk wait hands the service worker to the progress thread, which polls it (spin) until
  /// end_bulk() of the last such wait.
  void begin_bulk(wait_scope& w) noexcept;
  void end_bulk(wait_scope& w) noexcept;
  /// A serving wait is about to micro-sleep: arms the service worker (if no other thread holds
  /// it) and returns its event fd, so that an arrival ends the sleep (away_hook::watch).
  int watch_service() noexcept;
  thread_state& this_thread(comm::worker& w);
  unsigned poll(comm::worker& w, bool serve);
  void run();
  void wake_progress_thread() noexcept;
  /// Acts on a report_fatal() (outside any handler; not on the failure path itself).
  void take_fatal();

  comm::service_worker& service_;
  engine_options opt_;
  auto_params auto_app_, auto_progress_;
  std::uint64_t generation_;
  std::int64_t start_ns_;
  std::atomic<int> mode_;     // mode | (dvfs << 8)
  std::mutex service_mutex_;  // held by whoever progresses the service worker
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  mutable std::mutex failure_mutex_;
  std::string failure_;              // guarded by failure_mutex_
  std::atomic<int> fatal_state_{0};  // report_fatal: 0 none, 1 reported, 2 taken
  std::string fatal_;                // guarded by failure_mutex_
  std::atomic<std::uint64_t> steps_{0}, busy_steps_{0}, events_{0};
  std::atomic<int> last_cpu_{-1};
  std::atomic<int> first_cpu_{-1};
  mutable std::mutex threads_mutex_;
  std::vector<std::unique_ptr<thread_state>> threads_;
  std::unique_ptr<thread_telemetry> progress_tel_;
  std::mutex waiter_mutex_;  // guards signalling progress_waiter_ against its destruction
  std::atomic<detail::waiter*> progress_waiter_{nullptr};
  std::unique_ptr<detail::blocker> park_;  // the progress thread sleeps here while mode is off
  // Hand-over: application waits serving the service worker now; serving waits started so far;
  // a wait stopped serving to block (the progress thread takes over at once).
  std::atomic<int> serving_{0};
  std::atomic<std::uint64_t> serve_starts_{0};
  std::atomic<bool> handed_back_{false};
  std::atomic<int> bulk_waits_{0};  // waits handed over for a bulk transfer (begin_bulk)
  std::thread thread_;
};

namespace detail {
// A node of the calling thread's stack of wait labels (scoped_wait_label).
struct wait_label_node {
  wait_info (*describe_fn)(const wait_label_node*) = nullptr;
  wait_label_node* prev = nullptr;
  static thread_local wait_label_node* top;
};
}  // namespace detail

/// RAII: names what the calling thread's waits in this scope wait for: the one home of that
/// description, for the hang warning (engine_options::hang_warn_ns), the watchdog
/// (engine_options::hang_timeout_ns) and peers asking what this rank does. Holds `describe` (a
/// callable returning a wait_info, or a std::string: a wait_info with only `what`), called only
/// when a wait has lasted a second. Nests: an outer label's `what` prefixes the inner one's
/// ("GA_Sync: gaea::runtime::barrier number 3"). Thread-local; no allocation.
///   const progress::scoped_wait_label label([&] { return "barrier 3 (waiting for rank 2)"; });
template <class F>
class scoped_wait_label : detail::wait_label_node {
 public:
  /// Installs the label for the calling thread until the destructor; `describe` is kept by value.
  explicit scoped_wait_label(F describe) : f_(std::move(describe)) {
    describe_fn = [](const detail::wait_label_node* n) -> wait_info {
      auto d = static_cast<const scoped_wait_label*>(n)->f_();
      if constexpr (std::is_same_v<decltype(d), wait_info>)
        return d;
      else
        return wait_info{std::string(std::move(d)), {}, {}};
    };
    prev = top;
    top = this;
  }
  ~scoped_wait_label() { top = prev; }
  scoped_wait_label(const scoped_wait_label&) = delete;
  scoped_wait_label& operator=(const scoped_wait_label&) = delete;

 private:
  F f_;
};
/// What this thread's waits wait for now: the innermost label, its `what` prefixed by the outer
/// labels' (empty when none).
wait_info current_wait_info();
/// current_wait_info().text() ("" when none).
std::string current_wait_label();

/// RAII: the calling thread's waits in this scope neither throw for a failed job nor time out.
/// For the runtime's failure path and final clean-up, which must still progress after a failure.
class scoped_unchecked_waits {
 public:
  scoped_unchecked_waits() noexcept { ++depth_; }
  ~scoped_unchecked_waits() { --depth_; }
  scoped_unchecked_waits(const scoped_unchecked_waits&) = delete;
  scoped_unchecked_waits& operator=(const scoped_unchecked_waits&) = delete;
  /// True when the calling thread is inside a scoped_unchecked_waits.
  static bool active() noexcept { return depth_ > 0; }

 private:
  static thread_local int depth_;
};

/// RAII: switches the engine's mode for a scope and restores the previous one.
class scoped_mode {
 public:
  /// Switches `e` to mode `m` (with DVFS `dvfs`); the destructor restores the mode and DVFS setting
  /// in force before. Same thread safety as engine::set_mode.
  scoped_mode(engine& e, mode m, bool dvfs = true);
  ~scoped_mode();
  scoped_mode(const scoped_mode&) = delete;
  scoped_mode& operator=(const scoped_mode&) = delete;

 private:
  engine& e_;
  mode old_mode_;
  bool old_dvfs_;
};

}  // namespace gaea::progress
