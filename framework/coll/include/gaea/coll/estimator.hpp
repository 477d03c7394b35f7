#pragma once
/// \file
/// gaea::coll::estimator — predicts the time and energy of every collective algorithm before it
/// runs ([Bcast-Energy]): per link class (inside a node, across nodes) the measured time of one
/// message as a function of its size; per high-level step (tree, scatter, allgather, pipeline,
/// reduce, exchange, Bruck, local copy) and link class a start-up and a factor on that time,
/// fitted by least squares from a calibration run; and a member's power during a call per link
/// class from the energy meter in use. A prediction replays the algorithm's schedule for every
/// member (who waits for whom), so it holds for any group size, node count and placement.

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "gaea/coll/group.hpp"
#include "gaea/coll/options.hpp"

namespace gaea::coll {

/// The time one message of `bytes` takes between two members over one link class, as a table
/// measured at sizes spread over the range (the protocols a transport switches between make it
/// anything but linear: eager copies, fragments, rendezvous), read by linear interpolation and
/// extrapolated with the last segment's slope. As PLogP's size-dependent parameters
/// (Kielmann, Bal & Verstoep 2000); what is measured is a whole two-member call, so a call's own
/// set-up is part of every point.
struct message_curve {
  std::vector<double> bytes;    ///< ascending, at least two points
  std::vector<double> seconds;  ///< same length
  /// Seconds for `b` bytes (0 for an empty curve).
  double at(double b) const noexcept;
};

/// Cost of one step kind over one link class, relative to the message curve: a message of b
/// bytes arrives start_s + scale * curve(b) after its round starts (start_s may be negative: the
/// curve already holds one call's set-up); the sender is busy scale * (curve(b) - curve(0)).
struct step_cost {
  /// Fixed part of a step's arrival time, in seconds (may be negative).
  double start_s = 0;
  /// Factor on the message curve.
  double scale = 1;
  std::size_t samples = 0;  ///< calibration points behind it (0: default)
};

/// One algorithm's predicted cost.
struct prediction {
  /// The algorithm predicted.
  algorithm algo = algorithm::automatic;
  double seconds = 0;  ///< until the last member finishes
  double joules = 0;   ///< while the call runs, all members (as the meter counts)
};

/// One point to measure: `op` run by `algo` on `bytes` per member, read as predict() reads them
/// (root 0; double elements; alltoall: `bytes` per block).
struct measure_case {
  /// The collective operation.
  operation op = operation::barrier;
  /// The algorithm that runs it.
  algorithm algo = algorithm::automatic;
  /// Bytes per member (alltoall: per block).
  std::size_t bytes = 0;
};
/// One measured point: what predict() estimates.
struct measurement {
  double seconds = 0;  ///< median over the repetitions of the slowest member's time for one call
  /// Median over the repetitions of the members' times summed (member-seconds: what the energy
  /// is charged on, and what tells a member's own costs from the critical path's).
  double member_seconds = 0;
  double joules =
      0;  ///< per call, all members, while it runs (as the meter counts, static share in)
  /// The point's own noise: |median of the even repetitions - median of the odd ones| / seconds.
  /// An estimator cannot be checked closer than this.
  double spread = 0;
  /// Share of the repetitions dropped because a member reached the common start late (they are
  /// repeated, up to 4 x reps rounds in all).
  double late = 0;
  /// A member's power outside any call, averaged over members: the meter's joules over the
  /// windows without a call, per second (the same in every measurement of one measure()).
  double idle_w = 0;
};
/// Thread safety: const members are thread-safe.
class estimator {
 public:
  /// Documented defaults (framework/coll/README.md): this machine's shared memory and tcp.
  estimator();
  /// Reads a calibration file (JSON written by save()). gaea::error naming the file and the key
  /// for an unreadable file, invalid JSON, another version or a missing/negative value.
  static estimator load(const std::filesystem::path& file);
  /// Writes JSON to a temporary beside `file`, then renames it. gaea::error when it cannot.
  void save(const std::filesystem::path& file) const;
  /// "defaults", "calibrated on <host> (...)", or "<file> (<the source it was saved with>)".
  const std::string& source() const noexcept { return source_; }

  /// Every algorithm of `op` that can run on `size` members over `nodes` nodes, predicted for
  /// `bytes` per member (the buffer for broadcast/reduce/allreduce, each member's part for
  /// allgather, one block for alltoall). `block`: block placement (else cyclic). `only`: when
  /// not empty, just these algorithms (those that cannot run are left out). A replay costs
  /// O(messages): O(P^2) for ring, chain and all-to-all schedules (seconds at P = 4096).
  std::vector<prediction> predict(operation op, std::size_t bytes, int size, int nodes,
                                  bool block = true, std::size_t chunk = 64 * 1024,
                                  std::span<const algorithm> only = {}) const;
  /// The least-energy algorithm among those within (1 + time_budget) of the fastest.
  algorithm choose(operation op, std::size_t bytes, int size, int nodes, bool block = true,
                   double time_budget = 0.02) const;

  /// One-way time of a message over each link class: [0] inside a node, [1] across nodes.
  message_curve message[2];
  /// The time parameters of one operation, fitted on its own algorithms' measurements.
  struct op_params {
    /// [step kind][0 = inside a node, 1 = across nodes].
    std::vector<std::vector<step_cost>> steps;
    double copy_per_byte_s = 0.1e-9;  ///< local copies and reductions
    double call_overhead_s = 4e-6;    ///< per call and member: setting up the schedule, matching
  };
  /// Indexed by coll::operation (reduce takes allreduce's when not calibrated itself).
  std::vector<op_params> ops;
  /// Power of a member during a call, as the meter counts it: in intra-node rounds (and set-up),
  /// in inter-node rounds. Used for the rounds of a step kind without a calibrated extra power.
  double power_w[2] = {12.0, 10.0};
  /// Energy every member spends on a call whatever its length (setting it up, the meter's
  /// own reading), in joules.
  double call_joules = 0;
  /// [Bcast-Energy]'s per-operation power: a member's power outside any call (its share of the
  /// node's idle power, as the meter counts it between calls), charged on every member-second.
  double idle_w = 0;
  /// The extra power above idle_w while a member runs a round of each step kind ([step kind][0 =
  /// inside a node, 1 = across nodes], names from step_kind_names()); empty, or a negative
  /// entry: that kind's rounds take power_w. Fitted by calibrate() from the meter's readings.
  std::vector<std::vector<double>> step_power_w;
  /// The power of the network switches between the job's nodes, charged over a call that spans
  /// nodes for as long as it lasts: the paper found it constant under any traffic. A node's meter
  /// cannot see it: set it in the calibration file ("switch_w"); 0 by default.
  double switch_w = 0;

  /// Collective over `g`: measures the message curves, then every algorithm of every operation
  /// at calibration_sizes() (see measure()), fits the parameters by weighted least squares on the
  /// relative error of the predicted totals (the slowest member's time and the member-seconds;
  /// the regressors are the paths' message counts and curve times, re-derived until they settle)
  /// and the power from the meter's readings. `extra` cases are measured in the same interleaved
  /// run but not fitted; their measurements go to `*extra_out` (validation under the very
  /// conditions of the calibration). Seconds on small groups.
  static estimator calibrate(const group& g, int reps = 20,
                             const std::vector<measure_case>& extra = {},
                             std::vector<measurement>* extra_out = nullptr);
  /// The message sizes (bytes per member; alltoall: per block, up to 64 KiB) calibrate()
  /// measures, ascending. Validation measures between them.
  static std::span<const std::size_t> calibration_sizes() noexcept;

 private:
  std::string source_ = "defaults";
};

/// The least-energy entry of `costs` among those within (1 + time_budget) of the fastest: the
/// rule estimator::choose applies to its predictions, and a validation to measured costs.
/// algorithm::automatic when `costs` is empty. Not collective.
algorithm cheapest(const std::vector<prediction>& costs, double time_budget = 0.02);

/// The step kinds' names (calibration files' keys, the index of estimator::step_power_w), in order.
/// Not collective.
std::span<const char* const> step_kind_names() noexcept;
/// Every algorithm that can run `op` on `size` members (those predict() compares), in enum order.
/// Not collective.
std::vector<algorithm> algorithms_of(operation op, int size);

/// Collective over `g` (every member passes the same cases and reps): measures every case `reps`
/// times, interleaved — each repetition runs every case once, in an order shuffled per
/// repetition (alike on every member) — so that a slow moment of the machine touches all cases
/// alike instead of all repetitions of one. Every call starts on all members at once: member 0
/// names a start time a little ahead, each member waits for it on its own clock (offset from member
/// 0's measured unless both share one kernel), and the call lasts until the last member ends; a
/// repetition in which a member reached the start late is dropped and repeated (the lead grows).
/// One warm-up call per case first. Energy per call is what the meter counts while the call runs
/// on each member (static share included), summed over members: read before the wait for the
/// start, less the wait at the power measured over windows without a call. Energy mode off.
/// gaea::error for reps < 1.
std::vector<measurement> measure(const group& g, const std::vector<measure_case>& cases, int reps);

/// The estimator the automatic selection uses: GAEA_COLL_CALIBRATION's file, else none (the
/// documented size rules decide). Loaded once per runtime.
const estimator* active_estimator();

}  // namespace gaea::coll
