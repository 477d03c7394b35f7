// GAEA_TRACE=<file>.json and <file>.otf2 at finalize: a small program does known numbers of
// gets, puts, accumulates, fences, counter fetches, tasks and collectives under a trace, and
// rank 0 reads the file back: the JSON against the Chrome trace-event format's rules (metadata
// for every rank and thread, complete events with non-negative durations, per-thread
// timestamps in order and properly nested), the OTF2 archive through `otf2-print` (OTF2's own
// reader: ENTER/LEAVE balanced per location, region counts, RMA records of every one-sided
// operation, the hosts in the system tree). Then a tiny buffer (events dropped
// and reported, the file still valid) and paths refused at start-up on every rank.
#include <mpi.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#include "checked_json.hpp"

#include "gaea/coll/collectives.hpp"
#include "gaea/counters/shared_counter.hpp"
#include "gaea/counters/task_pool.hpp"
#include "gaea/ga/global_array.hpp"
#include "gaea/runtime/runtime.hpp"

namespace {
using json = nlohmann::json;

// How many calls of each kind the workload makes on every rank.
constexpr int n_get = 7, n_put = 5, n_acc = 3, n_nbget = 4, n_fence = 6, n_fetch = 9, n_bcast = 2;
constexpr int n_tasks = 20;

// The traced program: every rank the same calls (counts above), on its right neighbour's block.
void workload(int rank, int size) {
  const std::int64_t n = 64;
  gaea::global_array<double> a("traced", {n * size});
  a.zero();
  std::vector<double> buf(static_cast<std::size_t>(n), 1.0);
  const std::int64_t right = (rank + 1) % size;
  const gaea::ga::patch p({right * n}, {right * n + n - 1});
  for (int i = 0; i < n_put; ++i)
    a.put(p, buf);
  for (int i = 0; i < n_fence; ++i)
    a.fence();
  for (int i = 0; i < n_acc; ++i)
    a.acc(p, buf);
  for (int i = 0; i < n_get; ++i)
    a.get(p, buf);
  for (int i = 0; i < n_nbget; ++i) {
    gaea::ga::request r = a.get(p, buf, gaea::nonblocking);
    r.wait();
  }
  a.sync();
  gaea::counters::shared_counter c("traced_counter");
  for (int i = 0; i < n_fetch; ++i)
    c.fetch_add(1);
  gaea::counters::task_pool_options po;
  po.threads = 2;
  po.executor = gaea::counters::pool_executor::threads;
  gaea::counters::task_pool pool("traced_pool", po);
  pool.run(n_tasks, [](std::int64_t) {});
  gaea::coll::options o;
  o.algo = gaea::coll::algorithm::chain;
  std::vector<double> v(16, rank == 0 ? 2.0 : 0.0);
  for (int i = 0; i < n_bcast; ++i)
    gaea::coll::broadcast(gaea::coll::world(), std::span(v), 0, o);
  CHECK(v[0] == 2.0);
}

// One traced run: the environment set, the workload, the runtime destroyed (writing the file).
// Rank 0's stderr during the run is returned (the dropped-events line is printed there).
std::string traced_run(int rank, int size, const std::string& file, const char* events = nullptr) {
  setenv("GAEA_TRACE", file.c_str(), 1);
  if (events) setenv("GAEA_TRACE_EVENTS", events, 1);
  char err_name[] = "/tmp/gaea-trace-stderr-XXXXXX";
  int saved = -1, err_fd = -1;
  if (rank == 0) {
    err_fd = mkstemp(err_name);
    REQUIRE(err_fd >= 0);
    std::fflush(stderr);
    saved = dup(2);
    dup2(err_fd, 2);
  }
  {
    gaea::runtime rt;
    workload(rank, size);
  }
  unsetenv("GAEA_TRACE");
  unsetenv("GAEA_TRACE_EVENTS");
  std::string err;
  if (rank == 0) {
    std::fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(err_fd);
    std::ifstream in(err_name);
    std::stringstream ss;
    ss << in.rdbuf();
    err = ss.str();
    std::remove(err_name);
  }
  return err;
}

// Times in ns (the file's µs have three decimals): integers, so that ends compare exactly.
struct slice {
  std::int64_t ts, end;
  std::string name;
};
std::int64_t ns(const json& us) {
  return std::llround(us.get<double>() * 1000.0);
}

// The Chrome trace-event format's rules for the JSON object form, and the region counts. Returns
// the X events per region name, summed over ranks.
std::map<std::string, int> check_chrome_json(const json& j, int size) {
  REQUIRE(j.is_object());
  REQUIRE(j["traceEvents"].is_array());
  CHECK(j["otherData"]["producer"].get<std::string>().find("Gaea") == 0);
  std::map<int, std::string> process_names;
  std::map<std::pair<int, int>, std::string> thread_names;
  std::map<std::pair<int, int>, std::vector<slice>> slices;
  std::map<std::pair<int, int>, double> last_counter_ts;
  std::map<std::string, int> counts;
  int counters = 0;
  for (const json& e : j["traceEvents"]) {
    REQUIRE(e.is_object());
    REQUIRE(e["name"].is_string());
    REQUIRE(e["ph"].is_string());
    REQUIRE(e["pid"].is_number_integer());
    REQUIRE(e["tid"].is_number_integer());
    const std::string ph = e["ph"];
    const int pid = e["pid"], tid = e["tid"];
    CHECK(pid >= 0);
    CHECK(pid < size);
    if (ph == "M") {
      // contains() first: a const json's operator[] on a missing key is undefined behaviour.
      REQUIRE(e.contains("args"));
      const json& args = e["args"];
      const bool named = args.contains("name") && args["name"].is_string();
      REQUIRE(named == (e["name"] != "process_sort_index"));
      if (e["name"] == "process_name") process_names[pid] = args["name"];
      if (e["name"] == "thread_name") thread_names[{pid, tid}] = args["name"];
      continue;
    }
    REQUIRE(e["ts"].is_number());
    const double ts = e["ts"];
    CHECK(ts >= 0);
    if (ph == "X") {
      REQUIRE(e["dur"].is_number());
      const double dur = e["dur"];
      CHECK(dur >= 0);
      slices[{pid, tid}].push_back({ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["name"]});
      ++counts[e["name"]];
    } else if (ph == "C") {
      REQUIRE(e["args"].is_object());
      REQUIRE(e["args"].size() == 1);
      CHECK(e["args"].begin()->is_number());
      auto [it, fresh] = last_counter_ts.try_emplace({pid, tid}, ts);
      CHECK(it->second <= ts);  // per thread in time order
      it->second = ts;
      ++counters;
    } else {
      FAIL("unexpected phase " << ph);
    }
  }
  // Metadata for every rank and for every thread that has events.
  for (int r = 0; r < size; ++r)
    CHECK(process_names[r] == "rank " + std::to_string(r));
  for (const auto& [key, list] : slices) {
    INFO("rank " << key.first << " thread " << key.second);
    CHECK(thread_names.count(key) == 1);
    // Per thread: begins in order, and every slice inside the one open around it.
    std::vector<std::int64_t> open;
    std::int64_t last = -1;
    for (const slice& s : list) {
      CHECK(s.ts >= last);
      last = s.ts;
      while (!open.empty() && open.back() <= s.ts)
        open.pop_back();
      if (!open.empty()) CHECK(s.end <= open.back());
      open.push_back(s.end);
    }
  }
  CHECK(counters > 0);  // frequency and power of every waiting thread
  // Thread 0 is the main thread and thread 1 the progress thread of every rank.
  for (int r = 0; r < size; ++r) {
    CHECK(thread_names[{r, 0}] == "main");
    CHECK(thread_names[{r, 1}] == "progress");
  }
  return counts;
}

// X events named `name` not inside an X event named `outer` on the same thread, summed over
// ranks and threads (a sync fences too; a task counter fetches from its shared counter).
int outside(const json& j, const std::string& name, const std::string& outer) {
  std::map<std::pair<int, int>, std::vector<slice>> outers, inners;
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const std::int64_t ts = ns(e["ts"]), end = ts + ns(e["dur"]);
    if (e["name"] == outer) outers[{e["pid"], e["tid"]}].push_back({ts, end, ""});
    if (e["name"] == name) inners[{e["pid"], e["tid"]}].push_back({ts, end, ""});
  }
  int n = 0;
  for (const auto& [key, list] : inners)
    for (const slice& f : list) {
      bool inside = false;
      for (const slice& s : outers[key])
        inside = inside || (s.ts <= f.ts && f.end <= s.end);
      n += inside ? 0 : 1;
    }
  return n;
}

std::string run_command(const std::string& cmd, int* status) {
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return out;
  char line[4096];
  while (std::fgets(line, sizeof line, f))
    out += line;
  *status = pclose(f);
  return out;
}

// Rank 0 broadcasts a verdict so that every rank's Catch2 result agrees.
void shared_dir(int rank, char (&dir)[64]) {
  std::snprintf(dir, sizeof dir, "/tmp/gaea-trace-XXXXXX");
  if (rank == 0 && !mkdtemp(dir)) FAIL("mkdtemp failed");
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
}
}  // namespace

TEST_CASE("trace: JSON and OTF2 traces hold every call's region and open in standard readers",
          "[trace]") {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char dir[64];
  shared_dir(rank, dir);
  const std::string d(dir);

  {  // JSON
    traced_run(rank, size, d + "/run.json");
    if (rank == 0) {
      std::ifstream in(d + "/run.json");
      REQUIRE(in.good());
      const json j = json::parse(in);
      const auto counts = check_chrome_json(j, size);
      auto count = [&](const char* name) {
        const auto it = counts.find(name);
        return it == counts.end() ? 0 : it->second;
      };
      CHECK(count("ga.get") == n_get * size);
      CHECK(count("ga.put") == n_put * size);
      CHECK(count("ga.acc") == n_acc * size);
      CHECK(count("ga.nbget") == n_nbget * size);
      CHECK(count("ga.wait") == n_nbget * size);
      CHECK(outside(j, "ga.fence", "ga.sync") == n_fence * size);
      CHECK(count("ga.sync") >= size);
      CHECK(outside(j, "counter.fetch_add", "task_counter.next") == n_fetch * size);
      CHECK(count("task") == n_tasks);
      CHECK(count("task_pool.run") == size);
      CHECK(count("coll.broadcast.chain") == n_bcast * size);
      CHECK(count("barrier") >= size);
      CHECK(count("wait.spin") + count("wait.sleep") + count("wait.block") > 0);
      CHECK(j["otherData"]["dropped_events"] == 0);
      CHECK(j["otherData"]["events_per_thread"] == 1 << 20);
    }
  }

  {  // OTF2
    traced_run(rank, size, d + "/run.otf2");
    if (rank == 0) {
      // The archive: anchor, definitions and event directory, and no temporary left.
      CHECK(std::filesystem::is_regular_file(d + "/run.otf2"));
      CHECK(std::filesystem::is_regular_file(d + "/run.def"));
      CHECK(std::filesystem::is_directory(d + "/run"));
      for (const auto& e : std::filesystem::directory_iterator(d))
        CHECK(e.path().filename().string().find(".tmp") == std::string::npos);
      int status = -1;
      const std::string out =
          run_command(std::string(GAEA_OTF2_PRINT) + " " + d + "/run.otf2", &status);
      INFO(out.substr(0, 4000));
      REQUIRE(status == 0);
      // otf2-print: one line per event, "<RECORD> <location> <time> ... Region: "<name>" <id>".
      // Per location: ENTER/LEAVE counts and the stack of open regions (a LEAVE closes the
      // innermost); ENTERs per region name, fetch-and-adds outside a task counter's.
      std::map<std::string, std::pair<int, int>> per_location;  // enters, leaves
      std::map<std::string, std::vector<std::string>> open;
      std::map<std::string, int> enters, records;
      int user_fetches = 0;
      std::istringstream lines(out);
      for (std::string line; std::getline(lines, line);) {
        std::istringstream f(line);
        std::string record, location;
        f >> record >> location;
        ++records[record];
        if (record.starts_with("RMA_") && record != "RMA_WIN_CREATE" &&
            record != "RMA_WIN_DESTROY" && record != "RMA_OP_COMPLETE_BLOCKING") {
          // An operation names its target: a rank of the job.
          const auto q = line.find("Remote: ");
          REQUIRE(q != std::string::npos);
          CHECK(std::stoi(line.substr(q + 8)) < size);
        }
        if (record != "ENTER" && record != "LEAVE") continue;
        const auto q = line.find("Region: \"");
        REQUIRE(q != std::string::npos);
        const auto q2 = line.find('"', q + 9);
        const std::string region = line.substr(q + 9, q2 - q - 9);
        auto& stack = open[location];
        if (record == "ENTER") {
          ++per_location[location].first;
          ++enters[region];
          if (region == "counter.fetch_add" &&
              std::find(stack.begin(), stack.end(), "task_counter.next") == stack.end())
            ++user_fetches;
          stack.push_back(region);
        } else {
          ++per_location[location].second;
          REQUIRE(!stack.empty());
          CHECK(stack.back() == region);
          stack.pop_back();
        }
      }
      CHECK(per_location.size() >= static_cast<std::size_t>(2 * size));  // main and progress
      for (const auto& [loc, el] : per_location) {
        INFO("location " << loc);
        CHECK(el.first == el.second);
      }
      CHECK(enters["ga.get"] == n_get * size);
      CHECK(enters["ga.put"] == n_put * size);
      CHECK(enters["ga.acc"] == n_acc * size);
      CHECK(user_fetches == n_fetch * size);
      CHECK(enters["task"] == n_tasks);
      CHECK(enters["coll.broadcast.chain"] == n_bcast * size);
      CHECK(enters["wait.spin"] + enters["wait.sleep"] + enters["wait.block"] > 0);
      // One-sided operations as RMA records on two windows made by every rank, each operation
      // completed (blocking ones at their end, non-blocking ones at their wait or sync).
      CHECK(records["RMA_WIN_CREATE"] == 2 * size);
      CHECK(records["RMA_WIN_DESTROY"] == 2 * size);
      CHECK(records["RMA_PUT"] == n_put * size);
      CHECK(records["RMA_GET"] == (n_get + n_nbget) * size + enters["counter.read"]);
      CHECK(records["RMA_ATOMIC"] == n_acc * size + enters["counter.fetch_add"] +
                                         enters["counter.nbfetch_add"] +
                                         enters["counter.compare_swap"]);
      CHECK(records["RMA_OP_COMPLETE_BLOCKING"] ==
            records["RMA_PUT"] + records["RMA_GET"] + records["RMA_ATOMIC"]);
      // The metrics and the location groups, from the global definitions.
      const std::string defs =
          run_command(std::string(GAEA_OTF2_PRINT) + " -G " + d + "/run.otf2", &status);
      REQUIRE(status == 0);
      CHECK(defs.find("frequency_khz") != std::string::npos);
      CHECK(defs.find("power_w") != std::string::npos);
      CHECK(defs.find("\"rank " + std::to_string(size - 1) + "\"") != std::string::npos);
      // The system tree: this host as a node holding the ranks; the windows and their
      // communicator.
      char host[256] = {};
      ::gethostname(host, sizeof host - 1);
      CHECK(defs.find("\"" + std::string(host) + "\"") != std::string::npos);
      CHECK(defs.find("\"node\"") != std::string::npos);
      CHECK(defs.find("\"global arrays\"") != std::string::npos);
      CHECK(defs.find("\"shared counters\"") != std::string::npos);
    }
  }

  {  // a bounded buffer
    // 16 events per thread: far fewer than the workload records.
    const std::string err = traced_run(rank, size, d + "/small.json", "16");
    if (rank == 0) {
      std::ifstream in(d + "/small.json");
      REQUIRE(in.good());
      const json j = json::parse(in);
      check_chrome_json(j, size);
      CHECK(j["otherData"]["events_per_thread"] == 16);
      CHECK(j["otherData"]["dropped_events"].get<std::int64_t>() > 0);
      std::map<std::pair<int, int>, int> recorded;
      for (const json& e : j["traceEvents"])
        if (e["ph"] == "X" && !e["name"].get<std::string>().starts_with("wait."))
          ++recorded[{e["pid"], e["tid"]}];
      for (const auto& [key, n] : recorded)
        CHECK(n <= 16);
      CHECK(err.find("GAEA_TRACE:") != std::string::npos);
      CHECK(err.find("dropped") != std::string::npos);
    }
  }

  {  // bad paths
    // Refused at start-up, on every rank, before anything is created.
    setenv("GAEA_TRACE", (d + "/missing/run.json").c_str(), 1);
    CHECK_THROWS_WITH(gaea::runtime(),
                      Catch::Contains("GAEA_TRACE") && Catch::Contains("does not exist"));
    setenv("GAEA_TRACE", (d + "/missing/run.otf2").c_str(), 1);
    CHECK_THROWS_WITH(gaea::runtime(),
                      Catch::Contains("GAEA_TRACE") && Catch::Contains("does not exist"));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) std::ofstream(d + "/file") << "x";
    MPI_Barrier(MPI_COMM_WORLD);
    setenv("GAEA_TRACE", (d + "/file.otf2").c_str(), 1);
    CHECK_THROWS_WITH(gaea::runtime(), Catch::Contains("GAEA_TRACE") &&
                                           Catch::Contains("'" + d + "/file'") &&
                                           Catch::Contains("not an earlier archive"));
    // The report and the trace in one file: the trace would replace the report.
    setenv("GAEA_TRACE", (d + "/both.json").c_str(), 1);
    setenv("GAEA_REPORT", (d + "/./both.json").c_str(), 1);
    CHECK_THROWS_WITH(gaea::runtime(),
                      Catch::Contains("GAEA_REPORT") && Catch::Contains("name the same file"));
    unsetenv("GAEA_REPORT");
    setenv("GAEA_TRACE", (d + "/run.json").c_str(), 1);
    setenv("GAEA_TRACE_EVENTS", "0", 1);
    CHECK_THROWS_WITH(gaea::runtime(), Catch::Contains("GAEA_TRACE_EVENTS"));
    unsetenv("GAEA_TRACE_EVENTS");
    unsetenv("GAEA_TRACE");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::filesystem::remove_all(d);
  MPI_Finalize();
}
