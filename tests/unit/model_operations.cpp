// gaea::model: machine descriptions and the operation models against hand-computed values.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "gaea/base/error.hpp"
#include "gaea/coll/estimator.hpp"
#include "gaea/model/machine.hpp"
#include "gaea/model/operations.hpp"

using namespace gaea::model;

namespace {

machine two_level() {
  machine m;
  m.name = "test";
  m.nodes = 4;
  m.cores_per_node = 4;
  m.ranks_per_node = 2;
  m.intra = {0.5e-6, 0.2e-6, 0.1e-6, 0.1e-9, 0.4e-6};
  m.inter = {5e-6, 1e-6, 0.5e-6, 1e-9, 2e-6};
  m.copy_s_per_byte = 0.2e-9;
  m.add_s_per_byte = 0.3e-9;
  m.dgemm_flops_per_core = 10e9;
  m.memory_bytes_per_node = 10e9;
  return m;
}

std::filesystem::path scratch(const char* name) {
  return std::filesystem::temp_directory_path() /
         (std::string("gaea_model_") + name + "_" + std::to_string(::getpid()) + ".json");
}

}  // namespace

TEST_CASE("contiguous transfers follow the LogGP terms, the fall-back pays the target's handler") {
  const machine m = two_level();
  CHECK(contiguous_s(m, link_class::inter, 1000) == Approx(1e-6 + 10e-6 + 1000e-9));
  CHECK(contiguous_s(m, link_class::inter, 1000, contiguous_path::active_message) ==
        Approx(1e-6 + 10e-6 + 1000e-9 + 2e-6));
  CHECK(contiguous_s(m, link_class::intra, 0) == Approx(0.2e-6 + 1e-6));
  CHECK(contiguous_s(m, link_class::inter, 8, contiguous_path::rma, 1e-6) ==
        Approx(1e-6 + 2 * 6e-6 + 8e-9));
  CHECK_THROWS_AS(contiguous_s(m, link_class::inter, -1), gaea::error);
}

TEST_CASE("zero-copy strided time grows with the chunk count, packed time does not") {
  const machine m = two_level();
  // 1 MiB in chunks of 64 B vs 64 KiB (the [PGAS-BGQ Fig. 9] sweep): per further chunk g.
  const double small = strided_zero_copy_s(m, link_class::inter, 16384, 64);
  const double large = strided_zero_copy_s(m, link_class::inter, 16, 65536);
  CHECK(small - large == Approx((16384 - 16) * 0.5e-6));
  CHECK(strided_packed_s(m, link_class::inter, 16384, 64) ==
        Approx(strided_packed_s(m, link_class::inter, 16, 65536)));
  // Packing wins for tiny chunks and loses for large ones.
  CHECK(strided_packed_s(m, link_class::inter, 16384, 64) < small);
  CHECK(strided_packed_s(m, link_class::inter, 16, 65536) > large);
  CHECK_THROWS_AS(strided_zero_copy_s(m, link_class::inter, 0, 64), gaea::error);
}

TEST_CASE("source-driven accumulate pipelines its pieces; target-driven pays one handler") {
  const machine m = two_level();
  const double mib = 1 << 20;
  CHECK(acc_target_driven_s(m, link_class::inter, mib) ==
        Approx(1e-6 + 10e-6 + 2e-6 + mib * (0.2e-9 + 1e-9 + 0.3e-9)));
  // One piece: lock + get + add + put + unlock, nothing overlapped.
  const double one = acc_source_driven_s(m, link_class::inter, 1024, 1 << 20);
  CHECK(one ==
        Approx(2 * 11e-6 + (11e-6 + 1024e-9) + 1024 * (0.3e-9 + 0.4e-9) + (11e-6 + 1024e-9)));
  // Many pieces: the slowest stage per piece (here the link: 1 µs + c G).
  const double piped = acc_source_driven_s(m, link_class::inter, mib, 16384);
  const double stage = 1e-6 + 16384e-9;
  CHECK(piped == Approx(2 * 11e-6 + (11e-6 + 16384e-9) + 63 * stage + 16384 * (0.3e-9 + 0.4e-9) +
                        (11e-6 + 16384e-9)));
  CHECK_THROWS_AS(acc_source_driven_s(m, link_class::inter, mib, 0), gaea::error);
}

TEST_CASE("the closed queue saturates at the server: response linear in the customers") {
  // One customer never queues.
  CHECK(closed_queue_response_s(1, 2e-6, 10e-6) == Approx(2e-6));
  // Zero think time: every customer is always queued, response = N S.
  CHECK(closed_queue_response_s(100, 1e-6, 0) == Approx(100e-6));
  // Far past saturation the response approaches N S - Z (throughput 1/S).
  CHECK(closed_queue_response_s(4000, 1e-6, 50e-6) == Approx(4000e-6 - 50e-6).epsilon(1e-3));
  // Below saturation it stays near S.
  CHECK(closed_queue_response_s(3, 1e-6, 1e-3) < 1.01e-6);
  CHECK_THROWS_AS(closed_queue_response_s(-1, 1e-6, 0), gaea::error);
}

TEST_CASE("fetch-and-add latency grows linearly in P once the owner saturates") {
  machine m = two_level();
  counter_load load;
  load.ranks_per_node = 2;
  load.service = counter_mode::progress;
  load.clients = 1;
  CHECK(fetch_add_s(m, load) == Approx(0.2e-6 + 1e-6 + 0.4e-6));  // rank 1 shares the node
  load.ranks_per_node = 1;
  CHECK(fetch_add_s(m, load) == Approx(1e-6 + 10e-6 + 2e-6));  // across nodes: wire + o_r
  load.clients = 2047;
  const double p2048 = fetch_add_s(m, load);
  load.clients = 4095;
  const double p4096 = fetch_add_s(m, load);
  // Slope: the owner's service time per extra client.
  CHECK((p4096 - p2048) / 2048 == Approx(2e-6).epsilon(0.01));
  // The owner computing without a progress thread: one reply per owner cycle.
  load.service = counter_mode::owner;
  load.owner_compute_s = 300e-6;
  CHECK(fetch_add_s(m, load) == Approx(300e-6 + 4095 * 2e-6));
  // An owner busy half the time, few clients: between an idle owner and a busy one.
  load.clients = 3;
  const double busy = fetch_add_s(m, load);
  CHECK(busy == Approx(300e-6 + 3 * 2e-6));
  load.owner_busy_fraction = 0.5;
  const double half = fetch_add_s(m, load);
  load.owner_compute_s = 0;
  const double idle = fetch_add_s(m, load);
  CHECK(half == Approx(0.5 * (300e-6 + 3 * 2e-6)));  // saturated: half a cycle
  CHECK(idle < half);
  CHECK(half < busy);
  load.owner_compute_s = 300e-6;
  load.clients = 4095;
  load.owner_busy_fraction = 1.5;
  CHECK_THROWS_WITH(fetch_add_s(m, load), Catch::Contains("owner_busy_fraction = 1.5"));
  load.owner_busy_fraction = 1;
  // A machine without an asynchronous thread serves "progress" as "owner".
  m.progress_thread = false;
  load.service = counter_mode::progress;
  CHECK(fetch_add_s(m, load) == Approx(300e-6 + 4095 * 2e-6));
  load.clients = 0;
  CHECK_THROWS_AS(fetch_add_s(m, load), gaea::error);
}

TEST_CASE("collectives grow with log P and take the network's costs across nodes") {
  machine m = two_level();
  m.nodes = 4096;
  m.ranks_per_node = 2;
  const double p2 = collective_s(m, gaea::coll::operation::barrier, 0, 2);
  const double p64 = collective_s(m, gaea::coll::operation::barrier, 0, 64);
  const double p4096 = collective_s(m, gaea::coll::operation::barrier, 0, 4096);
  CHECK(p2 < p64);
  CHECK(p64 < p4096);
  // A barrier is about log2 P network rounds: 4096 ranks cost well below 64 x 64 ranks'.
  CHECK(p4096 < 4 * p64);
  CHECK(collective_s(m, gaea::coll::operation::broadcast, 1 << 20, 64) >
        collective_s(m, gaea::coll::operation::broadcast, 1024, 64));
  CHECK_THROWS_AS(collective_s(m, gaea::coll::operation::barrier, 0, 0), gaea::error);
}

TEST_CASE("collectives skip replaying ring and chain schedules only when they cannot win") {
  machine m = two_level();
  m.nodes = 64;
  m.ranks_per_node = 2;
  // The same replay over every algorithm, as collective_s builds it.
  gaea::coll::estimator e;
  for (int c = 0; c < 2; ++c) {
    const link_params& l = c == 0 ? m.intra : m.inter;
    const double big = double(1 << 30);
    e.message[c] = {{0, big}, {l.o + l.L, l.o + l.L + big * l.G}};
  }
  using gaea::coll::operation;
  for (const auto op : {operation::broadcast, operation::allreduce, operation::allgather})
    for (const double bytes : {8.0, 65536.0, 16.0 * (1 << 20)}) {
      INFO(std::string(gaea::coll::to_string(op)) << " " << bytes);
      double best = -1;
      for (const auto& p : e.predict(op, static_cast<std::size_t>(bytes), 128, 64))
        if (best < 0 || p.seconds < best) best = p.seconds;
      CHECK(collective_s(m, op, bytes, 128) == Approx(best));
    }
}

TEST_CASE("a measured message curve replaces LogGP in the collectives; G_am in messages") {
  machine m = two_level();
  m.ranks_per_node = 1;
  const double plain = collective_s(m, gaea::coll::operation::broadcast, 1024, 2);
  m.inter.curve_bytes = {8, 1024, 65536};
  m.inter.curve_s = {100e-6, 200e-6, 400e-6};
  const double curved = collective_s(m, gaea::coll::operation::broadcast, 1024, 2);
  // One message between two nodes: the curve's 200 us instead of o + L + 1024 G (7 us).
  CHECK(plain < 20e-6);
  CHECK(curved > 150e-6);
  CHECK(curved < 250e-6);
  const double before = acc_target_driven_s(m, link_class::inter, 1 << 20);
  m.inter.G_am = 2e-9;
  CHECK(acc_target_driven_s(m, link_class::inter, 1 << 20) - before == Approx((1 << 20) * 1e-9));
  CHECK(put_s(m, link_class::inter, 64) == Approx(contiguous_s(m, link_class::inter, 64) + 1e-6));
}

TEST_CASE("a machine description survives a write and a read, and bad ones are named") {
  machine m = two_level();
  m.hop_s = 35e-9;
  m.torus_dims = 5;
  m.progress_thread = false;
  const auto file = scratch("roundtrip");
  save_machine(m, file);
  const machine back = load_machine(file);
  CHECK(back.name == "test");
  CHECK(back.inter.o_r == m.inter.o_r);
  CHECK(back.intra.G == m.intra.G);
  CHECK(back.torus_dims == 5);
  CHECK_FALSE(back.progress_thread);
  {
    std::ofstream out(file);
    out << R"({"kind": "gaea-machine", "version": 1, "name": "x", "nodes": 0})";
  }
  REQUIRE_THROWS_AS(load_machine(file), gaea::error);
  try {
    load_machine(file);
  } catch (const gaea::error& e) {
    CHECK_THAT(e.what(), Catch::Contains("cores_per_node") && Catch::Contains(file.string()));
  }
  std::filesystem::remove(file);
  // Through text (as between ranks), with the optional link terms and a message curve.
  m.intra.G_am = 0.5e-9;
  m.inter.atomic = 3e-6;
  m.inter.curve_bytes = {8, 1024};
  m.inter.curve_s = {20e-6, 25e-6};
  const machine text = machine_from_json_text(to_json_text(m), "text");
  CHECK(text.intra.G_am == m.intra.G_am);
  CHECK(text.inter.atomic == m.inter.atomic);
  CHECK(text.inter.curve_s == m.inter.curve_s);
  m.inter.curve_s = {20e-6};
  CHECK_THROWS_WITH(m.check(), Catch::Contains("inter.curve has 2 sizes and 1 times"));
  m.inter.curve_s = {20e-6, 25e-6};
  m.ranks_per_node = 99;
  CHECK_THROWS_WITH(m.check(), Catch::Contains("ranks_per_node = 99"));
}

TEST_CASE("a machine with a collectives calibration predicts collectives with that estimator") {
  machine m = two_level();
  m.ranks_per_node = 1;
  const auto dir =
      std::filesystem::temp_directory_path() / ("gaea_model_coll_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  gaea::coll::estimator slow;  // every message 1 ms
  slow.message[0] = slow.message[1] = {{0, 1e9}, {1e-3, 1e-3}};
  slow.save(dir / "m.json.coll.json");
  m.coll_calibration = "m.json.coll.json";  // relative to the machine file
  save_machine(m, dir / "m.json");
  const machine back = load_machine(dir / "m.json");
  REQUIRE(back.collectives);
  CHECK(collective_s(back, gaea::coll::operation::barrier, 0, 2) > 1e-3);
  CHECK(collective_s(two_level(), gaea::coll::operation::barrier, 0, 2) < 1e-4);
  std::filesystem::remove(dir / "m.json.coll.json");
  CHECK_THROWS_WITH(load_machine(dir / "m.json"), Catch::Contains("coll_calibration"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("the machine descriptions shipped with Gaea load") {
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(GAEA_SOURCE_DIR) / "framework/model/machines")) {
    INFO(entry.path());
    const machine m = load_machine(entry.path());
    CHECK(m.nodes >= 1);
  }
}
