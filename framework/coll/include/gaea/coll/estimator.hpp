#pragma once
/// \file
/// gaea::coll::estimator — predicts the time and energy of every collective algorithm before it
/// runs ([Bcast-Energy]): per high-level step (tree, scatter, allgather, pipeline, reduce,
/// exchange, Bruck, local copy) and link class (inside a node, across nodes) a start-up time and
/// a time per byte, fitted by least squares from a calibration run, and a power above idle per
/// link class from the energy meter in use. A prediction replays the algorithm's schedule for
/// every member (who waits for whom), so it holds for any group size, node count and placement.

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "gaea/coll/group.hpp"
#include "gaea/coll/options.hpp"

namespace gaea::coll {

/// Cost of one step kind over one link class: seconds = start_s + bytes * per_byte_s.
struct step_cost {
  double start_s = 0;
  double per_byte_s = 0;
  std::size_t samples = 0;  ///< calibration points behind it (0: default)
};

/// One algorithm's predicted cost.
struct prediction {
  algorithm algo = algorithm::automatic;
  double seconds = 0;  ///< until the last member finishes
  double joules = 0;   ///< above idle, all members
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
  /// allgather, one block for alltoall). `block`: block placement (else cyclic).
  std::vector<prediction> predict(operation op, std::size_t bytes, int size, int nodes,
                                  bool block = true, std::size_t chunk = 64 * 1024) const;
  /// The least-energy algorithm among those within (1 + time_budget) of the fastest.
  algorithm choose(operation op, std::size_t bytes, int size, int nodes, bool block = true,
                   double time_budget = 0.02) const;

  /// The time parameters of one operation, fitted on its own algorithms' measurements.
  struct op_params {
    /// [step kind][0 = inside a node, 1 = across nodes].
    std::vector<std::vector<step_cost>> steps;
    double copy_per_byte_s = 0.1e-9;  ///< local copies and reductions
    double call_overhead_s = 4e-6;    ///< per call and member: setting up the schedule, matching
  };
  /// Indexed by coll::operation (reduce takes allreduce's when not calibrated itself).
  std::vector<op_params> ops;
  double power_w[2] = {12.0, 10.0};  ///< above idle per member in a call: intra rounds, inter

  /// Collective over `g`: measures every algorithm of every operation at a few sizes (see
  /// measure()), fits the parameters by weighted least squares on the relative error of the
  /// predicted totals (the critical path's step counts and bytes are the regressors, re-derived
  /// until they settle) and the power from the meter's readings. A minute at most on small groups.
  static estimator calibrate(const group& g, int reps = 20);

 private:
  std::string source_ = "defaults";
};

/// One measured call: what predict() estimates.
struct measurement {
  double seconds = 0;  ///< median over `reps` of the slowest member's time for one call
  double joules = 0;   ///< per call, all members, above the same loop with barriers only
};
/// Collective over `g`: runs `a` for `op` on `bytes` (as in predict(), root 0) `reps` times,
/// each call between barriers. Energy energy_mode::off.
measurement measure(const group& g, operation op, algorithm a, std::size_t bytes, int reps);

/// The estimator the automatic selection uses: GAEA_COLL_CALIBRATION's file, else none (the
/// documented size rules decide). Loaded once per runtime.
const estimator* active_estimator();

}  // namespace gaea::coll
