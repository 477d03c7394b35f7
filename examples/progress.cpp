// gaea::progress: how a rank waits and who serves its peers meanwhile. Under each progress mode
// in turn (scoped_mode switches it for a scope), ranks 1.. send remote fetch-adds to a counter on
// rank 0 while rank 0 computes without calling Gaea: its progress thread serves them. Rank 0
// checks each round's count; rank 1 prints its time per fetch-add and its waits per mode. (With
// UCX_TLS=sm the atomics are CPU atomics that need no server; tcp shows the service.)
//   mpirun -np 4 gaea-example-progress
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "gaea/comm/completion.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/segment.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"

namespace {
// Work that makes no Gaea call: nothing on this thread serves the transport meanwhile.
double compute(std::chrono::milliseconds d) {
  double x = 0;
  const auto end = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < end)
    for (int i = 1; i < 1000; ++i)
      x += 1.0 / i;
  return x;
}
}  // namespace

int main(int argc, char** argv) {
  return gaea::run_main("gaea-example-progress", &argc, &argv, [](gaea::runtime& rt) {
    using gaea::progress::mode;
    gaea::comm::segment seg(rt.comm(), sizeof(std::int64_t), "counter");  // collective
    gaea::comm::worker& w = rt.worker();
    constexpr int per_round = 100;
    int bad = 0, round = 0;
    std::string line;  // rank 1's times
    for (const mode m : {mode::spin, mode::adaptive, mode::interrupt, mode::automatic}) {
      gaea::progress::scoped_mode guard(rt.progress(), m, /*dvfs=*/false);  // every rank alike
      ++round;
      const auto waits_before = rt.progress().totals().waits;
      const auto t0 = std::chrono::steady_clock::now();
      if (rt.rank() == 0) {
        compute(std::chrono::milliseconds(20));
      } else {
        gaea::comm::completion c;
        for (std::int64_t i = 0, old = 0; i < per_round; ++i) {
          w.fetch_add(0, seg, 0, 1, &old, c);
          rt.wait(c);  // waits by the current mode
        }
      }
      const double us =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
          per_round;
      rt.barrier();
      if (rt.rank() == 0) {
        std::int64_t total = 0;
        gaea::comm::completion c;
        w.get(0, seg, 0, &total, sizeof total, c);
        rt.wait(c);
        bad += total != std::int64_t{per_round} * (rt.size() - 1) * round;
      } else {
        char part[96];
        std::snprintf(part, sizeof part, " %s %.1f us/op (%llu waits)",
                      std::string(gaea::progress::to_string(m)).c_str(), us,
                      static_cast<unsigned long long>(rt.progress().totals().waits - waits_before));
        line += part;
      }
      rt.barrier();
    }
    if (rt.rank() == std::min(1, rt.size() - 1))
      std::printf("progress: %d ranks, fetch-adds to a computing rank 0:%s\n", rt.size(),
                  line.empty() ? " (one rank: nothing to serve)" : line.c_str());
    if (rt.rank() == 0)
      std::printf("progress: rank 0 counted all fetch-adds of %d rounds: %s\n", round,
                  bad ? "FAILED" : "ok");
    return bad == 0 ? 0 : 1;
  });
}
