// gaea::trace without a runtime: the recorder's bound and drop count, threads, regions and
// counters; a rank's trace through encode/decode; nest() and align(); the writers' target
// checks and the Chrome JSON's structure.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <thread>
#include "checked_json.hpp"

#include "detail/rma_records.hpp"
#include "gaea/base/error.hpp"
#include "gaea/trace/job_trace.hpp"
#include "gaea/trace/recorder.hpp"
#include "gaea/trace/writers.hpp"

namespace tr = gaea::trace;

TEST_CASE("trace recorder: nothing is recorded while off", "[trace]") {
  tr::start(8, false);
  CHECK(!tr::recording());
  {
    bool called = false;
    const tr::scoped_region r("off", [&] {
      called = true;
      return tr::region_args{};
    });
    CHECK(!called);  // the arguments are not even computed
  }
  tr::counter("c", 1);
  const auto threads = tr::collect();
  REQUIRE(threads.size() == 1);
  CHECK(threads[0].name == "main");
  CHECK(threads[0].events.empty());
  CHECK(tr::regions_begun() == 0);
}

TEST_CASE("trace recorder: regions, counters, threads and the bound", "[trace]") {
  tr::start(4, true);
  REQUIRE(tr::recording());
  {
    const tr::scoped_region outer("outer", [] { return tr::region_args{64, 3}; });
    const tr::scoped_region inner("inner");
  }
  CHECK(tr::regions_begun() == 2);
  tr::counter("level", 5);
  std::thread([] {
    tr::name_thread("worker");
    for (int i = 0; i < 10; ++i)
      const tr::scoped_region r("many");
  }).join();
  tr::stop();
  { const tr::scoped_region after("after stop"); }
  const auto threads = tr::collect();
  REQUIRE(threads.size() == 2);
  const auto& m = threads[0];
  REQUIRE(m.events.size() == 3);
  // Recorded when they end: inner first.
  CHECK(std::string(m.events[0].name) == "inner");
  CHECK(std::string(m.events[1].name) == "outer");
  CHECK(m.events[1].bytes == 64);
  CHECK(m.events[1].peer == 3);
  CHECK(m.events[1].t0_ns <= m.events[0].t0_ns);
  CHECK(m.events[0].t1_ns <= m.events[1].t1_ns);
  CHECK(m.events[2].kind == tr::event::counter);
  CHECK(m.events[2].value == 5);
  CHECK(m.dropped == 0);
  const auto& w = threads[1];
  CHECK(w.index == 1);
  CHECK(w.name == "worker");
  CHECK(w.events.size() == 4);  // the bound
  CHECK(w.dropped == 6);        // the rest, counted
  tr::start(4, false);          // the next session forgets the previous one
  CHECK(tr::collect().size() == 1);
}

TEST_CASE("trace: a rank's trace survives encode/decode; corrupt input is an error", "[trace]") {
  tr::rank_trace r;
  r.threads = {{"main", 2}, {"progress", 0}};
  r.regions.push_back({0, r.name_id("ga.get"), 10, 20, 8, 1});
  r.counters.push_back({1, r.name_id("power_w"), 15, 1.5});
  r.sync_ns = 5;
  r.dropped_wait_samples = 7;
  r.host = "node-3";
  const auto bytes = tr::encode(r);
  const tr::rank_trace d = tr::decode(bytes);
  CHECK(d.names == r.names);
  REQUIRE(d.threads.size() == 2);
  CHECK(d.threads[0].name == "main");
  CHECK(d.dropped_events() == 2);
  CHECK(d.dropped_wait_samples == 7);
  CHECK(d.host == "node-3");
  REQUIRE(d.regions.size() == 1);
  CHECK(d.regions[0].t1_ns == 20);
  CHECK(d.regions[0].peer == 1);
  CHECK(d.counters[0].value == 1.5);
  CHECK_THROWS_AS(tr::decode(std::span(bytes).first(bytes.size() - 3)), gaea::error);
}

TEST_CASE("trace: nest() sorts per thread and cuts regions that overlap an enclosing one",
          "[trace]") {
  std::vector<tr::region_record> g = {
      {1, 0, 5, 6, -1, -1},   // thread 1
      {0, 1, 3, 12, -1, -1},  // starts inside [0, 10) and ends after it: cut at 10
      {0, 0, 0, 10, -1, -1},
      {0, 2, 10, 11, -1, -1},  // a sibling after it
  };
  tr::nest(g);
  REQUIRE(g.size() == 4);
  CHECK(g[0].t0_ns == 0);
  CHECK(g[1].t0_ns == 3);
  CHECK(g[1].t1_ns == 10);
  CHECK(g[2].t0_ns == 10);
  CHECK(g[2].t1_ns == 11);
  CHECK(g[3].thread == 1);
}

TEST_CASE("trace: align() puts the ranks' barrier ends together and the earliest time at 0",
          "[trace]") {
  std::vector<tr::rank_trace> ranks(2);
  ranks[0].sync_ns = 1000;
  ranks[0].regions.push_back({0, 0, 900, 1100, -1, -1});
  ranks[1].sync_ns = 5000;  // another clock
  ranks[1].regions.push_back({0, 0, 5050, 5060, -1, -1});
  tr::align(ranks);
  CHECK(ranks[0].regions[0].t0_ns == 0);
  CHECK(ranks[0].sync_ns == 100);
  CHECK(ranks[1].sync_ns == 100);
  CHECK(ranks[1].regions[0].t0_ns == 150);
}

TEST_CASE("trace: the format follows the name; bad targets are refused", "[trace]") {
  CHECK(tr::format_of("a/run.json") == tr::format::chrome_json);
  CHECK(tr::format_of("run.otf2") == tr::format::otf2);
  CHECK(tr::format_of("run.h5") == tr::format::hdf5);
  CHECK(tr::format_of("run") == tr::format::hdf5);
  const auto dir = std::filesystem::temp_directory_path() / "gaea-trace-unit";
  std::filesystem::create_directories(dir / "run");
  CHECK_THROWS_WITH(tr::check_target(dir / "missing" / "x.json", "GAEA_TRACE"),
                    Catch::Contains("does not exist"));
  CHECK_NOTHROW(tr::check_target(dir / "x.json", "GAEA_TRACE"));
  if (tr::otf2_supported()) {
    // A directory that is not part of an earlier archive is the user's: never replaced.
    CHECK_THROWS_WITH(tr::check_target(dir / "run.otf2", "GAEA_TRACE"),
                      Catch::Contains("'" + (dir / "run").string() + "'") &&
                          Catch::Contains("anchor") && Catch::Contains("move it away"));
    CHECK_NOTHROW(tr::check_target(dir / "new.otf2", "GAEA_TRACE"));
    std::ofstream(dir / "file") << "x";
    CHECK_THROWS_WITH(tr::check_target(dir / "file.otf2", "GAEA_TRACE"), Catch::Contains("anchor"));
  } else {
    CHECK_THROWS_WITH(tr::check_target(dir / "run.otf2", "GAEA_TRACE"),
                      Catch::Contains("no OTF2 support"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("trace: the Chrome JSON writer gives metadata, X and C events", "[trace]") {
  std::vector<tr::rank_trace> ranks(1);
  auto& r = ranks[0];
  r.threads = {{"main \"quoted\"", 3}};
  r.regions.push_back({0, r.name_id("ga.get"), 1500, 2750, 8, 1});
  r.counters.push_back({0, r.name_id("frequency_khz"), 1000, 2400000});
  const auto file = std::filesystem::temp_directory_path() / "gaea-trace-unit.json";
  tr::write_chrome_json(file, ranks, {"Gaea test", 16});
  std::ifstream in(file);
  const auto j = nlohmann::json::parse(in);
  std::filesystem::remove(file);
  CHECK(j["otherData"]["dropped_events"] == 3);
  CHECK(j["otherData"]["events_per_thread"] == 16);
  int x = 0, c = 0, m = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X") {
      ++x;
      CHECK(e["ts"] == 1.5);
      CHECK(e["dur"] == 1.25);
      CHECK(e["args"]["bytes"] == 8);
      CHECK(e["args"]["peer"] == 1);
    } else if (e["ph"] == "C") {
      ++c;
      CHECK(e["args"]["main \"quoted\""] == 2400000);
    } else if (e["ph"] == "M") {
      ++m;
    }
  }
  CHECK(x == 1);
  CHECK(c == 1);
  CHECK(m == 3);  // process_name, process_sort_index, thread_name
}

namespace {
std::vector<tr::rank_trace> one_region_trace() {
  std::vector<tr::rank_trace> ranks(1);
  auto& r = ranks[0];
  r.threads = {{"main", 3}};
  r.regions.push_back({0, r.name_id("ga.get"), 1500, 2750, 8, 1});
  return ranks;
}
}  // namespace

TEST_CASE("trace: an OTF2 archive replaces only a complete earlier Gaea archive",
          "[trace][regression]") {
  if (!tr::otf2_supported()) return;
  namespace fs = std::filesystem;
  const auto dir = fs::temp_directory_path() / "gaea-trace-replace";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto ranks = one_region_trace();

  // The user's directory of the archive's name, with a file and a subdirectory, and a .def file:
  // refused at start-up and at the write, and everything stays.
  fs::create_directories(dir / "results" / "sub");
  std::ofstream(dir / "results" / "data1.h5") << "a";
  std::ofstream(dir / "results.def") << "user definitions";
  CHECK_THROWS_WITH(tr::check_target(dir / "results.otf2", "GAEA_TRACE"),
                    Catch::Contains("results") && Catch::Contains("not an earlier archive"));
  CHECK_THROWS(tr::write_otf2(dir / "results.otf2", ranks, {"Gaea test", 16}));
  CHECK(fs::is_regular_file(dir / "results" / "data1.h5"));
  CHECK(fs::is_directory(dir / "results" / "sub"));
  std::string defs;
  std::getline(std::ifstream(dir / "results.def"), defs);
  CHECK(defs == "user definitions");
  CHECK(!fs::exists(dir / "results.otf2"));

  // Gaea's own complete archive is replaced, again and again.
  tr::write_otf2(dir / "run.otf2", ranks, {"Gaea test", 16});
  CHECK_NOTHROW(tr::check_target(dir / "run.otf2", "GAEA_TRACE"));
  CHECK_NOTHROW(tr::write_otf2(dir / "run.otf2", ranks, {"Gaea test", 16}));
  CHECK(fs::is_regular_file(dir / "run.otf2"));

  // ... but not once a file of the user's is inside its event directory,
  std::ofstream(dir / "run" / "notes.txt") << "mine";
  CHECK_THROWS_WITH(tr::check_target(dir / "run.otf2", "GAEA_TRACE"), Catch::Contains("notes.txt"));
  CHECK_THROWS(tr::write_otf2(dir / "run.otf2", ranks, {"Gaea test", 16}));
  CHECK(fs::is_regular_file(dir / "run" / "notes.txt"));
  fs::remove(dir / "run" / "notes.txt");

  // ... nor an archive another tool wrote, nor a file that only has the anchor's name.
  tr::write_otf2(dir / "other.otf2", ranks, {"Score-P 8.0", 16});
  CHECK_THROWS_WITH(tr::check_target(dir / "other.otf2", "GAEA_TRACE"),
                    Catch::Contains("Score-P") && Catch::Contains("not by Gaea"));
  std::ofstream(dir / "fake.otf2") << "not an archive";
  CHECK_THROWS_WITH(tr::check_target(dir / "fake.otf2", "GAEA_TRACE"),
                    Catch::Contains("not an OTF2 archive"));
  fs::remove_all(dir);
}

TEST_CASE("trace: one-sided regions become RMA issues completed at their end, wait or sync",
          "[trace]") {
  namespace d = gaea::trace::detail;
  CHECK(d::classify_rma("ga.get").kind == d::rma_kind::get);
  CHECK(d::classify_rma("ga.nbacc").kind == d::rma_kind::accumulate);
  CHECK_FALSE(d::classify_rma("ga.nbacc").blocking);
  CHECK(d::classify_rma("counter.fetch_add").window == d::rma_window::counters);
  CHECK(d::classify_rma("task").kind == d::rma_kind::none);
  CHECK(d::classify_rma("task").completion == d::rma_region::completes::none);

  d::rma_location loc;
  const std::size_t ranks = 4;
  // A blocking get to rank 2: issued at its enter, completed at its leave, nothing pending.
  const auto get = loc.enter(0, d::classify_rma("ga.get"), 2, 64, ranks);
  REQUIRE(get);
  CHECK(get->remote == 2);
  CHECK(get->bytes == 64);
  const auto wait = d::classify_rma("ga.wait");
  CHECK(loc.leave(1, wait).empty());
  const auto got = loc.leave(0, d::classify_rma("ga.get"));
  REQUIRE(got.size() == 1);
  CHECK(got[0].id == get->id);
  // No target, or a target outside the job: no record.
  CHECK_FALSE(loc.enter(2, d::classify_rma("ga.put"), -1, 8, ranks));
  CHECK_FALSE(loc.enter(3, d::classify_rma("ga.put"), 4, 8, ranks));
  // Non-blocking: a wait completes the oldest, a sync all of its window's, not the counters'.
  const auto a = loc.enter(4, d::classify_rma("ga.nbput"), 1, 8, ranks);
  const auto b = loc.enter(5, d::classify_rma("ga.nbget"), 3, 8, ranks);
  const auto c = loc.enter(6, d::classify_rma("ga.nbacc"), 0, 8, ranks);
  const auto f = loc.enter(7, d::classify_rma("counter.nbfetch_add"), 0, 8, ranks);
  REQUIRE((a && b && c && f));
  CHECK(loc.leave(4, d::classify_rma("ga.nbput")).empty());
  const auto one = loc.leave(8, wait);
  REQUIRE(one.size() == 1);
  CHECK(one[0].id == a->id);
  const auto all = loc.leave(9, d::classify_rma("ga.sync"));
  REQUIRE(all.size() == 2);
  CHECK(all[0].id == b->id);
  CHECK(all[1].id == c->id);
  CHECK(loc.leave(10, d::classify_rma("ga.sync")).empty());
  const auto counter = loc.leave(11, d::classify_rma("counter.wait"));
  REQUIRE(counter.size() == 1);
  CHECK(counter[0].id == f->id);
  CHECK(counter[0].window == d::rma_window::counters);
  // Matching ids are unique on the location.
  CHECK(a->id != b->id);
  CHECK(b->id != c->id);
  CHECK(get->id != a->id);
}
