// idle_cost: CPU time a rank burns while its application thread sleeps outside the library for
// T seconds (that is the progress thread's idle cost), per progress mode. Run it once per mode:
//   for m in spin adaptive off; do GAEA_PROGRESS=$m mpirun -np 2 build/bench/idle_cost 2; done
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

#include "cli.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"

namespace {
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "idle_cost: CPU time a rank burns while its application thread sleeps outside the "
      "library (the progress thread's idle cost); run it once per GAEA_PROGRESS mode"};
  apps::conventions(app, "idle_cost");
  double seconds = 2.0;
  app.add_option("seconds", seconds, "how long the application thread sleeps")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;
  // An error on any rank ends the job with its message on every rank.
  return gaea::run_main("idle_cost", &argc, &argv, [&](gaea::runtime& rt) {
    const gaea::coll::group& world = gaea::coll::world();  // collective on first use
    rt.barrier();
    const double c0 = cpu_seconds();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    const double used = cpu_seconds() - c0;
    double worst = 0;
    gaea::coll::reduce(world, std::span<const double>(&used, 1), std::span<double>(&worst, 1),
                       gaea::coll::reduce_op::max, 0);
    const auto s = rt.progress().thread_stats();
    if (rt.rank() == 0)
      std::printf(
          "{\"bench\":\"idle_cost\",\"mode\":\"%s\",\"ranks\":%d,\"seconds\":%.1f,"
          "\"cpu_fraction_max\":%.4f,\"progress_steps_rank0\":%llu}\n",
          std::string(gaea::progress::to_string(rt.progress().current_mode())).c_str(), rt.size(),
          seconds, worst / seconds, static_cast<unsigned long long>(s.steps));
    rt.barrier();
    return 0;
  });
}
