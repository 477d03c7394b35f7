// The estimator without a runtime: predictions follow the algorithms' structure, the choice
// honours the time budget, and calibration files round-trip or fail with clear errors.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "gaea/base/error.hpp"
#include "gaea/coll/estimator.hpp"

namespace coll = gaea::coll;
using coll::algorithm;
using coll::operation;

namespace {
double time_of(const std::vector<coll::prediction>& p, algorithm a) {
  for (const auto& x : p)
    if (x.algo == a) return x.seconds;
  FAIL("no prediction for " << coll::to_string(a));
  return 0;
}
}  // namespace

TEST_CASE("predictions follow the algorithms' step counts and volumes", "[coll][estimator]") {
  const coll::estimator e;
  // 24 ranks on 3 nodes: Bruck's 5 steps beat 23 exchange steps for small blocks, and lose for
  // large ones (it moves about log2(p)/2 times the data).
  auto small = e.predict(operation::alltoall, 8, 24, 3);
  CHECK(time_of(small, algorithm::bruck) < time_of(small, algorithm::send_recv));
  auto large = e.predict(operation::alltoall, 1 << 20, 24, 3);
  CHECK(time_of(large, algorithm::bruck) > time_of(large, algorithm::send_recv));
  // Pairwise exists only for powers of two.
  CHECK(e.predict(operation::alltoall, 8, 24, 3).size() == 2);
  CHECK(e.predict(operation::alltoall, 8, 16, 2).size() == 3);
  // Time grows with the size and the rank count.
  CHECK(time_of(e.predict(operation::broadcast, 1 << 20, 8, 2), algorithm::binomial) >
        time_of(e.predict(operation::broadcast, 1 << 10, 8, 2), algorithm::binomial));
  CHECK(time_of(e.predict(operation::allreduce, 64, 64, 8), algorithm::recursive_doubling) >
        time_of(e.predict(operation::allreduce, 64, 4, 2), algorithm::recursive_doubling));
  for (const auto& p : e.predict(operation::barrier, 0, 4096, 128)) {
    CHECK(std::isfinite(p.seconds));
    CHECK(p.joules > 0);
  }
}

TEST_CASE("the choice is the least energy within the time budget", "[coll][estimator]") {
  const coll::estimator e;
  for (std::size_t bytes : {std::size_t{8}, std::size_t{65536}, std::size_t{4} << 20}) {
    const auto p = e.predict(operation::broadcast, bytes, 16, 4);
    double fastest = 1e300;
    for (const auto& x : p)
      fastest = std::min(fastest, x.seconds);
    const algorithm pick = e.choose(operation::broadcast, bytes, 16, 4);
    for (const auto& x : p) {
      if (x.algo == pick)
        CHECK(x.seconds <= fastest * 1.02);
      else if (x.seconds <= fastest * 1.02)
        CHECK(x.joules >= 0);
    }
    CHECK(e.choose(operation::broadcast, bytes, 16, 4, true, 0.0) != algorithm::automatic);
  }
}

TEST_CASE("calibration files round-trip and bad ones are named", "[coll][estimator]") {
  const auto dir = std::filesystem::temp_directory_path() / "gaea_coll_estimator_test";
  std::filesystem::create_directories(dir);
  coll::estimator e;
  e.ops[1].steps[2][1].start_s = -4.2e-6;  // start-ups are relative to the curve: may be < 0
  e.ops[1].steps[2][1].scale = 1.25;
  e.message[1] = {{8, 8192, 1 << 20}, {2e-6, 9e-6, 300e-6}};
  e.power_w[1] = 7.5;
  e.call_joules = 3e-6;
  e.idle_w = 4.5;
  e.switch_w = 120;
  e.step_power_w.assign(coll::step_kind_names().size(), {-1.0, -1.0});
  e.step_power_w[3] = {2.5, 0.75};
  e.save(dir / "cal.json");
  const coll::estimator back = coll::estimator::load(dir / "cal.json");
  CHECK(back.ops[1].steps[2][1].start_s == Approx(-4.2e-6));
  CHECK(back.ops[1].steps[2][1].scale == 1.25);
  CHECK(back.message[1].bytes == e.message[1].bytes);
  CHECK(back.message[1].seconds == e.message[1].seconds);
  CHECK(back.power_w[1] == 7.5);
  CHECK(back.call_joules == Approx(3e-6));
  CHECK(back.idle_w == 4.5);
  CHECK(back.switch_w == 120);
  REQUIRE(back.step_power_w.size() == coll::step_kind_names().size());
  CHECK(back.step_power_w[3] == std::vector<double>{2.5, 0.75});
  CHECK(back.step_power_w[0] == std::vector<double>{-1.0, -1.0});
  CHECK(back.source() == (dir / "cal.json").string() + " (defaults)");
  for (const auto& entry : std::filesystem::directory_iterator(dir))  // no temporary left
    CHECK_FALSE(entry.path().filename().string().starts_with("cal.json.tmp"));
  std::ofstream(dir / "bad.json") << "{\"kind\": \"gaea-coll-calibration\", \"version\": 4, "
                                     "\"power_w\": [1, 1], \"idle_w\": 0, \"switch_w\": 0, "
                                     "\"call_joules\": 0}";
  CHECK_THROWS_WITH(coll::estimator::load(dir / "bad.json"),
                    Catch::Contains("bad.json") && Catch::Contains("message.intra"));
  // A curve whose sizes do not ascend is named with the point.
  {
    coll::estimator f;
    f.message[0] = {{8, 4096, 1024}, {1e-6, 2e-6, 3e-6}};
    f.save(dir / "unsorted.json");
    CHECK_THROWS_WITH(coll::estimator::load(dir / "unsorted.json"),
                      Catch::Contains("message.intra") && Catch::Contains("point 2"));
  }
  std::ofstream(dir / "old.json") << "{\"kind\": \"gaea-coll-calibration\", \"version\": 1}";
  CHECK_THROWS_WITH(coll::estimator::load(dir / "old.json"), Catch::Contains("version-4"));
  std::ofstream(dir / "junk.json") << "not json";
  CHECK_THROWS_WITH(coll::estimator::load(dir / "junk.json"), Catch::Contains("not JSON"));
  CHECK_THROWS_WITH(coll::estimator::load(dir / "missing.json"), Catch::Contains("no such file"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("energy follows idle power, each step kind's extra power and the switches",
          "[coll][estimator]") {
  // [Bcast-Energy]: E = idle x member-seconds + extra(kind) x its member-seconds + switches x T.
  coll::estimator e;
  const auto base = e.predict(coll::operation::broadcast, 1 << 20, 4, 2, true, 65536,
                              std::vector{coll::algorithm::chain});
  REQUIRE(base.size() == 1);
  e.idle_w = 3;
  e.step_power_w.assign(coll::step_kind_names().size(), {0.0, 0.0});
  const auto idle_only = e.predict(coll::operation::broadcast, 1 << 20, 4, 2, true, 65536,
                                   std::vector{coll::algorithm::chain});
  // The same replay: the time does not change, the energy is idle power on member-seconds.
  CHECK(idle_only[0].seconds == base[0].seconds);
  CHECK(idle_only[0].joules < base[0].joules);
  CHECK(idle_only[0].joules > 0);
  std::size_t pipeline = 0;
  for (auto n : coll::step_kind_names()) {
    if (std::string(n) == "pipeline") break;
    ++pipeline;
  }
  REQUIRE(pipeline < coll::step_kind_names().size());
  e.step_power_w[pipeline] = {5.0, 5.0};
  const auto busy = e.predict(coll::operation::broadcast, 1 << 20, 4, 2, true, 65536,
                              std::vector{coll::algorithm::chain});
  // The chain's rounds are pipeline rounds: their extra power adds, at most over the whole call.
  CHECK(busy[0].joules > idle_only[0].joules * 1.2);
  CHECK(busy[0].joules < idle_only[0].joules * (1 + 5.0 / 3));
  e.switch_w = 100;
  const auto with_switch = e.predict(coll::operation::broadcast, 1 << 20, 4, 2, true, 65536,
                                     std::vector{coll::algorithm::chain});
  CHECK(with_switch[0].joules == Approx(busy[0].joules + 100 * busy[0].seconds));
  // One node: no switch between members.
  const auto one_node = e.predict(coll::operation::broadcast, 1 << 20, 4, 1, true, 65536,
                                  std::vector{coll::algorithm::chain});
  coll::estimator f = e;
  f.switch_w = 0;
  CHECK(one_node[0].joules == Approx(f.predict(coll::operation::broadcast, 1 << 20, 4, 1, true,
                                               65536, std::vector{coll::algorithm::chain})[0]
                                         .joules));
}

TEST_CASE("a message curve interpolates between its points and extrapolates the last slope",
          "[coll][estimator]") {
  const coll::message_curve c{{8, 8192, 16384, 1 << 20}, {2e-6, 30e-6, 20e-6, 200e-6}};
  CHECK(c.at(8) == Approx(2e-6));
  CHECK(c.at(8192) == Approx(30e-6));
  // Not monotonic: a protocol switch can make a larger message faster.
  CHECK(c.at(12288) == Approx(25e-6));
  const double slope = (200e-6 - 20e-6) / ((1 << 20) - 16384);
  CHECK(c.at(2 << 20) == Approx(200e-6 + slope * (1 << 20)));
  CHECK(c.at(0) >= 0);  // clamped: never a negative time
  CHECK(coll::message_curve{}.at(100) == 0);
}
