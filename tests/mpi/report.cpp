// GAEA_REPORT=<file>.json and GAEA_TRACE=<file>.h5 at finalize. The test starts MPI itself
// so that it can pick the file names, run a runtime, and read the files after the runtime is gone.
#include <hdf5.h>
#include <mpi.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include "checked_json.hpp"

#include "gaea/ga/global_array.hpp"
#include "gaea/runtime/detail/hdf5.hpp"
#include "gaea/runtime/runtime.hpp"

namespace {
using gaea::detail::h5_handle;
using json = nlohmann::json;

// `v` is an array of one value per rank, of integers when `integers`.
void check_per_rank(const json& v, int size, bool integers, const std::string& what) {
  INFO(what);
  REQUIRE(v.is_array());
  CHECK(v.size() == static_cast<std::size_t>(size));
  for (const json& x : v)
    CHECK((integers ? x.is_number_integer() : x.is_number()));
}

// The sum of a per-rank array equals the job's figure: exactly for counts, to rounding for
// measures (the report adds the same doubles in the same order, so it agrees closely).
void check_sum(const json& per_rank, const json& sum, const std::string& what) {
  INFO(what);
  if (sum.is_number_integer()) {
    std::int64_t s = 0;
    for (const json& x : per_rank)
      s += x.get<std::int64_t>();
    CHECK(s == sum.get<std::int64_t>());
  } else {
    double s = 0;
    for (const json& x : per_rank)
      s += x.get<double>();
    CHECK(s == Approx(sum.get<double>()).epsilon(1e-12).margin(1e-12));
  }
}

// docs/report.md, schema "gaea-report" version 1: keys, types, per-rank arrays and their sums.
void check_report_schema(const json& j, int size) {
  CHECK(j["schema"] == "gaea-report");
  CHECK(j["schema_version"] == 1);
  CHECK(j["schema_version"].is_number_integer());
  CHECK(!j["gaea_version"].get<std::string>().empty());
  REQUIRE(j["command_line"].is_array());
  REQUIRE(!j["command_line"].empty());
  CHECK(j["command_line"][0].get<std::string>().find("test_report") != std::string::npos);
  // UTC ISO 8601 with milliseconds, e.g. 2026-11-24T21:09:25.123Z.
  const std::string start = j["start_time"];
  CHECK(start.size() == 24);
  CHECK(start[10] == 'T');
  CHECK(start.back() == 'Z');
  CHECK(j["ranks"] == size);
  CHECK(j["ranks"].is_number_integer());
  const int nodes = j["nodes"];
  CHECK(nodes >= 1);
  CHECK(j["hosts"].size() == static_cast<std::size_t>(nodes));
  for (const json& h : j["hosts"])
    CHECK(!h.get<std::string>().empty());
  for (const char* k : {"hardware_threads", "waits", "wakeups", "blocks", "mode_switches"}) {
    INFO(k);
    CHECK(j[k].is_number_integer());
  }
  for (const char* k : {"lowered", "raised", "transitions"}) {
    INFO(k);
    CHECK(j["dvfs"][k].is_number_integer());
  }
  for (const auto& [kind, o] : j["operations"].items()) {
    INFO(kind);
    CHECK(o["count"].is_number_integer());
    CHECK(o["bytes"].is_number_integer());
  }
  // CPU over the same interval as the wall time, as a share of the hardware threads: it cannot
  // pass 1. Allowance: the kernel adds a thread's CPU time to the process total at scheduler
  // ticks, so a reading can miss up to one tick (<= 10 ms at HZ >= 100) for each thread running
  // at that moment, which is at most one per hardware thread: share error <= 10 ms / wall.
  const double wall = j["wall_s"], share = j["cpu_fraction_of_hardware_threads"];
  CHECK(share > 0);
  CHECK(share <= 1.0 + 0.010 / wall);
  CHECK(j["cpu_s"].get<double>() <=
        wall * j["hardware_threads"].get<double>() + 0.010 * j["hardware_threads"].get<double>());
  const std::string summed = j["energy"]["summed_over"];
  const std::string kind = j["energy"]["kind"];
  CHECK((kind == "measured" || kind == "estimated"));
  CHECK(summed == (kind == "measured" ? "nodes" : "ranks"));
  CHECK(!j["energy"]["source"].get<std::string>().empty());

  // Per node.
  const json& pn = j["per_node"];
  std::int64_t threads = 0, ranks_on_nodes = 0;
  for (const char* k : {"host", "ranks", "hardware_threads", "wall_s", "cpu_s",
                        "cpu_fraction_of_hardware_threads", "joules"}) {
    INFO(k);
    CHECK(pn[k].size() == static_cast<std::size_t>(nodes));
  }
  for (int k = 0; k < nodes; ++k) {
    threads += pn["hardware_threads"][k].get<std::int64_t>();
    ranks_on_nodes += pn["ranks"][k].get<std::int64_t>();
    CHECK(pn["cpu_fraction_of_hardware_threads"][k].get<double>() <=
          1.0 + 0.010 / pn["wall_s"][k].get<double>());
    CHECK(pn["wall_s"][k].get<double>() <= wall);
  }
  CHECK(threads == j["hardware_threads"].get<std::int64_t>());
  CHECK(ranks_on_nodes == size);
  check_sum(pn["cpu_s"], j["cpu_s"], "per_node cpu_s");
  check_sum(pn["joules"], j["energy"]["joules"], "per_node joules");

  // Per rank, beside the sums.
  const json& pr = j["per_rank"];
  for (const char* k : {"node", "waits", "wakeups", "blocks", "mode_switches", "dvfs_transitions"})
    check_per_rank(pr[k], size, true, k);
  for (const char* k : {"wall_s", "cpu_s", "joules", "estimated_slowdown"})
    check_per_rank(pr[k], size, false, k);
  for (const char* k : {"waits", "wakeups", "blocks", "mode_switches"})
    check_sum(pr[k], j[k], k);
  check_sum(pr["dvfs_transitions"], j["dvfs"]["transitions"], "dvfs transitions");
  check_sum(pr["cpu_s"], j["cpu_s"], "cpu_s");
  if (kind == "estimated") check_sum(pr["joules"], j["energy"]["joules"], "joules");
  for (const json& w : pr["wall_s"])
    CHECK(w.get<double>() <= wall);
  for (const json& nd : pr["node"])
    CHECK((nd.get<int>() >= 0 && nd.get<int>() < nodes));
  for (const auto& [op, o] : j["operations"].items()) {
    check_per_rank(pr["operations"][op]["count"], size, true, op);
    check_per_rank(pr["operations"][op]["bytes"], size, true, op);
    check_sum(pr["operations"][op]["count"], o["count"], op + " count");
    check_sum(pr["operations"][op]["bytes"], o["bytes"], op + " bytes");
  }
  // Sections: counts are integers; each key has its per-rank array and sum.
  REQUIRE(j["sections"].contains("global arrays"));
  CHECK(j["sections"]["global arrays"]["acc_calls"].is_number_integer());
  CHECK(j["sections"]["throttle"]["transitions"].is_number_integer());
  for (const auto& [name, sec] : j["sections"].items())
    for (const auto& [key, v] : sec.items()) {
      const json& a = pr["sections"][name][key];
      check_per_rank(a, size, v.is_number_integer(), name + "/" + key);
      check_sum(a, v, name + "/" + key);
    }
}
}  // namespace

TEST_CASE("report: finalize writes the JSON report and the HDF5 trace", "[report]") {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // One directory per run, named by rank 0.
  char dir[64] = "/tmp/gaea-report-XXXXXX";
  if (rank == 0 && !mkdtemp(dir)) FAIL("mkdtemp failed");
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  const std::string json = std::string(dir) + "/report.json", h5 = std::string(dir) + "/trace.h5";
  // Paths that cannot be written at finalize are refused at start-up, on every rank, before
  // anything is created: a directory, a missing directory, a device.
  setenv("GAEA_TRACE", dir, 1);
  CHECK_THROWS_WITH(gaea::runtime(), Catch::Contains("GAEA_TRACE") && Catch::Contains(dir) &&
                                         Catch::Contains("a directory"));
  setenv("GAEA_TRACE", "/dev/full", 1);
  CHECK_THROWS_WITH(gaea::runtime(), Catch::Contains("character device"));
  unsetenv("GAEA_TRACE");
  setenv("GAEA_REPORT", (std::string(dir) + "/missing/report.json").c_str(), 1);
  CHECK_THROWS_WITH(gaea::runtime(),
                    Catch::Contains("GAEA_REPORT") && Catch::Contains("does not exist"));
  setenv("GAEA_REPORT", json.c_str(), 1);
  setenv("GAEA_TRACE", h5.c_str(), 1);
  // The report must count active messages: target-driven accumulates send one per call (auto
  // would add straight into a mapped owner on a node, without a message).
  setenv("GAEA_ACC", "target", 1);
  const std::int64_t n = 4096;
  {
    gaea::runtime rt;
    {
      gaea::global_array<double> a("reported", {n * size});
      a.zero();
      std::vector<double> buf(static_cast<std::size_t>(n), 1.0);
      const std::int64_t right = (rank + 1) % size;
      for (int i = 0; i < 10; ++i)
        a.acc(gaea::ga::patch({right * n}, {right * n + n - 1}), buf);
      a.sync();
      a.get(gaea::ga::patch({right * n}, {right * n + n - 1}), buf);
      CHECK(buf[0] == 10.0);
    }
  }
  unsetenv("GAEA_REPORT");
  unsetenv("GAEA_TRACE");
  unsetenv("GAEA_ACC");
  if (rank == 0) {
    std::ifstream in(json);
    REQUIRE(in.good());
    const nlohmann::json j = nlohmann::json::parse(in);
    check_report_schema(j, size);
    CHECK(j["operations"]["active_message"]["count"].get<std::int64_t>() >= 10 * size);
    CHECK(j["operations"]["active_message"]["bytes"].get<std::int64_t>() >= 10 * size * n * 8);
    CHECK(j["wall_s"].get<double>() > 0);
    CHECK(j["cpu_s"].get<double>() > 0);
    CHECK(j["energy"]["joules"].get<double>() > 0);
    // The ranks' "global arrays" section counts the accumulates: 10 per rank.
    CHECK(j["sections"]["global arrays"]["acc_calls"] == 10 * size);
    CHECK(j["dvfs"]["actuator"] == "simulated");
    // No energy manager in the test environment: Gaea's own (simulated) DVFS, nothing marked.
    CHECK(j["energy_manager"]["mode"].get<std::string>().starts_with("own DVFS (simulated)"));
    CHECK(j["energy_manager"]["regions_entered"] == 0);
    CHECK(j["slowdown"].contains("held"));
    // The trace: one group per rank, with columns of equal length.
    const h5_handle file(H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    REQUIRE(file.ok());
    for (int r = 0; r < size; ++r) {
      const std::string g = "/rank_" + std::to_string(r);
      const h5_handle t(H5Dopen2(file.get(), (g + "/t_s").c_str(), H5P_DEFAULT), H5Dclose);
      const h5_handle s(H5Dopen2(file.get(), (g + "/state").c_str(), H5P_DEFAULT), H5Dclose);
      REQUIRE(t.ok());
      REQUIRE(s.ok());
      const h5_handle ts(H5Dget_space(t.get()), H5Sclose), ss(H5Dget_space(s.get()), H5Sclose);
      hsize_t nt = 0, ns = 0;
      H5Sget_simple_extent_dims(ts.get(), &nt, nullptr);
      H5Sget_simple_extent_dims(ss.get(), &ns, nullptr);
      CHECK(nt == ns);
      CHECK(nt > 0);
    }
    // Exactly the two files: no temporary left beside them.
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    CHECK(names == std::vector<std::string>{"report.json", "trace.h5"});
    std::filesystem::remove_all(dir);
  }
  MPI_Finalize();
}
