// gaea-hold <dir|-> [arrays]: keeps a job's shared objects alive while something outside the job
// probes them (tests/hostile/cases/isolation.cmake). Every rank fills a global array and a
// counter with known values (and `arrays` more small arrays, all alive at once); rank 0 writes
// <dir>/ready; every rank waits (at most 60 s) for <dir>/done, then checks that nothing changed
// its part and exits 0 (3 if a value changed, 4 if done never came). With "-" it does not wait.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "gaea/counters/shared_counter.hpp"
#include "gaea/ga/global_array.hpp"
#include "gaea/runtime/runtime.hpp"

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: gaea-hold <dir|-> [arrays]\n");
    return 2;
  }
  const std::string dir_arg = argv[1];
  const std::filesystem::path dir = dir_arg;
  const long more = argc == 3 ? std::stol(argv[2]) : 0;
  return gaea::run_main("hold", &argc, &argv, [&](gaea::runtime& rt) {
    const std::int64_t n = 1 << 16;
    gaea::global_array<double> a("held", {n * rt.size()});
    const std::int64_t lo = n * rt.rank(), hi = lo + n - 1;
    std::vector<double> mine(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      mine[static_cast<std::size_t>(i)] = 1000.0 * rt.rank() + static_cast<double>(i);
    a.put({{lo}, {hi}}, mine);
    a.sync();
    gaea::counters::shared_counter c("held_counter");
    std::vector<gaea::global_array<double>> many;
    many.reserve(static_cast<std::size_t>(more));
    for (long i = 0; i < more; ++i)
      many.emplace_back("many_" + std::to_string(i), gaea::ga::index{64 * rt.size()});
    rt.barrier();
    if (rt.rank() == 0 && dir_arg != "-") std::ofstream(dir / "ready") << "ready\n";
    bool done = dir_arg == "-";
    for (int i = 0; i < 600 && !done; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      done = std::filesystem::exists(dir / "done");
    }
    rt.barrier();
    std::vector<double> now(mine.size());
    a.get({{lo}, {hi}}, now);
    if (now != mine) {
      std::fprintf(stderr, "gaea-hold: rank %d: the array's values changed from outside\n",
                   rt.rank());
      return 3;
    }
    return done ? 0 : 4;
  });
}
