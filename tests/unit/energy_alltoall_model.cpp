// [A2A-Energy] eq. 2-7 (gaea/energy/alltoall_model.hpp): the stage times follow the paper's sums
// step by step, the average power lies between the stage powers and tends to P_15 as nodes grow,
// and bad inputs are refused by name.

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "gaea/base/error.hpp"
#include "gaea/energy/alltoall_model.hpp"

using namespace gaea::energy;

namespace {
alltoall_model_inputs inputs(int nodes, int cores) {
  alltoall_model_inputs in;
  in.nodes = nodes;
  in.cores = cores;
  in.bytes = 1 << 20;
  in.t_intra_s_per_byte = 0.5e-9;
  in.t_inter_s_per_byte = 0.8e-9;
  in.t5_inter_s_per_byte = 0.04e-9;
  in.o_dfs_s = 10e-6;
  in.o_throttle_s = 2e-6;
  in.c_mem = [](int y) { return 1.0 + 0.1 * y; };
  in.c_net = [](int x) { return 1.0 + 0.2 * x; };
  return in;
}
}  // namespace

TEST_CASE("Bruck's stages on 2 nodes of 4 cores follow eq. 2 and 3 term by term", "[energy]") {
  const auto in = inputs(2, 4);
  const model_params p;
  const auto e = alltoall_strategy_estimate(alltoall_model_algorithm::bruck, in, p);
  const double half = in.bytes / 2, ti = in.t_intra_s_per_byte, te = in.t_inter_s_per_byte;
  // t = ceil(log2 4) = 2 mixed steps (i = 1: 3 ranks copy inside, 1 sends off; i = 2: 2 and 2),
  // r - t = ceil(log2 8) - 2 = 1 off-node step with all 4 ranks sending.
  const double t_b1 = in.o_dfs_s + std::max(ti * 1.3 * half, te * 1.2 * half) +
                      std::max(ti * 1.2 * half, te * 1.4 * half);
  const double t_b2 =
      2 * in.o_throttle_s + 1 * (te + in.t5_inter_s_per_byte) * 1.8 * half + in.o_dfs_s;
  CHECK(e.mixed_s == Approx(t_b1));
  CHECK(e.inter_s == Approx(t_b2));
  CHECK(e.time_s == Approx(t_b1 + t_b2));
  // eq. 4
  const double p10 = node_power_w(p, 4, p.f_min_khz, 0), p15 = node_power_w(p, 4, p.f_min_khz, 5);
  CHECK(e.power_w == Approx((p10 * t_b1 + p15 * t_b2) / (t_b1 + t_b2)));
  CHECK(e.energy_j == Approx(e.power_w * e.time_s));
}

TEST_CASE("STRF's stages on 3 nodes of 2 cores follow eq. 5 to 7 term by term", "[energy]") {
  const auto in = inputs(3, 2);
  const model_params p;
  const auto e = alltoall_strategy_estimate(alltoall_model_algorithm::strf, in, p);
  const double part = in.bytes / 6, ti = in.t_intra_s_per_byte, te = in.t_inter_s_per_byte;
  // c - 1 = 1 mixed step at each end (1 rank copies, 1 sends); p + 1 - 2c = 3 off-node steps.
  const double t_s1 = in.o_dfs_s + std::max(ti * 1.1 * part, te * 1.2 * part);
  const double t_s2 = 2 * in.o_throttle_s + 3 * (te + in.t5_inter_s_per_byte) * 1.4 * part;
  CHECK(e.mixed_s == Approx(2 * t_s1));
  CHECK(e.inter_s == Approx(t_s2));
  const double p10 = node_power_w(p, 2, p.f_min_khz, 0), p15 = node_power_w(p, 2, p.f_min_khz, 5);
  CHECK(e.power_w == Approx((2 * p10 * t_s1 + p15 * t_s2) / (2 * t_s1 + t_s2)));
}

TEST_CASE("the strategy's average power falls toward P_15 as the nodes outnumber the cores",
          "[energy]") {
  // Bruck's mixed stage is a fixed ceil(log2 c) steps and its off-node stage grows as log2 p, so
  // its power approaches P_15 slowly (the gap is the mixed share of the time); STRF's off-node
  // stage grows as p, so its power is within a few percent of P_15 at a few hundred nodes.
  const model_params p;
  const double p10 = node_power_w(p, 8, p.f_min_khz, 0), p15 = node_power_w(p, 8, p.f_min_khz, 5);
  for (auto algo : {alltoall_model_algorithm::bruck, alltoall_model_algorithm::strf}) {
    double last_gap = p10 - p15;
    for (int nodes : {2, 8, 64, 512}) {
      const auto e = alltoall_strategy_estimate(algo, inputs(nodes, 8), p);
      CHECK(e.power_w <= p10);
      CHECK(e.power_w >= p15);
      CHECK(e.power_w - p15 < last_gap);
      CHECK(e.power_w - p15 == Approx((p10 - p15) * e.mixed_s / e.time_s));
      last_gap = e.power_w - p15;
    }
    if (algo == alltoall_model_algorithm::strf) CHECK(last_gap < 0.05 * (p10 - p15));
  }
}

TEST_CASE("full power keeps the transfer terms, drops the switches and draws P_m0", "[energy]") {
  const model_params p;
  auto in = inputs(4, 4);
  const auto full = alltoall_full_power_estimate(alltoall_model_algorithm::bruck, in, p);
  in.o_dfs_s = in.o_throttle_s = in.t5_inter_s_per_byte = 0;
  const auto bare = alltoall_strategy_estimate(alltoall_model_algorithm::bruck, in, p);
  CHECK(full.time_s == Approx(bare.time_s));
  CHECK(full.power_w == Approx(node_power_w(p, 4, p.f_max_khz, 0)));
  // The strategy costs time (switches, T5) and saves energy at these defaults.
  const auto saving = alltoall_strategy_estimate(alltoall_model_algorithm::bruck, inputs(4, 4), p);
  CHECK(saving.time_s > full.time_s);
  CHECK(saving.energy_j < full.energy_j);
}

TEST_CASE("the all-to-all model refuses inputs outside the paper's by name", "[energy]") {
  const model_params p;
  auto one_node = inputs(1, 4);
  CHECK_THROWS_WITH(alltoall_strategy_estimate(alltoall_model_algorithm::bruck, one_node, p),
                    Catch::Contains("nodes = 1"));
  auto no_cores = inputs(2, 0);
  CHECK_THROWS_WITH(alltoall_full_power_estimate(alltoall_model_algorithm::strf, no_cores, p),
                    Catch::Contains("cores = 0"));
  auto negative = inputs(2, 2);
  negative.t_inter_s_per_byte = -1;
  CHECK_THROWS_WITH(alltoall_strategy_estimate(alltoall_model_algorithm::strf, negative, p),
                    Catch::Contains("t_inter_s_per_byte"));
  auto nan = inputs(2, 2);
  nan.bytes = std::nan("");
  CHECK_THROWS_AS(alltoall_strategy_estimate(alltoall_model_algorithm::bruck, nan, p), gaea::error);
}
