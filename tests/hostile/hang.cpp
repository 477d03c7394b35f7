// gaea-hang: one rank leaves out a collective call that the others make (or makes it late), so
// that the hostile suite can check the hang warning (GAEA_HANG_WARN), the watchdog
// (GAEA_HANG_TIMEOUT) and the end of the job (tests/hostile/cases/hangs.cmake).
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "ga.h"
#include "gaea/comm/context.hpp"
#include "gaea/comm/handler_ids.hpp"
#include "gaea/ga/global_array.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"

namespace {

constexpr const char* usage =
    "usage: gaea-hang <scenario> [rank [seconds]]\n"
    "scenarios (<rank>, default 1, is the odd one; it computes until the job fails, or for at\n"
    "most <seconds>, default 30, and then fails itself: a second fault, exit 3):\n"
    "  barrier       leaves out a runtime barrier\n"
    "  sync          leaves out a global_array's sync()\n"
    "  create        leaves out a global_array's creation\n"
    "  ga-sync       leaves out GA_Sync (GA C API)\n"
    "  unregistered  the others register an application's message handler and send to it; it\n"
    "                never registered that handler\n"
    "  late          enters a barrier 3 s after the others, then every rank exits 0\n";

int g_seconds = 30;

// The odd rank "computes" (outside Gaea) until the job fails, as a real program would until its
// next Gaea call, which then throws the failure; after g_seconds it fails itself.
void compute_until_failed() {
  gaea::runtime& rt = gaea::runtime::current();
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(g_seconds);
  while (!rt.failed() && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (!rt.failed())
    rt.fail("gaea-hang: rank " + std::to_string(rt.rank()) + " gives up after " +
                std::to_string(g_seconds) + " s (a second fault)",
            3);
}

int run(gaea::runtime& rt, const std::string& scenario, int on) {
  const bool odd = rt.rank() == on;
  if (scenario == "barrier") {
    if (odd)
      compute_until_failed();
    else
      rt.barrier();
  } else if (scenario == "sync") {
    gaea::ga::global_array<double> a("synced", {64});
    if (odd)
      compute_until_failed();
    else
      a.sync();
  } else if (scenario == "create") {
    if (odd) {
      compute_until_failed();
    } else {
      gaea::ga::global_array<double> b("left_out", {64});
    }
  } else if (scenario == "unregistered") {
    // The ranks disagree about which objects exist: the others' message finds no handler here.
    if (odd) {
      rt.barrier();  // inside Gaea (progressing, also with GAEA_PROGRESS=off) when it arrives
    } else {
      rt.comm().register_handler(gaea::comm::handler_ids::user_first,
                                 [](const gaea::comm::am_message&) {});
      gaea::comm::completion sent;
      rt.worker().am_send(on, gaea::comm::handler_ids::user_first, {}, {}, sent, nullptr);
      rt.progress().wait(rt.worker(), sent);
    }
  } else if (scenario == "late") {
    if (odd) std::this_thread::sleep_for(std::chrono::seconds(3));
    rt.barrier();
    return 0;
  } else {
    std::fprintf(stderr, "gaea-hang: unknown scenario '%s'\n%s", scenario.c_str(), usage);
    return 2;
  }
  rt.barrier();  // after a failure: throws it
  return 0;
}

// The GA C API: errors end the job inside the layer (GA_Error's path, through runtime::fail).
int run_ga(int argc, char** argv, int on) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  if (GA_Nodeid() == on)
    compute_until_failed();
  else
    GA_Sync();
  GA_Sync();
  GA_Terminate();
  MPI_Finalize();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fputs(usage, stderr);
    return 2;
  }
  const std::string scenario = argv[1];
  const int on = argc >= 3 ? std::atoi(argv[2]) : 1;
  if (argc == 4) g_seconds = std::atoi(argv[3]);
  if (scenario == "ga-sync") return run_ga(argc, argv, on);
  gaea::runtime rt(&argc, &argv);
  try {
    return run(rt, scenario, on);
  } catch (const std::exception& e) {
    rt.fail(e.what(), 3);
  }
}
