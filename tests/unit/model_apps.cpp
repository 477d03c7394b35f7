// gaea::model app models (LU, LBM, SCF Fock build): hand-computed small cases, the scaling the
// models must show (compute divides, ghosts stay, the largest task bounds the build), the
// effect of overlap and of the progress thread, bad input, and the profiles read from the apps'
// --json lines.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "gaea/base/error.hpp"
#include "gaea/model/apps.hpp"
#include "gaea/model/operations.hpp"

using namespace gaea::model;
using Catch::Matchers::Contains;

namespace {

// A small cluster with round numbers: 1 GF/s per core, 100 GB/s of memory per node.
machine test_machine(std::int64_t ranks_per_node, std::int64_t nodes = 64) {
  machine m;
  m.name = "test";
  m.nodes = nodes;
  m.cores_per_node = 4;
  m.threads_per_core = 1;
  m.ranks_per_node = ranks_per_node;
  m.intra = {0.5e-6, 0.2e-6, 0.1e-6, 1e-10, 0.3e-6};
  m.inter = {2e-6, 1e-6, 0.5e-6, 1e-9, 1e-6};
  m.copy_s_per_byte = 2e-10;
  m.add_s_per_byte = 3e-10;
  m.dgemm_flops_per_core = 1e9;
  m.memory_bytes_per_node = 1e11;
  m.progress_thread = true;
  return m;
}

std::filesystem::path write_profile(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() /
                 ("gaea_model_apps_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(p) << "gaea-app: some text report\n" << text << "\n";
  return p;
}

}  // namespace

TEST_CASE("lu on one rank is the serial flop count over the rate", "[model][lu]") {
  const machine m = test_machine(1);
  const lu_case c{1024, 128, 1, 1, true};
  const lu_breakdown b = predict_lu(m, c, {2e9});
  const double n = 1024;
  // 8 tiles: sum over steps of getrf + 2 m TRSM + m^2 GEMM equals 2 n^3 / 3 exactly.
  CHECK(b.total_s == Approx(2 * n * n * n / 3 / 2e9).epsilon(1e-12));
  CHECK(b.comm_s == 0);
  CHECK(b.wait_s == 0);
  CHECK(b.bytes_per_rank == 0);
  CHECK(b.steps == 8);
  // Without a profile the machine's dgemm rate is used.
  CHECK(predict_lu(m, c).total_s == Approx(2 * n * n * n / 3 / 1e9).epsilon(1e-12));
}

TEST_CASE("lu on a 1x2 grid of two tiles, by hand", "[model][lu]") {
  const machine m = test_machine(2);
  const double b = 64, r = 1e9, b3 = b * b * b;
  const lu_breakdown out = predict_lu(m, {128, 64, 1, 2, true}, {r});
  // Step 0: panel 0 (getrf, one L and one U solve), update of the one trailing tile, panel 1.
  CHECK(out.update_s == Approx(2 * b3 / r));
  CHECK(out.panel_s == Approx((2 * b3 / 3 + 2 * b3) / r + 2 * b3 / 3 / r));
  // One L tile from the process-row neighbour (same node), exposed: nothing to hide behind; and
  // the diagonal tile, got by the rank that solves its U tile against it.
  const double get = contiguous_s(m, link_class::intra, b * b * 8);
  CHECK(out.comm_s == Approx(2 * get));
  CHECK(out.transfer_s == Approx(2 * get));
  CHECK(out.bytes_per_rank == 2 * b * b * 8);
  const double notice = acc_target_driven_s(m, link_class::intra, 8);
  CHECK(out.wait_s == Approx(3 * notice + collective_s(m, gaea::coll::operation::barrier, 0, 2)));
  CHECK(out.total_s == Approx(out.compute_s + out.comm_s + out.wait_s));
}

TEST_CASE("lu: more ranks compute less, overlap hides panel gets", "[model][lu]") {
  const machine m = test_machine(1, 4096);
  const lu_breakdown p1 = predict_lu(m, {8192, 128, 1, 1, true});
  const lu_breakdown p4 = predict_lu(m, {8192, 128, 2, 2, true});
  const lu_breakdown p16 = predict_lu(m, {8192, 128, 4, 4, true});
  CHECK(p4.compute_s < p1.compute_s);
  CHECK(p16.compute_s < p4.compute_s);
  CHECK(p4.update_s == Approx(p1.update_s / 4).epsilon(0.1));
  CHECK(p16.comm_s > 0);
  const lu_breakdown off = predict_lu(m, {8192, 128, 4, 4, false});
  CHECK(off.comm_s == Approx(off.transfer_s));
  CHECK(p16.comm_s < off.comm_s);
  CHECK(p16.total_s < off.total_s);
  CHECK(p16.compute_s == Approx(off.compute_s));
}

TEST_CASE("lu: bad cases name the values", "[model][lu]") {
  const machine m = test_machine(1);
  CHECK_THROWS_WITH(predict_lu(m, {100, 200, 1, 1, true}),
                    Contains("block = 200") && Contains("n = 100"));
  CHECK_THROWS_WITH(predict_lu(m, {100, 10, 0, 2, true}), Contains("prow = 0"));
  CHECK_THROWS_WITH(predict_lu(m, {0, 10, 1, 1, true}), Contains("n = 0"));
  machine none = m;
  none.dgemm_flops_per_core = 0;
  CHECK_THROWS_WITH(predict_lu(none, {100, 10, 1, 1, true}), Contains("no compute rate"));
}

TEST_CASE("lbm on one rank is cells times the profiled cell time", "[model][lbm]") {
  machine m = test_machine(1);
  const lbm_breakdown b = predict_lbm(m, {256, 128, 1, 0, 0, false}, {20e-9, 144});
  CHECK(b.compute_s == Approx(256 * 128 * 20e-9));
  CHECK(b.ghosts_s == 0);
  CHECK(b.messages == 0);
  CHECK(b.total_s == b.compute_s);
  // No profile: the node's bandwidth over 144 B per cell.
  m.memory_bytes_per_node = 1e9;
  CHECK(predict_lbm(m, {256, 128, 1, 0, 0, false}).compute_s == Approx(256 * 128 * 144 / 1e9));
}

TEST_CASE("lbm: doubling ranks halves compute, the ghost exchange stays", "[model][lbm]") {
  const machine m = test_machine(1);  // one rank per node: no bandwidth sharing
  const lbm_profile p{20e-9, 144};
  const lbm_breakdown b2 = predict_lbm(m, {1024, 512, 2, 1, 2, true}, p);
  const lbm_breakdown b4 = predict_lbm(m, {1024, 512, 4, 1, 4, true}, p);
  CHECK(b4.compute_s == Approx(b2.compute_s / 2));
  CHECK(b4.exchange_s == Approx(b2.exchange_s));
  CHECK(b4.ghost_bytes == b2.ghost_bytes);
  CHECK(b2.messages == 2);  // left and right columns, periodic
  CHECK(b2.ghost_bytes == 2 * 9 * 512 * 8);
}

TEST_CASE("lbm: ranks sharing a node share its memory bandwidth", "[model][lbm]") {
  machine m = test_machine(2, 1);
  m.memory_bytes_per_node = 144 / 20e-9;  // one rank alone already saturates the node
  const lbm_profile p{20e-9, 144};
  const lbm_breakdown b1 = predict_lbm(m, {512, 512, 1, 0, 0, false}, p);
  const lbm_breakdown b2 = predict_lbm(m, {512, 512, 2, 0, 0, false}, p);
  CHECK(b2.compute_s == Approx(b1.compute_s));
}

TEST_CASE("lbm: a 2x2 grid of walls, by hand", "[model][lbm]") {
  const machine m = test_machine(4, 1);
  const lbm_breakdown b = predict_lbm(m, {100, 60, 4, 2, 2, false}, {1e-8, 144});
  // Every tile has one x neighbour (a 30-cell column), one y neighbour (a 50-cell row), a corner.
  auto get = [&](std::int64_t chunks, double bytes) {
    return std::min(strided_zero_copy_s(m, link_class::intra, chunks, bytes),
                    strided_packed_s(m, link_class::intra, chunks, bytes));
  };
  const double rt = 2 * m.intra.L;
  CHECK(b.messages == 3);
  CHECK(b.exchange_s == Approx(get(9 * 30, 8) + get(9, 400) + get(9, 8) - 2 * rt));
  CHECK(b.sync_s == Approx(2 * collective_s(m, gaea::coll::operation::barrier, 0, 4)));
  CHECK(b.compute_s == Approx(30 * 50 * 1e-8));
}

TEST_CASE("lbm: default grid and bad grids", "[model][lbm]") {
  CHECK(lbm_default_grid(4, 100, 100) == std::pair<std::int64_t, std::int64_t>{2, 2});
  CHECK(lbm_default_grid(2, 10, 1000) == std::pair<std::int64_t, std::int64_t>{1, 2});
  CHECK_THROWS_WITH(lbm_default_grid(5, 1, 3), Contains("5 tiles"));
  const machine m = test_machine(1);
  CHECK_THROWS_WITH(predict_lbm(m, {64, 64, 4, 2, 3, false}),
                    Contains("grid 2x3") && Contains("= 4 ranks"));
  CHECK_THROWS_WITH(predict_lbm(m, {64, 64, 0, 0, 0, false}), Contains("ranks = 0"));
}

namespace {
scf_profile water_profile() {
  scf_profile p;
  p.nbf = 120;
  p.blocks = 4;
  p.tasks = 55;  // all (10 x 11 / 2) block quartets of 4 blocks
  p.integrals_s = 11.0;
  p.max_task_s = 0.8;
  p.accs_per_task = 5;
  p.diag_s = 0.05;
  return p;
}
// [PGAS-BGQ Fig. 14]'s size: 644 functions, tasks long enough to leave the counter unsaturated.
scf_profile paper_sized_profile() {
  scf_profile p = water_profile();
  p.nbf = 644;
  p.blocks = 14;
  p.tasks = 5000;
  p.integrals_s = 3000;
  p.max_task_s = 2;
  return p;
}
}  // namespace

TEST_CASE("scf on one worker: integrals, local gets and accumulates, the serial part",
          "[model][scf]") {
  const machine m = test_machine(1);
  const scf_profile p = water_profile();
  const scf_breakdown b = predict_scf(m, {1, 1, counter_mode::progress, 30}, p);
  CHECK(b.blocks == 4);
  CHECK(b.tasks == 55);
  CHECK(b.integrals_s == Approx(11.0));
  CHECK(b.counter_s == 0);
  CHECK(b.imbalance_s == 0);
  CHECK(b.collectives_s == 0);
  // 10 distinct density blocks copied once; 5 accumulates per task added locally.
  const double block = 30.0 * 30 * 8;
  CHECK(b.get_s == Approx(10 * block * m.copy_s_per_byte));
  CHECK(b.acc_s == Approx(55 * 5 * block * m.add_s_per_byte));
  CHECK(b.total_s == Approx(b.build_s + 0.05));
}

TEST_CASE("scf: workers share the integrals, the largest task bounds the build", "[model][scf]") {
  const machine m = test_machine(1, 4096);
  const scf_profile p = water_profile();
  const scf_breakdown b2 = predict_scf(m, {2, 1, counter_mode::progress, 30}, p);
  const scf_breakdown b4 = predict_scf(m, {4, 1, counter_mode::progress, 30}, p);
  CHECK(b4.integrals_s == Approx(b2.integrals_s / 2));
  CHECK(b4.counter_s > 0);
  CHECK(b4.collectives_s > 0);
  CHECK(b4.build_s < b2.build_s);
  // 64 workers for 55 tasks: the build cannot be shorter than the largest task.
  const scf_breakdown b64 = predict_scf(m, {64, 1, counter_mode::progress, 30}, p);
  CHECK(b64.build_s >= 0.8);
  CHECK(b64.imbalance_s > 0);
}

TEST_CASE("scf: an asynchronous progress thread makes the build faster", "[model][scf]") {
  machine with = test_machine(1, 4096);
  machine without = with;
  without.progress_thread = false;
  const scf_profile p = paper_sized_profile();
  for (std::int64_t ranks : {256, 1024, 4096}) {
    const scf_case c{ranks, 1, counter_mode::progress, 0};
    const scf_breakdown a = predict_scf(with, c, p), s = predict_scf(without, c, p);
    CHECK(a.build_s < s.build_s);
    CHECK(a.fetch_add_s < s.fetch_add_s);
  }
}

TEST_CASE("scf: guided chunks take far fewer counter calls than one per task", "[model][scf]") {
  const machine m = test_machine(1, 4096);
  const scf_profile p = paper_sized_profile();
  scf_case single{4, 1, counter_mode::progress, 0};
  single.dispense = gaea::counters::dispense::single;
  scf_case batched = single;
  batched.dispense = gaea::counters::dispense::batched;
  const scf_breakdown s = predict_scf(m, single, p), b = predict_scf(m, batched, p);
  CHECK(s.fetches_per_worker == Approx(s.tasks_per_worker));
  // k W = 8: 8 (ln(T / 8) + 1) fetches in all, shared by 4 workers.
  const double t = static_cast<double>(b.tasks);
  CHECK(b.fetches_per_worker == Approx(8 * (std::log(t / 8) + 1) / 4));
  CHECK(b.counter_s < s.counter_s / 10);
  CHECK(b.integrals_s == Approx(s.integrals_s));
  scf_case hier = single;
  hier.dispense = gaea::counters::dispense::hierarchical;
  CHECK_THROWS_WITH(predict_scf(m, hier, p), Contains("hierarchical is not modelled"));
}

TEST_CASE("scf: the app's automatic blocking", "[model][scf]") {
  // 644 functions on 4096 workers: max(ceil((512 * 4096)^(1/4)), ceil(644 / 48)) = 39 blocks
  // of ceil(644 / 39) = 17 functions.
  CHECK(scf_block_bf(644, 4096) == 17);
  CHECK(scf_block_bf(24, 1) == 5);  // ceil(512^(1/4)) = 5 blocks
  CHECK(scf_block_bf(1000, 1) == 48);
}

TEST_CASE("scf: bad cases name the values", "[model][scf]") {
  const machine m = test_machine(1);
  scf_profile p = water_profile();
  CHECK_THROWS_WITH(predict_scf(m, {0, 1, counter_mode::progress, 0}, p), Contains("ranks = 0"));
  CHECK_THROWS_WITH(predict_scf(m, {2, 0, counter_mode::progress, 0}, p), Contains("threads = 0"));
  p.tasks = 0;
  CHECK_THROWS_WITH(predict_scf(m, {2, 1, counter_mode::progress, 0}, p),
                    Contains("profile tasks = 0"));
  p = water_profile();
  p.tasks = 56;  // 4 blocks have 55 block quartets
  CHECK_THROWS_WITH(predict_scf(m, {2, 1, counter_mode::progress, 0}, p),
                    Contains("tasks = 56") && Contains("55 block quartets"));
  p = water_profile();
  p.blocks = 500;
  CHECK_THROWS_WITH(predict_scf(m, {2, 1, counter_mode::progress, 0}, p),
                    Contains("blocks = 500") && Contains("nbf = 120"));
}

TEST_CASE("profiles come from one-rank --json lines", "[model][profile]") {
  const auto lu = write_profile(
      "lu.json",
      R"({"n":1000,"block":100,"ranks":1,"overlap":true,"pivot":false,"compute_s":2.0})");
  const auto [lp, lc] = read_lu_profile(lu);
  CHECK(lc.n == 1000);
  CHECK(lc.block == 100);
  CHECK(lp.flops_per_s == Approx(2e9 / 3 / 2.0));

  const auto lbm = write_profile(
      "lbm.json", R"({"nx":100,"ny":50,"ranks":1,"steps":10,"compute_s":0.5,"periodic":true})");
  const auto [bp, bc] = read_lbm_profile(lbm);
  CHECK(bp.cell_s == Approx(0.5 / (100 * 50 * 10)));
  CHECK(bc.periodic);

  const auto scf = write_profile(
      "scf.json",
      R"({"nbf":24,"blocks":5,"tasks":100,"ranks":1,"threads":2,"integrals_s":0.3,"max_task_s":0.01,"diag_s":0.002,"accs":400})");
  const auto [sp, sc] = read_scf_profile(scf);
  CHECK(sp.accs_per_task == Approx(4));
  CHECK(sc.threads == 2);
  CHECK(sp.max_task_s == Approx(0.01));

  const auto two = write_profile("two.json", R"({"n":1000,"block":100,"ranks":2,"compute_s":2})");
  CHECK_THROWS_WITH(read_lu_profile(two), Contains("2 ranks") && Contains("two.json"));
  const auto missing = write_profile("missing.json", R"({"nx":10,"ny":10,"ranks":1,"steps":3})");
  CHECK_THROWS_WITH(read_lbm_profile(missing), Contains("'compute_s' missing"));
  const auto text = write_profile("text.json", "no json here");
  CHECK_THROWS_WITH(read_scf_profile(text), Contains("no JSON object line"));
  CHECK_THROWS_WITH(read_lu_profile("/nonexistent/p.json"), Contains("no such file"));
  for (const auto& f : {lu, lbm, scf, two, missing, text})
    std::filesystem::remove(f);
}
