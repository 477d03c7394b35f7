// gaea::trace: recording an application's own regions and counters. Inside a Gaea program the
// runtime runs the session (set GAEA_TRACE=run.json or run.otf2) and the program only marks its
// phases with scoped_region and counter(); this example runs a session itself, with two threads,
// collects what they recorded and writes it as a Chrome trace (open it in chrome://tracing or
// Perfetto). Single process; no MPI.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>

#include <unistd.h>

#include "gaea/trace/job_trace.hpp"
#include "gaea/trace/recorder.hpp"
#include "gaea/trace/writers.hpp"

namespace {
// The instrumented code: a solver with steps and a residual counter.
double solve(int steps) {
  gaea::trace::scoped_region whole("solve");
  double residual = 1.0;
  for (int s = 0; s < steps; ++s) {
    gaea::trace::scoped_region step("solve.step", [&] { return gaea::trace::region_args{8, -1}; });
    residual *= 0.5;
    gaea::trace::counter("residual", residual);
  }
  return residual;
}
}  // namespace

int main() {
  namespace tr = gaea::trace;
  tr::start(/*events_per_thread=*/1000, /*record=*/true);  // the runtime does this under GAEA_TRACE
  std::thread helper([] {
    tr::name_thread("helper");
    solve(3);
  });
  solve(5);
  helper.join();
  tr::stop();

  // Turn the threads' records into one rank's trace and write it.
  tr::rank_trace rank;
  std::size_t regions = 0, counters = 0;
  for (const tr::thread_record& t : tr::collect()) {
    const auto thread = static_cast<std::uint32_t>(rank.threads.size());
    rank.threads.push_back({t.name, t.dropped});
    for (const tr::event& e : t.events) {
      if (e.kind == tr::event::region) {
        rank.regions.push_back({thread, rank.name_id(e.name), e.t0_ns, e.t1_ns, e.bytes, e.peer});
        ++regions;
      } else {
        rank.counters.push_back({thread, rank.name_id(e.name), e.t0_ns, e.value});
        ++counters;
      }
    }
  }
  std::vector<tr::rank_trace> ranks{rank};
  tr::align(ranks);
  tr::nest(ranks[0].regions);
  const std::filesystem::path out = std::filesystem::temp_directory_path() /
                                    ("gaea-example-trace." + std::to_string(::getpid()) + ".json");
  tr::write_chrome_json(out, ranks, {"gaea-example-trace", 1000});
  const auto bytes = std::filesystem::file_size(out);
  std::filesystem::remove(out);

  // Two threads: (1 + 5) and (1 + 3) regions, 5 + 3 counter samples.
  const bool ok = regions == 10 && counters == 8 && ranks[0].threads.size() == 2 && bytes > 0;
  std::printf(
      "trace: %zu regions and %zu counter samples on %zu threads, %ju bytes of Chrome "
      "JSON: %s\n",
      regions, counters, ranks[0].threads.size(), static_cast<std::uintmax_t>(bytes),
      ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
