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
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gaea/ga/global_array.hpp"
#include "gaea/runtime/runtime.hpp"

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
    CHECK(j["ranks"] == size);
    CHECK(j["operations"]["active_message"]["count"].get<double>() >= 10.0 * size);
    CHECK(j["operations"]["active_message"]["bytes"].get<double>() >= 10.0 * size * n * 8);
    CHECK(j["wall_s"].get<double>() > 0);
    CHECK(j["cpu_s"].get<double>() > 0);
    CHECK(j["energy"]["joules"].get<double>() > 0);
    // Every energy figure says where it comes from.
    const std::string kind = j["energy"]["kind"];
    CHECK((kind == "measured" || kind == "estimated"));
    CHECK(!j["energy"]["source"].get<std::string>().empty());
    CHECK(j["dvfs"]["actuator"] == "simulated");
    CHECK(j["slowdown"].contains("held"));
    // The trace: one group per rank, with columns of equal length.
    const hid_t f = H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0);
    for (int r = 0; r < size; ++r) {
      const std::string g = "/rank_" + std::to_string(r);
      const hid_t t = H5Dopen2(f, (g + "/t_s").c_str(), H5P_DEFAULT);
      const hid_t s = H5Dopen2(f, (g + "/state").c_str(), H5P_DEFAULT);
      REQUIRE(t >= 0);
      REQUIRE(s >= 0);
      const hid_t ts = H5Dget_space(t), ss = H5Dget_space(s);
      hsize_t nt = 0, ns = 0;
      H5Sget_simple_extent_dims(ts, &nt, nullptr);
      H5Sget_simple_extent_dims(ss, &ns, nullptr);
      CHECK(nt == ns);
      CHECK(nt > 0);
      H5Sclose(ts);
      H5Sclose(ss);
      H5Dclose(t);
      H5Dclose(s);
    }
    H5Fclose(f);
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
