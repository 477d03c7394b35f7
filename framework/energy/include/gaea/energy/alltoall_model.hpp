#pragma once
/// \file
/// [A2A-Energy] eq. 2-7: the per-stage time and the average node power of an all-to-all under the
/// paper's per-call strategy (every core at f_min from the start; throttled to T5 once every
/// transfer of a step leaves the node; restored at the end), for Bruck's algorithm (eq. 2-4) and
/// send-to/receive-from (STRF, eq. 5-7), with block rank placement on N nodes of c cores. The
/// stage powers come from eq. 1 (node_power_w). The full-power baseline (f_max, T0, no switches)
/// uses the same transfer terms, so that the two give the strategy's modelled time cost and
/// energy saving per call.

#include <cstdint>
#include <functional>

#include "gaea/energy/model.hpp"

namespace gaea::energy {

/// The paper's inputs. Contention factors default to 1 (no contention).
struct alltoall_model_inputs {
  int nodes = 2;                     ///< N (at least 2: the stages are defined across nodes)
  int cores = 1;                     ///< c, ranks per node (p = N c)
  double bytes = 0;                  ///< M, the all-to-all's total bytes per rank
  double t_intra_s_per_byte = 0;     ///< t_intra
  double t_inter_s_per_byte = 0;     ///< t_inter
  double t5_inter_s_per_byte = 0;    ///< O_5(.) per byte: what T5 adds to an inter-node transfer
  double o_dfs_s = 0;                ///< O_dfs, one frequency switch
  double o_throttle_s = 0;           ///< O_throttle, one throttle switch
  std::function<double(int)> c_mem;  ///< C_mem(y): y ranks of a node copying inside it
  std::function<double(int)> c_net;  ///< C_net(x): x ranks of a node sending off it
};

/// Which algorithm the stages follow.
enum class alltoall_model_algorithm : std::uint8_t { bruck, strf };

/// The model's answer for one call on one node.
struct alltoall_model_estimate {
  double mixed_s = 0;   ///< T_B1, or T_S1 + T_S3: steps with intra- and inter-node transfers
  double inter_s = 0;   ///< T_B2 or T_S2: steps whose transfers all leave the node
  double time_s = 0;    ///< mixed_s + inter_s
  double power_w = 0;   ///< eq. 4 or 7: the node's average power over the call
  double energy_j = 0;  ///< power_w * time_s
};

/// The call under the paper's strategy: stage powers P_10 = node_power_w(p, c, f_min, 0) and
/// P_15 = node_power_w(p, c, f_min, 5). Throws gaea::error naming the value when nodes < 2,
/// cores < 1, or bytes or a time is negative or not finite.
alltoall_model_estimate alltoall_strategy_estimate(alltoall_model_algorithm algo,
                                                   const alltoall_model_inputs& in,
                                                   const model_params& p);

/// The same call at full power: f_max, T0, no switch overheads and no T5 slowdown; the power is
/// node_power_w(p, c, f_max, 0). Same errors.
alltoall_model_estimate alltoall_full_power_estimate(alltoall_model_algorithm algo,
                                                     const alltoall_model_inputs& in,
                                                     const model_params& p);

}  // namespace gaea::energy
