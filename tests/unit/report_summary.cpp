// The GAEA_REPORT summary from synthetic gathered figures (framework/runtime/src/
// report_summary.cpp), without MPI: several nodes, a measured meter, and bad sizes, which a
// one-machine MPI test cannot produce.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "detail/report_summary.hpp"
#include "gaea/base/error.hpp"

namespace {
using namespace gaea::detail;

struct job {
  report_context ctx;
  std::vector<double> reals;
  std::vector<std::int64_t> ints;
};

// `nodes` nodes of `per_node` ranks, each node with `pus` hardware threads. Rank r runs from
// t = r ms to t = 1 s + r ms on its node's clock, uses 0.1 * (r + 1) CPU-s, reads 10 * (r + 1) J
// and made r + 1 waits; one section with a count and a measure.
job make_job(int nodes, int per_node, std::int64_t pus, bool measured) {
  job j;
  j.ctx.ranks = nodes * per_node;
  j.ctx.nodes = nodes;
  for (int k = 0; k < nodes; ++k)
    j.ctx.hosts.push_back("host" + std::to_string(k));
  j.ctx.mode = "auto";
  j.ctx.command_line = {"prog", "--n", "8"};
  j.ctx.start_unix_ms = 1'700'000'000'123;
  j.ctx.energy_source = measured ? "rapl-powercap" : "model";
  j.ctx.energy_scope = measured ? "packages 0 (whole node)" : "model of this rank";
  j.ctx.max_slowdown = 0.02;
  j.ctx.sections.push_back({"app", {gaea::report_count("tasks"), "compute s"}});
  for (int r = 0; r < j.ctx.ranks; ++r) {
    std::vector<double> real(r_fixed + 2, 0.0);
    real[r_cpu] = 0.1 * (r + 1);
    real[r_joules] = 10.0 * (r + 1);
    real[r_fixed] = 3 * (r + 1);  // tasks
    real[r_fixed + 1] = 0.25;     // compute s
    std::vector<std::int64_t> in(i_fixed, 0);
    in[i_start_ns] = r * 1'000'000;
    in[i_end_ns] = 1'000'000'000 + r * 1'000'000;
    in[i_node] = r / per_node;
    in[i_node_leader] = r % per_node == 0;
    in[i_node_pus] = r % per_node == 0 ? pus : 0;
    in[i_measured] = measured;
    in[i_waits] = r + 1;
    in[i_op_count] = 1;
    in[i_op_bytes] = 4096;
    j.reals.insert(j.reals.end(), real.begin(), real.end());
    j.ints.insert(j.ints.end(), in.begin(), in.end());
  }
  return j;
}
}  // namespace

TEST_CASE("report summary: shares of the nodes' hardware threads over each node's interval",
          "[report]") {
  const job in = make_job(2, 2, 2, false);
  const report_summary s = summarize_report(in.ctx, in.reals, in.ints);
  const nlohmann::json& j = s.json;
  CHECK(j["schema"] == "gaea-report");
  CHECK(j["schema_version"] == 1);
  CHECK(j["command_line"] == nlohmann::json({"prog", "--n", "8"}));
  CHECK(j["start_time"] == "2023-11-14T22:13:20.123Z");
  CHECK(j["hosts"] == nlohmann::json({"host0", "host1"}));
  // Node 0: ranks 0 and 1, from 0 to 1.001 s; node 1: ranks 2 and 3, from 2 ms to 1.003 s.
  CHECK(j["per_node"]["wall_s"][0].get<double>() == Approx(1.001));
  CHECK(j["per_node"]["wall_s"][1].get<double>() == Approx(1.001));
  CHECK(j["wall_s"].get<double>() == Approx(1.001));
  CHECK(j["per_node"]["cpu_s"][0].get<double>() == Approx(0.3));
  CHECK(j["per_node"]["cpu_fraction_of_hardware_threads"][1].get<double>() ==
        Approx(0.7 / (1.001 * 2)));
  CHECK(j["hardware_threads"] == 4);
  CHECK(j["cpu_s"].get<double>() == Approx(1.0));
  CHECK(j["cpu_fraction_of_hardware_threads"].get<double>() == Approx(1.0 / (1.001 * 4)));
  // Counts are integers, exact; the model's joules are summed over ranks.
  CHECK(j["waits"].is_number_integer());
  CHECK(j["waits"] == 1 + 2 + 3 + 4);
  CHECK(j["per_rank"]["waits"] == nlohmann::json({1, 2, 3, 4}));
  CHECK(j["operations"]["put"]["bytes"] == 4 * 4096);
  CHECK(j["sections"]["app"]["tasks"].is_number_integer());
  CHECK(j["sections"]["app"]["tasks"] == 30);
  CHECK(j["sections"]["app"]["compute s"].is_number_float());
  CHECK(j["per_rank"]["sections"]["app"]["tasks"] == nlohmann::json({3, 6, 9, 12}));
  CHECK(j["energy"]["joules"].get<double>() == Approx(100));
  CHECK(j["energy"]["summed_over"] == "ranks");
  CHECK(j["energy"]["kind"] == "estimated");
  CHECK_THAT(s.text, Catch::Contains("summed over 4 ranks (estimated") &&
                         Catch::Contains("of the 4 hardware threads of 2 nodes") &&
                         Catch::Contains("node 1 (host1): 2 ranks") &&
                         Catch::Contains("app: tasks 30 compute s 1"));
}

TEST_CASE("report summary: a hardware meter counts once per node", "[report]") {
  const job in = make_job(2, 2, 8, true);
  const report_summary s = summarize_report(in.ctx, in.reals, in.ints);
  // Node 0's meter is read by rank 0 (10 J), node 1's by rank 2 (30 J).
  CHECK(s.json["per_node"]["joules"] == nlohmann::json({10.0, 30.0}));
  CHECK(s.json["energy"]["joules"].get<double>() == Approx(40));
  CHECK(s.json["energy"]["kind"] == "measured");
  CHECK(s.json["energy"]["summed_over"] == "nodes");
  CHECK_THAT(s.text, Catch::Contains("summed over 2 nodes (measured") &&
                         Catch::Contains("per node: 10.000 30.000 J"));
}

TEST_CASE("report summary: under Slurm it says which energy figure is whose", "[report]") {
  job in = make_job(1, 2, 4, true);
  const report_summary plain = summarize_report(in.ctx, in.reals, in.ints);
  CHECK_FALSE(plain.json["energy"].contains("slurm"));
  CHECK_THAT(plain.text, !Catch::Contains("ConsumedEnergy"));
  in.ctx.slurm_energy = "Slurm job 7: sacct's ConsumedEnergy is the node's";
  const report_summary s = summarize_report(in.ctx, in.reals, in.ints);
  CHECK(s.json["energy"]["slurm"] == in.ctx.slurm_energy);
  CHECK_THAT(s.text, Catch::Contains("  Slurm job 7: sacct's ConsumedEnergy is the node's\n"));
}

TEST_CASE("report summary: 4 ranks on one node of 2 hardware threads", "[report]") {
  const job in = make_job(1, 4, 2, false);
  const report_summary s = summarize_report(in.ctx, in.reals, in.ints);
  // 1 CPU-s in 1.003 s on 2 hardware threads (the old report divided by ranks instead).
  CHECK(s.json["cpu_fraction_of_hardware_threads"].get<double>() == Approx(1.0 / (1.003 * 2)));
  CHECK_THAT(s.text, Catch::Contains("4 ranks on 1 node (host0)") &&
                         Catch::Contains("49.9% of the node's 2 hardware threads"));
}

TEST_CASE("report summary: gathered sizes that do not fit are an error", "[report]") {
  job in = make_job(1, 2, 2, false);
  in.ints.pop_back();
  CHECK_THROWS_AS(summarize_report(in.ctx, in.reals, in.ints), gaea::error);
  in = make_job(1, 2, 2, false);
  in.ints[i_node] = 5;  // rank 0 on a node that does not exist
  CHECK_THROWS_WITH(summarize_report(in.ctx, in.reals, in.ints),
                    Catch::Contains("rank 0 is on node 5 of 1"));
}

TEST_CASE("report summary: UTC ISO 8601 times", "[report]") {
  CHECK(iso8601_utc(0) == "1970-01-01T00:00:00.000Z");
  CHECK(iso8601_utc(951'782'400'007) == "2000-02-29T00:00:00.007Z");
}
