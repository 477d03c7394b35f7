// [A2A-Energy] eq. 2-7: per-stage time and average power of the all-to-all algorithms.

#include "gaea/energy/alltoall_model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "gaea/base/error.hpp"

namespace gaea::energy {

namespace {

double factor(const std::function<double(int)>& f, int x) {
  return f ? f(x) : 1.0;
}

// ceil(log2 n) for n >= 1.
int ceil_log2(int n) {
  return static_cast<int>(std::bit_width(static_cast<unsigned>(n - 1)));
}

void check(const alltoall_model_inputs& in) {
  auto bad = [](const std::string& what) { throw error("all-to-all model: " + what); };
  if (in.nodes < 2)
    bad("nodes = " + std::to_string(in.nodes) + ", expected at least 2 ([A2A-Energy] stages)");
  if (in.cores < 1) bad("cores = " + std::to_string(in.cores) + ", expected at least 1");
  const std::pair<const char*, double> values[] = {{"bytes", in.bytes},
                                                   {"t_intra_s_per_byte", in.t_intra_s_per_byte},
                                                   {"t_inter_s_per_byte", in.t_inter_s_per_byte},
                                                   {"t5_inter_s_per_byte", in.t5_inter_s_per_byte},
                                                   {"o_dfs_s", in.o_dfs_s},
                                                   {"o_throttle_s", in.o_throttle_s}};
  for (const auto& [name, v] : values)
    if (!(v >= 0) || !std::isfinite(v))
      bad(std::string(name) + " = " + std::to_string(v) + ", expected a finite value >= 0");
}

// The stage times. `strategy` adds the switch overheads and T5's slowdown of the inter stage.
alltoall_model_estimate stages(alltoall_model_algorithm algo, const alltoall_model_inputs& in,
                               bool strategy) {
  check(in);
  const int c = in.cores, p = in.nodes * in.cores;
  const double o_dfs = strategy ? in.o_dfs_s : 0.0;
  const double o_thr = strategy ? in.o_throttle_s : 0.0;
  const double t5 = strategy ? in.t5_inter_s_per_byte : 0.0;
  // A mixed step: the node's intra-node copies and its off-node sends overlap; the slower wins.
  auto mixed_step = [&](int intra_ranks, int inter_ranks, double bytes) {
    return std::max(in.t_intra_s_per_byte * factor(in.c_mem, intra_ranks) * bytes,
                    in.t_inter_s_per_byte * factor(in.c_net, inter_ranks) * bytes);
  };
  alltoall_model_estimate e;
  if (algo == alltoall_model_algorithm::bruck) {
    // eq. 2 and 3: each step moves M/2; the first t = ceil(log2 c) steps mix, the other r - t
    // (r = ceil(log2 p)) leave the node.
    const double half = in.bytes / 2;
    const int t = ceil_log2(c), r = ceil_log2(p);
    e.mixed_s = o_dfs;
    for (int i = 1; i <= t; ++i)
      e.mixed_s += mixed_step(c - (1 << (i - 1)), 1 << (i - 1), half);
    e.inter_s =
        2 * o_thr + (r - t) * (in.t_inter_s_per_byte + t5) * factor(in.c_net, c) * half + o_dfs;
  } else {
    // eq. 5 and 6: M/p per step; c - 1 mixed steps at each end, p + 1 - 2c off-node ones between
    // (at least 1 with N >= 2).
    const double part = in.bytes / p;
    double end = o_dfs;
    for (int i = 1; i <= c - 1; ++i)
      end += mixed_step(c - i, i, part);
    e.mixed_s = 2 * end;
    e.inter_s =
        2 * o_thr + (p + 1 - 2 * c) * (in.t_inter_s_per_byte + t5) * factor(in.c_net, c) * part;
  }
  e.time_s = e.mixed_s + e.inter_s;
  return e;
}

}  // namespace

alltoall_model_estimate alltoall_strategy_estimate(alltoall_model_algorithm algo,
                                                   const alltoall_model_inputs& in,
                                                   const model_params& p) {
  alltoall_model_estimate e = stages(algo, in, true);
  // eq. 4 and 7: P_10 over the mixed steps, P_15 over the off-node ones.
  const double p10 = node_power_w(p, in.cores, p.f_min_khz, 0);
  const double p15 = node_power_w(p, in.cores, p.f_min_khz, 5);
  e.energy_j = p10 * e.mixed_s + p15 * e.inter_s;
  e.power_w = e.time_s > 0 ? e.energy_j / e.time_s : p10;
  return e;
}

alltoall_model_estimate alltoall_full_power_estimate(alltoall_model_algorithm algo,
                                                     const alltoall_model_inputs& in,
                                                     const model_params& p) {
  alltoall_model_estimate e = stages(algo, in, false);
  e.power_w = node_power_w(p, in.cores, p.f_max_khz, 0);
  e.energy_j = e.power_w * e.time_s;
  return e;
}

}  // namespace gaea::energy
