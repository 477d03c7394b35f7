// gaea-fault: injects one fault on one rank, so that the hostile suite can check how the whole job
// ends (tests/hostile/cases/failures.cmake). Every scenario first creates objects whose
// destructors are collective (a global array, a collective on a group), as real programs do.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "gaea/base/error.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/ga/global_array.hpp"
#include "gaea/runtime/runtime.hpp"

namespace {

constexpr const char* usage =
    "usage: gaea-fault <scenario> [rank]\n"
    "scenarios (the fault happens on <rank>, default 1; the other ranks are in a collective):\n"
    "  throw            a gaea::error, caught at the top and passed to runtime::fail (exit 3)\n"
    "  throw-in-coll    the same while the others wait in an allreduce\n"
    "  unguarded        a gaea::error that unwinds through the runtime's destructor\n"
    "  terminate        an exception thrown through a noexcept function\n"
    "  skip-barrier     the rank leaves out one barrier the others call\n"
    "  stop             the rank stops itself (SIGSTOP)\n"
    "  sleep            the rank sleeps 60 s before the barrier (for kill -9 from outside)\n"
    "  array-after-runtime  (every rank) a global array destroyed after the runtime (exit 0)\n";

[[noreturn]] void throw_fault(int rank) {
  throw gaea::error("injected fault on rank " + std::to_string(rank) + " (through noexcept)");
}
// The call goes through a pointer, so the compiler cannot see (and warn) that it terminates.
void (*volatile g_thrower)(int) = throw_fault;
void throw_through_noexcept(int rank) noexcept {
  g_thrower(rank);
}

int run(gaea::runtime& rt, const std::string& scenario, int on) {
  const bool me = rt.rank() == on;
  gaea::ga::global_array<double> a("fault_array", {64});
  gaea::coll::barrier(gaea::coll::world());
  if (scenario == "throw") {
    if (me) throw gaea::error("injected fault on rank " + std::to_string(on));
    rt.barrier();
  } else if (scenario == "throw-in-coll") {
    if (me) throw gaea::error("injected fault on rank " + std::to_string(on));
    (void)gaea::coll::allreduce(gaea::coll::world(), 1.0, gaea::coll::reduce_op::sum);
  } else if (scenario == "terminate") {
    if (me) throw_through_noexcept(on);
    rt.barrier();
  } else if (scenario == "skip-barrier") {
    if (!me) rt.barrier();
  } else if (scenario == "sleep") {
    if (me) std::this_thread::sleep_for(std::chrono::seconds(60));
    rt.barrier();
  } else if (scenario == "stop") {
    if (me) ::raise(SIGSTOP);
    rt.barrier();
  } else {
    throw gaea::error("gaea-fault: unknown scenario '" + scenario + "'");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fputs(usage, stderr);
    return 2;
  }
  const std::string scenario = argv[1];
  const int on = argc == 3 ? std::atoi(argv[2]) : 1;
  if (scenario == "unguarded") {
    try {
      gaea::runtime rt(&argc, &argv);
      gaea::ga::global_array<double> a("fault_array", {64});
      if (rt.rank() == on) throw gaea::error("injected fault on rank " + std::to_string(on));
      rt.barrier();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gaea-fault: caught after the runtime: %s\n", e.what());
      return 3;
    }
    return 0;
  }
  if (scenario == "array-after-runtime") {
    std::unique_ptr<gaea::ga::global_array<double>> a;
    {
      gaea::runtime rt(&argc, &argv);
      a = std::make_unique<gaea::ga::global_array<double>>("outliving_array", gaea::ga::index{64});
    }
    a.reset();
    std::fprintf(stderr, "gaea-fault: the array was destroyed after the runtime\n");
    return 0;
  }
  gaea::runtime rt(&argc, &argv);
  try {
    return run(rt, scenario, on);
  } catch (const std::exception& e) {
    rt.fail(e.what(), 3);
  }
}
