#pragma once
/// \file
/// gaea::runtime — RAII start-up and shut-down of a Gaea job: MPI (if the program did not start
/// it), the hwloc topology, the UCX transport and the progress thread.

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "gaea/base/error.hpp"

namespace gaea {

// What the accessors below return; the files that use them include their headers
// (gaea/comm/context.hpp, gaea/progress/engine.hpp, gaea/energy/*.hpp,
// gaea/runtime/topology.hpp). Report sections and app polls: gaea/runtime/extension.hpp.
class topology;
struct progress_placement;
namespace comm {
class context;
class worker;
class completion;
}  // namespace comm
namespace progress {
class engine;
}
namespace energy {
class actuator;
class throttle;
class region_markup;
struct model_params;
}  // namespace energy
namespace detail {
struct runtime_state;  // src/detail/runtime_state.hpp
}

/// One reading of this rank's energy meter.
struct energy_reading {
  double joules = 0;      ///< since the meter was chosen
  bool measured = false;  ///< hardware counter (true) or the model (false)
  std::string source;     ///< meter name, e.g. "model" or "rapl-powercap"
  std::string scope;      ///< what it covers, e.g. "model of this rank", "packages (whole node)"
};

/// One per process, constructed on every rank (collective) and destroyed on every rank.
/// Works whether or not the program called MPI_Init first; it finalizes MPI only if it
/// initialized it. Throws gaea::error if a runtime already exists or set-up fails.
/// Thread safety: accessors are safe from any thread; construction and destruction are collective
/// calls of the thread that owns MPI.
class runtime {
 public:
  runtime();
  /// As runtime(), passing the program's arguments to MPI_Init when it initializes MPI.
  runtime(int* argc, char*** argv);
  ~runtime();
  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;

  /// The live runtime; throws gaea::error ("not initialized") when there is none.
  static runtime& current();
  /// Whether a runtime is live in this process.
  static bool initialized() noexcept;
  /// True while the runtime whose instance() is `instance` is the live one. For destructors of
  /// objects that may outlive their runtime (an error the runtime's shut-down has reported): they
  /// must then touch nothing of it.
  static bool is_live(std::uint64_t instance) noexcept;

  /// Distinct for every runtime constructed in this process (caches key on it).
  std::uint64_t instance() const noexcept { return instance_; }
  int rank() const noexcept { return rank_; }            ///< this process's rank in the job
  int size() const noexcept { return size_; }            ///< the number of ranks
  int node_id() const noexcept { return node_id_; }      ///< 0..nodes()-1
  int nodes() const noexcept { return nodes_; }          ///< the number of nodes of the job
  int node_rank() const noexcept { return node_rank_; }  ///< rank among the ranks of this node
  int node_size() const noexcept { return node_size_; }  ///< the number of ranks on this node

  const topology& topo() const noexcept;                        ///< this node's hardware
  comm::context& comm() noexcept { return *comm_; }             ///< the transport context
  progress::engine& progress() noexcept { return *progress_; }  ///< the progress engine
  /// Where this rank's progress thread was placed ("unpinned" or a PU), and its mode.
  const progress_placement& placement() const noexcept;
  /// True when the progress thread has a hardware thread no application thread needs (a
  /// dedicated PU, or at least two PUs per rank on the node): spinning there starves nobody.
  bool progress_has_own_hw_thread() const noexcept;

  /// The calling thread's transport worker.
  comm::worker& worker();
  /// Waits for `c` with the current wait policy; throws gaea::error if an operation failed.
  void wait(comm::completion& c);
  /// Collective: completes this thread's outstanding puts and atomics everywhere, then
  /// synchronises all ranks with a dissemination barrier over active messages, waiting by the
  /// current progress mode (so idle ranks can block instead of polling MPI).
  /// Must be called from the thread that created the runtime (gaea::error otherwise).
  void barrier();

  /// The site energy manager's region markup (possibly "none"; GAEA_ENERGY_MANAGER,
  /// gaea/energy/markup.hpp) and the line saying why. When it is active the application thread's
  /// waits are marked for the manager, and dvfs() and throttle() are "none": the manager alone
  /// writes frequencies.
  const energy::region_markup& markup() const noexcept;
  const std::string& markup_reason() const noexcept;  ///< why
  /// Who controls the frequency, in a few words: "markup: GEOPM", "own DVFS (cpufreq-userspace)",
  /// "own DVFS (none), throttle (msr)", "own: sleep-only". For gaea-info and the report.
  std::string energy_mode() const;
  /// The DVFS actuator (possibly "none") and the line saying why it was chosen. When other ranks
  /// of the job share this node, it and throttle() sit behind the node's arbiter
  /// (gaea/energy/arbiter.hpp): requests are recorded, and current_khz()/level() answer what the
  /// node's ranks together decided.
  const energy::actuator& dvfs() const noexcept;
  energy::actuator& dvfs() noexcept;                ///< the DVFS actuator
  const std::string& dvfs_reason() const noexcept;  ///< why it was chosen
  /// The clock-modulation throttle (T0..T7; possibly "none"; GAEA_THROTTLE) for the same CPUs as
  /// dvfs(), and the line saying why it was chosen. The runtime restores it at finalize; its
  /// transitions and throttled CPU time enter the energy model and the report.
  energy::throttle& throttle() noexcept;
  const energy::throttle& throttle() const noexcept;    ///< the throttle
  const std::string& throttle_reason() const noexcept;  ///< why it was chosen
  /// Records `cpu_ns` of this process's CPU time spent with its CPUs at the DVFS low level
  /// outside the progress engine's waits (the collectives' energy strategy), so that the energy
  /// model charges it at f_min. Thread-safe.
  void credit_low_frequency(std::int64_t cpu_ns) noexcept;
  /// Reads this rank's energy meter, choosing and proving it on first use (a ~30 ms CPU burn per
  /// hardware meter tried). Thread-safe.
  energy_reading energy();
  /// Why the meter was chosen and what was rejected (chooses it if not done yet).
  std::string meter_reason();
  /// The meters that lost, one "<meter>: <why>" each, in the order tried (chooses the meter if
  /// not done yet): the rows of gaea-info's decision table.
  std::vector<std::string> meter_rejected();
  /// The energy model's parameters for this node.
  const energy::model_params& model() const noexcept;
  /// Wall seconds since the runtime started.
  double elapsed() const noexcept;
  /// The program's command line: argv as given to the constructor, or /proc/self/cmdline when
  /// the constructor was given none. For the report.
  const std::vector<std::string>& command_line() const noexcept;

  /// One progress step of the calling thread: its worker, the service worker when there is no
  /// progress thread, and on the owner thread the app-poll callbacks. Returns events handled.
  unsigned poll();
  /// True on the thread that created the runtime.
  bool on_owner_thread() const noexcept;
  // node_comm(rt), the communicator of this node's ranks: gaea/runtime/communicator.hpp.

  /// Ends the whole job because of an error on this rank. Not collective; any thread; never
  /// returns. Prints "gaea: rank R (host H): error: <message>" on stderr once for the job and tells
  /// every other rank: their current or next Gaea wait throws gaea::error("rank R (host H) failed:
  /// <message>"), and when their handlers call fail() (with it, or with any message once it has
  /// arrived) they take R's exit code and print nothing, or under GAEA_VERBOSE=1 one line
  /// "gaea: rank Q (host H'): stopping: rank R (host H) failed: <message>". When several ranks
  /// fail at once (the same bad input seen everywhere), the lowest one prints: a rank above 0
  /// first listens for a short while, growing with its rank, for another rank's failure. Waits up
  /// to five seconds for every rank to report that it stopped (a rank busy outside Gaea, stopped
  /// or dead is not waited for longer), then ends the job with MPI_Abort(exit_code), which the
  /// launcher turns into the job's exit status. Use it in every program's top-level handler:
  ///   gaea::runtime rt(&argc, &argv);
  ///   try { ... } catch (const std::exception& e) { rt.fail(e.what(), 1); }
  /// The destructor ends the job the same way when it runs during unwinding or after a failure.
  [[noreturn]] void fail(std::string_view message, int exit_code = 1) noexcept;
  /// False once the job has failed, or while the calling thread unwinds an exception: destructors
  /// of collective objects then skip their synchronisation instead of waiting for ranks that may
  /// never come; the job is ending through fail(). Thread-safe.
  bool may_synchronize() const noexcept;
  /// True once the job has failed: fail() was entered on this rank or another rank's failure
  /// report arrived. Thread-safe.
  bool failed() const noexcept;

  /// Throws gaea::error unless the calling thread created the runtime (collectives use MPI,
  /// which Gaea initialises for that thread only). `what` names the call.
  void require_owner_thread(const char* what) const;

 private:
  friend struct detail::runtime_state;  // runtime_state::of
  std::uint64_t instance_;
  int rank_ = 0, size_ = 1, node_id_ = 0, nodes_ = 1, node_rank_ = 0, node_size_ = 1;
  // Everything else the runtime owns (src/detail/runtime_state.hpp): MPI, topology, transport,
  // node energy, progress engine, barrier, failure and report state. Owned (deleted by the
  // destructor); a plain pointer so that this header needs no <memory>.
  detail::runtime_state* st_;
  // The state's transport and engine, for the accessors that hand them out.
  comm::context* comm_ = nullptr;
  progress::engine* progress_ = nullptr;

  void start(int* argc, char*** argv);      // the constructor's work (st_ freed if it throws)
  void start_mpi(int* argc, char*** argv);  // MPI_Init if needed, ranks and node numbers
  void start_transport();                   // UCX context, progress engine, hooks, handlers
  void print_start_lines() const;           // GAEA_VERBOSE's summary, DVFS/throttle/manager lines
  void mpi_barrier();                       // start-up only: before the AM barrier can run
  unsigned run_app_polls();
  void write_report_and_trace();
  // GAEA_TRACE as JSON or OTF2 (trace_export.cpp): gathered to rank 0, which writes it; "" or why
  // not.
  std::string write_event_trace();
  // World ranks for a wait's description: `first` (the one waited for), then every other one.
  std::vector<int> ranks_from(int first) const;
  // "rank R (host H)", or host "?" when the transport cannot say.
  std::string describe_rank(int rank) const;
};

namespace detail {
// run_main's work, for any body: `call(body, rt)` runs it (run_main's template makes `call`).
int run_main(std::string_view program, int* argc, char*** argv, int (*call)(void*, runtime&),
             void* body, int error_exit_code);
}  // namespace detail

/// The top level of a Gaea program: constructs the runtime (collective), returns body(rt)'s exit
/// code. An exception escaping `body` ends the whole job through runtime::fail(e.what(),
/// error_exit_code), so its message is printed and no rank waits for this one. An error of the
/// runtime's construction (the same on every rank: a bad GAEA_* value) is printed once for the
/// job by launcher::print_error and returns error_exit_code.
///   int main(int argc, char** argv) {
///     return gaea::run_main("gaea-lu", &argc, &argv, [&](gaea::runtime& rt) { ...; return 0; });
///   }
template <class Body>
int run_main(std::string_view program, int* argc, char*** argv, Body&& body,
             int error_exit_code = 1) {
  using body_type = std::remove_reference_t<Body>;
  return detail::run_main(
      program, argc, argv,
      [](void* b, runtime& rt) -> int { return (*static_cast<body_type*>(b))(rt); },
      const_cast<void*>(static_cast<const void*>(&body)), error_exit_code);
}

/// Function-style equivalents of constructing/destroying a gaea::runtime.
void init(int* argc = nullptr, char*** argv = nullptr);
/// Destroys the runtime init() made (collective).
void finalize();
/// One progress step of the calling thread on the live runtime (runtime::poll): lets an
/// application whose main thread computes for long stretches serve owner-served requests.
/// Throws gaea::error when no runtime exists.
unsigned poll();

}  // namespace gaea
