#pragma once
// Internal to the runtime: what a gaea::runtime owns besides its ranks (runtime.hpp keeps it
// behind a pointer so that programs do not include MPI, the transport, energy or progress
// headers). Members are destroyed in reverse order: the engine before the energy controls it
// calls, the transport after both.

#include <mpi.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "detail/node_energy.hpp"
#include "detail/peer_status.hpp"
#include "detail/placement.hpp"
#include "detail/settings.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/extension.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::detail {

// fail()'s view of other ranks' failures: the first one reported, and who has reported.
struct failure_state {
  std::mutex mutex;
  int cause_rank = -1;  // -1: no other rank has failed
  int cause_code = 1;
  std::vector<bool> reported;  // by rank: has announced that it stopped
  int reports = 0;
};

struct runtime_state {
  std::thread::id owner;
  bool owns_mpi = false;
  runtime_settings cfg;
  std::vector<std::string> command_line;
  MPI_Comm node_comm = MPI_COMM_NULL;
  node_placement where;
  std::unique_ptr<comm::context> comm;
  // Before progress: the engine calls the governor and markup until it is destroyed.
  std::unique_ptr<node_energy> energy;
  std::unique_ptr<progress::engine> progress;
  std::int64_t start_ns = 0;
  // The report's interval starts when the start-up barrier ends (wall and process CPU clocks,
  // and the UTC time for its "start_time"), so that CPU time and wall time cover the same span.
  std::int64_t report_start_ns = 0, report_start_cpu_ns = 0;
  std::int64_t report_start_unix_ms = 0;
  struct report_section {
    std::string name;
    std::vector<report_key> keys;
    std::function<std::vector<double>()> values;
  };
  std::vector<report_section> sections;
  // App-poll callbacks: touched by the owner thread only (registration and calls).
  std::vector<std::pair<std::uint64_t, std::function<unsigned()>>> app_polls;
  std::uint64_t next_app_poll = 1;
  bool in_app_poll = false;
  // Dissemination barrier: arrivals per (epoch parity, round), counted by the handler.
  std::array<std::array<std::atomic<int>, 64>, 2> arrivals{};
  std::uint64_t barrier_epoch = 0;
  failure_state failure;
  std::atomic<bool> failing{false};     // fail() entered on this rank
  int uncaught_at_start = 0;            // std::uncaught_exceptions() when constructed
  std::unique_ptr<status_asker> asker;  // the hang warning's questions to other ranks
  std::terminate_handler previous_terminate = nullptr;

  // Waits for `req` through the engine on the calling thread's worker (barrier.cpp).
  void wait_mpi(MPI_Request& req);
  // The state of `rt`, for the runtime's free functions (node_comm).
  static const runtime_state& of(const runtime& rt) noexcept { return *rt.st_; }
  static runtime_state& of(runtime& rt) noexcept { return *rt.st_; }
};

// The barrier's active-message handler (barrier.cpp): counts an arrival and wakes the waiters.
void on_barrier_message(runtime_state& st, const comm::am_message& msg);
// The failure handler (failure.cpp): records another rank's failure report and fails the waits.
void on_failure_message(runtime_state& st, const comm::am_message& msg);
// Makes std::terminate end the whole job through runtime::fail (failure.cpp); returns the
// handler it replaced.
std::terminate_handler install_terminate_handler();
// The runtime's own report sections (report_sections.cpp): throttle and remote keys.
void add_runtime_report_sections(runtime& rt, runtime_state& st);

}  // namespace gaea::detail
