// gaea::progress::engine: the progress thread, application threads' waits under the switchable
// wait mode, bulk and serving scopes, failures of waits, and the engine's statistics.

#include "gaea/progress/engine.hpp"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>
#include <utility>

#include "gaea/base/clock.hpp"
#include "gaea/base/error.hpp"
#include "gaea/energy/governor.hpp"
#include "gaea/energy/markup.hpp"
#include "gaea/trace/recorder.hpp"

namespace gaea::progress {

namespace {
std::atomic<std::uint64_t> g_generation{0};
constexpr int pack(mode m, bool dvfs) {
  return static_cast<int>(m) | (dvfs ? 0x100 : 0);
}
constexpr mode unpack_mode(int v) {
  return static_cast<mode>(v & 0xff);
}
constexpr bool unpack_dvfs(int v) {
  return (v & 0x100) != 0;
}
// Safety timeouts of blocking waits: a lost wake-up costs at most this much, never a hang. 10 ms,
// because UCX 1.13's shared-memory transport sometimes fails to signal an armed worker's event fd
// (a lost wake-up); 100 wake-ups per second cost well under 1% of a core.
constexpr std::int64_t app_block_timeout_ns = 10000000;
constexpr std::int64_t progress_block_timeout_ns = 10000000;

// The watchdog needs only second resolution: the coarse clock costs a few ns per wait step.
std::int64_t coarse_monotonic_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::string format_seconds(std::int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", static_cast<double>(ns) * 1e-9);
  return buf;
}
// A duration for the hang warning and the status ("2.0 s").
std::string format_duration(std::int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s",
                static_cast<double>(std::max<std::int64_t>(ns, 0)) * 1e-9);
  return buf;
}
// A wait describes itself (for peers asking) once it has lasted this long: short waits never pay
// for formatting.
constexpr std::int64_t publish_after_ns = 1'000'000'000;
// How long a warning waits for the answers of the ranks it asked.
constexpr std::int64_t query_patience_ns = 1'000'000'000;

// One thread's strategies, one object per mode so that a mode switch loses no state, and the one
// place that says which strategy a mode means (for the progress thread and application waits).
struct strategy_set {
  detail::spin_strategy spin;
  detail::backoff_strategy adaptive;
  detail::fixed_step_strategy fixed;
  detail::interrupt_strategy intr;
  detail::auto_strategy autos;
  // auto's application waits on shared cores: `adaptive`, then a block (which hands the service
  // worker back) once a wait has idled for 4 x takeover_ns. Unused by the progress thread.
  std::optional<detail::backoff_strategy> handover;
  // A bulk wait once handed over: `spin` without DVFS (a transition costs what the hand-over
  // saves). Unused by the progress thread, which spins with `spin`.
  std::optional<detail::spin_strategy> bulk;

  detail::wait_strategy& for_mode(mode m) noexcept {
    switch (m) {
      case mode::off:  // the waiting thread serves the service worker itself: it polls
      case mode::spin:
        return spin;
      case mode::adaptive:
        return adaptive;
      case mode::adaptive_fixed:
        return fixed;
      case mode::interrupt:
        return intr;
      case mode::automatic:
        return autos;
    }
    return autos;
  }
};
}  // namespace

// The progress thread's side of the hand-over: while it sleeps or blocks (after arming the
// service worker), waiting application threads may take the worker's lock and serve it.
struct lock_release_hook final : detail::away_hook {
  std::unique_lock<std::mutex>* lock = nullptr;
  bool active = false;
  void leaving(bool) noexcept override {
    if (active && lock->owns_lock()) lock->unlock();
  }
  void back() noexcept override {
    if (active && !lock->owns_lock()) lock->lock();
  }
};

// An application thread's side: a wait that is about to block stops serving, so that the
// progress thread takes the service worker over at once; one that micro-sleeps while serving
// watches the service worker, so that an arrival ends the sleep. `wait` is the thread's innermost
// serving wait (null: none).
struct stop_serving_hook final : detail::away_hook {
  void (*stop)(void*) noexcept = nullptr;
  int (*watch_fn)(void*) noexcept = nullptr;
  void* wait = nullptr;
  void leaving(bool blocking) noexcept override {
    if (blocking && wait) stop(wait);
  }
  void back() noexcept override {}
  int watch() noexcept override { return wait ? watch_fn(wait) : no_watch; }
};

// Per application thread: its telemetry, its waiter (blocking on its own origin worker's event
// fd) and one object per strategy, so a mode switch loses no strategy state.
struct engine::thread_state {
  thread_state(engine& e, comm::worker& w, std::uint8_t id)
      : worker(&w),
        index(id),
        tel(id, e.opt_.trace_capacity),
        wt(&w, tel, e.opt_.governor),
        strategies{detail::spin_strategy(wt),
                   detail::backoff_strategy(wt, {}),
                   detail::fixed_step_strategy(wt, e.opt_.fixed_step),
                   detail::interrupt_strategy(wt, app_block_timeout_ns),
                   detail::auto_strategy(wt, e.auto_app_, app_block_timeout_ns),
                   std::nullopt,
                   std::nullopt} {
    // The hand-over's serving waits: `off`'s windows, but a sleep ends on an arrival at either
    // worker and a rhythm of arrivals is met spinning, as auto's progress thread meets it.
    detail::backoff_params handover;
    handover.block_after_ns = 4 * e.auto_app_.takeover_ns;
    handover.block_timeout_ns = app_block_timeout_ns;
    handover.watch = true;
    handover.predict = e.auto_app_.arrivals();
    strategies.handover.emplace(wt, handover);
    strategies.bulk.emplace(wt, 4096, std::numeric_limits<std::size_t>::max());
    tel.enable_trace(e.opt_.trace);
    // Constructed on the thread itself (engine::this_thread): its index in the trace session.
    if (e.opt_.trace) tel.set_trace_thread(trace::thread_index());
    if (e.opt_.share_core) wt.set_yield_interval(e.opt_.yield_interval_ns);
    wt.set_away_hook(&hook);
    // GEOPM's profiling is per process: only the application's main thread marks its waits.
    if (std::this_thread::get_id() == e.opt_.app_thread) markup = e.opt_.markup;
  }
  comm::worker* worker;
  std::uint8_t index;  // 1, 2, ... in the order threads first waited
  thread_telemetry tel;
  detail::waiter wt;
  strategy_set strategies;
  stop_serving_hook hook;
  // For current_status(): the start of the thread's outermost wait (0: none), the end of its last
  // one (coarse clock), and the description of a wait that has lasted publish_after_ns.
  std::atomic<std::int64_t> wait_since{0}, last_end{0};
  int depth = 0;                            // nested waits (this thread only)
  energy::region_markup* markup = nullptr;  // marks this thread's outermost waits (null: none)
  std::mutex published_mutex;
  std::optional<wait_info> published;  // guarded by published_mutex
};

engine::engine(comm::service_worker& service, engine_options opt)
    : service_(service),
      opt_(std::move(opt)),
      auto_app_(
          auto_params::from(opt_.cal, opt_.max_slowdown, opt_.share_core, !opt_.ranks_share_cores)),
      auto_progress_(auto_app_),
      generation_(++g_generation),
      start_ns_(monotonic_ns()),
      mode_(pack(opt_.initial, opt_.dvfs)),
      progress_tel_(std::make_unique<thread_telemetry>(0, opt_.trace_capacity)),
      park_(std::make_unique<detail::blocker>(nullptr)) {
  opt_.fixed_step.validate();
  progress_tel_->enable_trace(opt_.trace);
  thread_ = std::thread([this] { run(); });
  // Deferred replies posted by the main thread (owner-served counters) must not wait for the
  // end of a micro-sleep.
  service_.set_waker([this] { wake_progress_thread(); });
}

engine::~engine() {
  service_.set_waker({});
  stop_.store(true, std::memory_order_release);
  wake_progress_thread();
  if (thread_.joinable()) thread_.join();
}

mode engine::current_mode() const noexcept {
  return unpack_mode(mode_.load(std::memory_order_acquire));
}

bool engine::dvfs_enabled() const noexcept {
  return unpack_dvfs(mode_.load(std::memory_order_acquire));
}

void engine::set_mode(mode m, bool dvfs) {
  mode_.store(pack(m, dvfs), std::memory_order_release);
  wake_progress_thread();
  notify_waiters();  // blocked application waits step again (e.g. to serve peers after `off`)
}

namespace {
// Ends the progress thread's block or sleep. Its waiter lives on its stack: signalled only while
// it exists (`guard` is held while it is published and withdrawn).
void signal_waiter(std::mutex& guard, const std::atomic<detail::waiter*>& waiter) noexcept {
  std::lock_guard lock(guard);
  if (detail::waiter* w = waiter.load(std::memory_order_acquire)) w->signal();
}
}  // namespace

void engine::wake_progress_thread() noexcept {
  park_->signal();
  signal_waiter(waiter_mutex_, progress_waiter_);
  service_.signal();
}

void engine::run() {
  // Bind before the first step (binding from the parent would race with it). On failure the
  // thread stays where the OS puts it; last_cpu() reports where it actually runs.
  if (!opt_.cpus.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : opt_.cpus)
      CPU_SET(c, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  }
  if (opt_.governor) opt_.governor->thread_started(sched_getcpu());
  if (opt_.trace) {
    trace::name_thread("progress");
    progress_tel_->set_trace_thread(trace::thread_index());
  }
  detail::waiter pw(&service_, *progress_tel_, opt_.governor);
  if (opt_.share_core) pw.set_yield_interval(opt_.yield_interval_ns);
  // Idle, adaptive backs off to 1 ms sleeps: on virtual machines every wake-up costs tens of
  // microseconds of CPU, so shorter steps burn a visible share of a core (docs/measurements.md).
  detail::backoff_params adaptive;
  adaptive.max_sleep_ns = 1000000;
  strategy_set strategies{detail::spin_strategy(pw),
                          detail::backoff_strategy(pw, adaptive),
                          detail::fixed_step_strategy(pw, opt_.fixed_step),
                          detail::interrupt_strategy(pw, progress_block_timeout_ns),
                          detail::auto_strategy(pw, auto_progress_, progress_block_timeout_ns),
                          std::nullopt,
                          std::nullopt};
  // Taken over on a shared core (the hand-over): drain and block, leaving the core to the
  // application, but meet a rhythm of arrivals spinning.
  detail::interrupt_strategy taken_over(pw, progress_block_timeout_ns, 20000,
                                        auto_progress_.arrivals());
  progress_waiter_.store(&pw, std::memory_order_release);

  std::unique_lock service_lock(service_mutex_, std::defer_lock);
  lock_release_hook release;
  release.lock = &service_lock;
  pw.set_away_hook(&release);
  int current = -1;
  std::uint64_t steps = 0;
  std::uint64_t seen_starts = 0;
  while (!stop_.load(std::memory_order_acquire)) {
    const int packed = mode_.load(std::memory_order_acquire);
    if (packed != current) {
      if (current != -1) progress_tel_->count_mode_switch();
      current = packed;
      pw.set_dvfs(unpack_dvfs(packed));
    }
    const mode m = unpack_mode(packed);
    release.active = hands_over(m);
    if (release.active) {
      // Application threads serve while they wait; take over once none has for takeover_ns, or
      // at once when a wait stops serving to block. A parked check costs one timer wake-up.
      const std::uint64_t starts = serve_starts_.load(std::memory_order_acquire);
      const bool idle = serving_.load(std::memory_order_acquire) == 0;
      const bool back = handed_back_.exchange(false, std::memory_order_acq_rel);
      if (!idle || (starts != seen_starts && !back)) {
        seen_starts = starts;
        if (service_lock.owns_lock()) service_lock.unlock();
        progress_tel_->enter(wait_state::block, monotonic_ns(), thread_cpu_ns());
        park_->block(auto_progress_.takeover_ns);
        progress_tel_->enter(wait_state::run, monotonic_ns(), thread_cpu_ns());
        continue;
      }
      seen_starts = starts;
    }
    if (m == mode::off) {
      // Parked: application threads progress the service worker themselves.
      if (service_lock.owns_lock()) service_lock.unlock();
      progress_tel_->enter(wait_state::block, monotonic_ns(), thread_cpu_ns());
      park_->block(progress_block_timeout_ns);
      progress_tel_->enter(wait_state::run, monotonic_ns(), thread_cpu_ns());
      continue;
    }
    if (!service_lock.owns_lock()) service_lock.lock();
    const unsigned n = service_.progress();
    if (fatal_state_.load(std::memory_order_acquire) == 1 && opt_.on_fatal) {
      service_lock.unlock();  // the failure path progresses the service worker itself
      take_fatal();
    }
    ++steps;
    steps_.store(steps, std::memory_order_relaxed);
    if (n) {
      busy_steps_.fetch_add(1, std::memory_order_relaxed);
      events_.fetch_add(n, std::memory_order_relaxed);
    }
    if ((steps & 0xffff) == 1) {
      last_cpu_.store(sched_getcpu(), std::memory_order_relaxed);
      if (steps == 1) first_cpu_.store(last_cpu_.load(std::memory_order_relaxed));
    }
    // Taken over: poll while an application thread waits for a bulk transfer (begin_bulk), else
    // drain and block.
    detail::wait_strategy* next = &strategies.for_mode(m);
    if (release.active && bulk_waits_.load(std::memory_order_acquire) > 0)
      next = &strategies.spin;
    else if (release.active)
      next = &taken_over;
    next->after_step(n);
  }
  {
    std::lock_guard lock(waiter_mutex_);
    progress_waiter_.store(nullptr, std::memory_order_release);
  }
  // Drain what arrived before stop so that no request is left half-served.
  if (!service_lock.owns_lock()) service_lock.lock();
  while (service_.progress() != 0) {
  }
  pw.run();
}

unsigned engine::poll_service() {
  const mode m = current_mode();
  if (m != mode::off && !hands_over(m)) return 0;
  unsigned n = 0;
  {
    std::unique_lock lock(service_mutex_, std::try_to_lock);
    if (lock.owns_lock()) n = service_.progress();
  }
  if (fatal_state_.load(std::memory_order_acquire) == 1) take_fatal();
  return n;
}

unsigned engine::poll(comm::worker& w) {
  return poll(w, true);
}

unsigned engine::poll(comm::worker& w, bool serve) {
  unsigned n = w.progress() + (serve ? poll_service() : 0);
  if (opt_.app_poll && std::this_thread::get_id() == opt_.app_thread) n += opt_.app_poll();
  return n;
}

engine::thread_state& engine::this_thread(comm::worker& w) {
  struct cache {
    std::uint64_t generation = 0;
    thread_state* state = nullptr;
  };
  thread_local cache t;
  if (t.generation == generation_ && t.state && t.state->worker == &w) return *t.state;
  std::lock_guard lock(threads_mutex_);
  const auto id = static_cast<std::uint8_t>(std::min<std::size_t>(threads_.size() + 1, 255));
  threads_.push_back(std::make_unique<thread_state>(*this, w, id));
  if (opt_.governor) opt_.governor->thread_started(sched_getcpu());
  t = {generation_, threads_.back().get()};
  return *t.state;
}

engine::wait_scope::wait_scope(engine& e, comm::worker& w, std::size_t bytes, transfer_kind kind,
                               bool notified, bool rma)
    : checked_(!scoped_unchecked_waits::active()),
      e_(e),
      w_(w),
      ts_(e.this_thread(w)),
      bytes_(bytes),
      kind_(kind),
      notified_(notified),
      rma_(rma),
      start_ns_(coarse_monotonic_ns()) {
  // The first check publishes the description; the warning and the watchdog come later (both
  // are whole seconds).
  if (checked_ && (e_.opt_.hang_timeout_ns > 0 || e_.opt_.hang_warn_ns > 0))
    next_check_ns_ = start_ns_ + publish_after_ns;
  if (ts_.depth++ == 0) ts_.wait_since.store(start_ns_, std::memory_order_release);
  ts_.tel.count_wait();
  select();
  // Last, so that a constructor that throws leaves no region open.
  if (ts_.markup && ts_.depth == 1) [[unlikely]]
    ts_.markup->enter();
}

void engine::wait_scope::check() {
  if (e_.failed_.load(std::memory_order_acquire)) {
    std::lock_guard lock(e_.failure_mutex_);
    throw error(e_.failure_);
  }
  if (next_check_ns_ == 0) return;
  const std::int64_t now = coarse_monotonic_ns();
  if (now < next_check_ns_) return;
  const engine_options& o = e_.opt_;
  const std::int64_t waited = now - start_ns_;
  if (!published_) {
    published_ = true;
    wait_info info = current_wait_info();
    std::lock_guard lock(ts_.published_mutex);
    ts_.published = std::move(info);
  }
  if (o.hang_warn_ns > 0 && warning_ == warning::pending && waited >= o.hang_warn_ns) {
    warning_ = warning::asking;
    query_deadline_ns_ = now + query_patience_ns;
    const wait_info info = current_wait_info();
    if (o.ask_peers && !info.ranks.empty()) try {
        query_ = o.ask_peers(w_, info);
      } catch (const std::exception&) {  // the warning goes out without the peers' answers
      }
  }
  if (warning_ == warning::asking && (!query_ || query_->answered() || now >= query_deadline_ns_)) {
    warning_ = warning::done;
    warn(waited);
  }
  if (o.hang_timeout_ns > 0 && waited > o.hang_timeout_ns) {
    const std::string what = current_wait_label();
    throw error("waited more than " + format_seconds(o.hang_timeout_ns) +
                " (GAEA_HANG_TIMEOUT) for " +
                (what.empty() ? std::string("a remote operation to complete") : what) +
                "; a rank has stopped, is far behind, or does not take part");
  }
  // While asking, every step looks for the answers; else sleep until the next deadline.
  std::int64_t next = std::numeric_limits<std::int64_t>::max();
  if (warning_ == warning::asking) next = now;
  if (warning_ == warning::pending && o.hang_warn_ns > 0)
    next = std::min(next, start_ns_ + o.hang_warn_ns);
  if (o.hang_timeout_ns > 0) next = std::min(next, start_ns_ + o.hang_timeout_ns + 1);
  next_check_ns_ = next == std::numeric_limits<std::int64_t>::max() ? 0 : next;
}

void engine::wait_scope::warn(std::int64_t waited) {
  const engine_options& o = e_.opt_;
  const wait_info info = current_wait_info();
  std::string peers;
  if (query_) try {
      peers = query_->report(info);
    } catch (const std::exception& x) {
      peers = std::string("(asking the other ranks failed: ") + x.what() + ")";
    }
  query_.reset();
  const std::string timeout =
      o.hang_timeout_ns > 0
          ? "GAEA_HANG_TIMEOUT makes it an error after " + format_seconds(o.hang_timeout_ns)
          : std::string("GAEA_HANG_TIMEOUT=<seconds> would make it an error");
  std::fprintf(stderr,
               "gaea: %s: warning: no progress for %s (GAEA_HANG_WARN) in %s%s%s; still waiting "
               "(%s)\n",
               o.self.c_str(), format_duration(waited).c_str(),
               info.what.empty() ? "a remote operation" : info.text().c_str(),
               peers.empty() ? "" : "; ", peers.c_str(), timeout.c_str());
  std::fflush(stderr);
}

wait_status engine::current_status() const {
  const std::int64_t now = coarse_monotonic_ns();
  wait_status s;
  std::int64_t last = 0;
  std::lock_guard lock(threads_mutex_);
  for (const auto& t : threads_) {
    const std::int64_t since = t->wait_since.load(std::memory_order_acquire);
    if (since == 0) {
      last = std::max(last, t->last_end.load(std::memory_order_relaxed));
      continue;
    }
    std::string part = "waiting for " + format_duration(now - since);
    {
      std::lock_guard plock(t->published_mutex);
      if (t->published && !t->published->what.empty()) {
        if (s.what.empty()) s.what = t->published->what;
        part += " in " + t->published->text();
      } else {
        part += " in a Gaea wait";
      }
    }
    if (threads_.size() > 1) part = "thread " + std::to_string(t->index) + " " + part;
    s.text += (s.text.empty() ? "" : "; ") + part;
  }
  // No wait yet: not in one since the engine started (CLOCK_MONOTONIC, as the coarse clock).
  if (s.text.empty())
    s.text = "not in a Gaea wait for " + format_duration(now - (last > 0 ? last : start_ns_)) +
             " (computing, or blocked outside Gaea)";
  return s;
}

void engine::report_fatal(const std::string& reason) {
  {
    std::lock_guard lock(failure_mutex_);
    if (fatal_state_.load(std::memory_order_relaxed) != 0) return;
    fatal_ = reason;
    fatal_state_.store(1, std::memory_order_release);
  }
  wake_progress_thread();
  notify_waiters();
}

void engine::take_fatal() {
  // The failure path itself progresses the service worker: it is already ending the job.
  if (scoped_unchecked_waits::active()) return;
  int reported = 1;
  if (!fatal_state_.compare_exchange_strong(reported, 2, std::memory_order_acq_rel)) return;
  std::string reason;
  {
    std::lock_guard lock(failure_mutex_);
    reason = fatal_;
  }
  if (opt_.on_fatal) opt_.on_fatal(reason);
  throw error(reason);
}

void engine::fail_waits(const std::string& reason) {
  {
    std::lock_guard lock(failure_mutex_);
    if (failed_.load(std::memory_order_relaxed)) return;
    failure_ = reason;
    failed_.store(true, std::memory_order_release);
  }
  notify_waiters();
}

std::optional<std::string> engine::failure() const {
  if (!failed_.load(std::memory_order_acquire)) return std::nullopt;
  std::lock_guard lock(failure_mutex_);
  return failure_;
}

thread_local detail::wait_label_node* detail::wait_label_node::top = nullptr;
thread_local int scoped_unchecked_waits::depth_ = 0;

wait_info current_wait_info() {
  const detail::wait_label_node* n = detail::wait_label_node::top;
  if (!n) return {};
  wait_info info = n->describe_fn(n);
  for (n = n->prev; n; n = n->prev) {
    wait_info outer = n->describe_fn(n);
    info.what = outer.what + (info.what.empty() ? "" : ": ") + info.what;
    if (info.ranks.empty()) info.ranks = std::move(outer.ranks);
  }
  return info;
}

std::string current_wait_label() {
  return current_wait_info().text();
}

void engine::wait_scope::select() {
  packed_ = e_.mode_.load(std::memory_order_acquire);
  const mode m = unpack_mode(packed_);
  ts_.wt.set_dvfs(unpack_dvfs(packed_));
  // Blocking needs someone else to progress the service worker (mode != off) and a predicate
  // that an event on this thread's worker, or notify_waiters(), makes true.
  // A wait that cannot block polls: spinning where its mode spins (unless the core is shared),
  // micro-sleeping otherwise.
  strategy_set& s = ts_.strategies;
  strategy_ = &s.for_mode(m);
  if (e_.hands_over(m) && !counted_ && !handed_back_) {
    counted_ = true;
    e_.serving_.fetch_add(1, std::memory_order_acq_rel);
    e_.serve_starts_.fetch_add(1, std::memory_order_acq_rel);
    // Waits nest (a handler run by an app poll may wait): the inner one is the hook's until it
    // ends.
    outer_ = ts_.hook.wait;
    ts_.hook.wait = this;
    ts_.hook.stop = [](void* w) noexcept {
      auto& scope = *static_cast<wait_scope*>(w);
      scope.e_.end_serving(scope, true);
    };
    ts_.hook.watch_fn = [](void* w) noexcept {
      return static_cast<wait_scope*>(w)->e_.watch_service();
    };
    // The progress thread is parked while this wait serves: unless other ranks share the cores,
    // no thread of this job needs this core, and a yield would hand it to unrelated processes
    // for a whole scheduler slice (framework/progress/README.md, "Shared cores").
    if (!e_.opt_.ranks_share_cores) {
      saved_yield_ns_ = ts_.wt.yield_interval();
      ts_.wt.set_yield_interval(0);
    }
  }
  const bool can_block = notified_ && m != mode::off && m != mode::spin && ts_.wt.can_block();
  // adaptive_fixed never blocks, so needs no notification. Under `off` no progress thread
  // exists: spinning takes the core only from other ranks, so only their sharing it makes a
  // polling wait sleep.
  const bool core_contended = m == mode::off ? e_.opt_.ranks_share_cores : e_.opt_.share_core;
  if (!can_block && strategy_ != &s.fixed && (strategy_ != &s.spin || core_contended))
    strategy_ = &s.adaptive;
  // The hand-over's waits serve like `off`'s (auto's short steps are tuned for a progress thread
  // on its own core), and block only once a wait has idled for 4 takeover periods: longer than
  // the scheduler keeps a peer rank off an oversubscribed core (progress README, "Hand-over").
  if (e_.hands_over(m)) strategy_ = can_block ? &*s.handover : &s.adaptive;
  // A bulk get or put over tcp keeps both workers busy: one thread serving both alternates
  // between sending a peer's data and reading its own, and the ranks starve each other; two
  // threads polling one worker each do not (progress README). Not active messages (an
  // accumulate): their cost is the handler on the target, which runs on whichever thread
  // serves, and a second polling thread on the shared core only slows it.
  if (strategy_ == &*s.handover && counted_ && rma_ && !e_.opt_.ranks_share_cores &&
      bytes_ >= s.autos.policy().interrupt_bytes(kind_)) {
    e_.begin_bulk(*this);
    strategy_ = &*s.bulk;
  }
  strategy_->begin_wait(bytes_, kind_);
}

void engine::begin_bulk(wait_scope& w) noexcept {
  w.bulk_ = true;
  bulk_waits_.fetch_add(1, std::memory_order_acq_rel);
  end_serving(w, true);  // the progress thread takes over at once
  // It may be blocked rather than parked (it had taken over before this wait began).
  signal_waiter(waiter_mutex_, progress_waiter_);
}

void engine::end_bulk(wait_scope& w) noexcept {
  if (!w.bulk_) return;
  w.bulk_ = false;
  bulk_waits_.fetch_sub(1, std::memory_order_acq_rel);
}

void engine::end_serving(wait_scope& w, bool blocking) noexcept {
  if (!w.counted_) return;
  w.counted_ = false;
  if (w.saved_yield_ns_ >= 0) w.ts_.wt.set_yield_interval(std::exchange(w.saved_yield_ns_, -1));
  w.ts_.hook.wait = w.outer_;
  w.handed_back_ = blocking;
  if (blocking) handed_back_.store(true, std::memory_order_release);
  if (serving_.fetch_sub(1, std::memory_order_acq_rel) == 1 && blocking) park_->signal();
}

int engine::watch_service() noexcept {
  // Arming needs the worker's lock (as progressing does); a thread that cannot take it leaves
  // the watch to the holder. The lock is not kept through the sleep: another serving thread may
  // progress meanwhile, which costs at most a spurious wake-up.
  std::unique_lock lock(service_mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return detail::away_hook::no_watch;
  const int fd = service_.event_fd();
  if (fd < 0) return detail::away_hook::no_watch;
  try {
    return service_.arm() ? fd : detail::away_hook::watch_busy;
  } catch (...) {  // reported by the next progress call
    return detail::away_hook::watch_busy;
  }
}

void engine::wait_scope::reselect() {
  strategy_->end_wait();
  e_.end_bulk(*this);
  e_.end_serving(*this, false);
  ts_.tel.count_mode_switch();
  select();
}

engine::wait_scope::~wait_scope() {
  strategy_->end_wait();
  e_.end_bulk(*this);
  e_.end_serving(*this, false);
  if (published_) {
    std::lock_guard lock(ts_.published_mutex);
    ts_.published.reset();
  }
  if (--ts_.depth == 0) {
    if (ts_.markup) [[unlikely]]
      ts_.markup->exit();
    ts_.last_end.store(coarse_monotonic_ns(), std::memory_order_relaxed);
    ts_.wait_since.store(0, std::memory_order_release);
  }
}

void engine::wait(comm::worker& w, comm::completion& c) {
  if (!c.done()) {
    const bool get = c.only(comm::op_kind::get);
    const bool rma = get || c.only(comm::op_kind::put);
    wait_scope scope(*this, w, c.bytes(), get ? transfer_kind::get : transfer_kind::other,
                     /*notified=*/true, rma);
    while (!c.done())
      scope.step();
  }
  c.check();
}

void engine::notify_waiters() noexcept {
  std::lock_guard lock(threads_mutex_);
  for (auto& t : threads_)
    t->wt.signal();
}

std::size_t engine::interrupt_bytes(comm::worker& w, transfer_kind kind) {
  return this_thread(w).strategies.autos.policy().interrupt_bytes(kind);
}

stats engine::thread_stats() const noexcept {
  return {steps_.load(std::memory_order_relaxed), busy_steps_.load(std::memory_order_relaxed),
          events_.load(std::memory_order_relaxed)};
}

telemetry_totals engine::totals() const {
  telemetry_totals t;
  const std::int64_t now = monotonic_ns();
  progress_tel_->add_to(t, now);
  std::lock_guard lock(threads_mutex_);
  for (const auto& s : threads_)
    s->tel.add_to(t, now);
  return t;
}

std::vector<trace_sample> engine::trace(std::uint64_t* dropped) const {
  std::uint64_t lost = 0, d = 0;
  std::vector<trace_sample> all = progress_tel_->trace(&lost);
  std::lock_guard lock(threads_mutex_);
  for (const auto& s : threads_) {
    const auto part = s->tel.trace(&d);
    lost += d;
    all.insert(all.end(), part.begin(), part.end());
  }
  if (dropped) *dropped = lost;
  return all;
}

double engine::estimated_slowdown() const {
  const std::int64_t elapsed = monotonic_ns() - start_ns_;
  return elapsed > 0 ? static_cast<double>(totals().penalty_ns) / static_cast<double>(elapsed)
                     : 0.0;
}

scoped_mode::scoped_mode(engine& e, mode m, bool dvfs)
    : e_(e), old_mode_(e.current_mode()), old_dvfs_(e.dvfs_enabled()) {
  e_.set_mode(m, dvfs);
}

scoped_mode::~scoped_mode() {
  e_.set_mode(old_mode_, old_dvfs_);
}

}  // namespace gaea::progress
