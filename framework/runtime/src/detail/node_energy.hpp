#pragma once
// Internal to the runtime: what this rank uses to control and measure its energy (node_energy.cpp):
// the site manager's markup, DVFS and throttle behind the node's arbiter, the governor, the
// energy model and the meter.

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gaea/energy/actuator.hpp"
#include "gaea/energy/governor.hpp"
#include "gaea/energy/markup.hpp"
#include "gaea/energy/meter.hpp"
#include "gaea/energy/model.hpp"
#include "gaea/energy/throttle.hpp"
#include "gaea/progress/telemetry.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::detail {

struct node_placement;
struct runtime_settings;

// Owns the rank's energy controls; built once by make_node_energy. Declaration order is the
// destruction order's reverse: the governor goes before the actuators it drives.
struct node_energy {
  std::unique_ptr<energy::region_markup> markup;
  std::string markup_reason;
  // Behind the node's arbiter when other ranks of the job share the node
  // (gaea/energy/arbiter.hpp): actuator carries the collectives' requests, governor_actuator the
  // governor's, over one backend.
  std::shared_ptr<energy::actuator> actuator;
  std::shared_ptr<energy::actuator> governor_actuator;
  std::string dvfs_reason;
  std::unique_ptr<energy::throttle> throttle;
  std::string throttle_reason;
  std::unique_ptr<energy::governor> governor;  // null when DVFS is inactive
  energy::model_params model;
  std::atomic<std::int64_t> low_freq_credit_ns{0};  // runtime::credit_low_frequency

  // Whether the site manager's markup is active (Gaea then writes no frequency or duty).
  bool managed() const noexcept { return markup->active(); }
  // runtime::energy_mode.
  std::string mode() const;
  // Rank 0's start-up lines on stderr: under GAEA_VERBOSE, or when a backend the user chose
  // cannot work.
  void print_start_lines(int rank, const runtime_settings& cfg) const;
  // This rank's CPU time split by frequency and duty, for the model meter: `elapsed_s` since the
  // runtime started, `t` the progress engine's totals.
  energy::usage_snapshot usage(double elapsed_s, const progress::telemetry_totals& t) const;
  // Reads the meter, choosing and proving it on first use (`usage` feeds the model meter).
  energy_reading read(const std::function<energy::usage_snapshot()>& usage);
  std::string meter_reason();
  std::vector<std::string> meter_rejected();
  // Gives the hardware back its settings (finalize): frequencies and duty as found.
  void restore();

 private:
  std::mutex meter_mutex_;
  std::unique_ptr<energy::meter> meter_;
  std::string meter_reason_;
  std::vector<std::string> meter_rejected_;
};

// Chooses markup, DVFS and throttle for the CPUs of this rank's threads, attaches the node's
// arbiter when other ranks share the node, and makes the governor. Collective over `world`
// (job key) and `node_comm` (the arbiter's verdict). Never throws for missing hardware or
// permission: each choice says what it does instead.
std::unique_ptr<node_energy> make_node_energy(const runtime_settings& cfg, const runtime& rt,
                                              MPI_Comm world, MPI_Comm node_comm,
                                              const node_placement& where);

}  // namespace gaea::detail
