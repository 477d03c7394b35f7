// Catch2 main for multi-rank tests: every rank runs every test case (they are collective), the
// runtime lives for the whole session, and the exit code is non-zero if any rank failed.
#define CATCH_CONFIG_RUNNER
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>

#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"
#include "gaea/runtime/topology.hpp"

int main(int argc, char** argv) {
  int failed = 0;
  {
    gaea::runtime rt(&argc, &argv);
    // Runs registered across emulated hosts say how many nodes they must span, so that a run
    // that silently landed on one node cannot pass as a multinode test.
    if (const char* want = std::getenv("GAEA_TEST_NODES"); want && std::atoi(want) != rt.nodes()) {
      if (rt.rank() == 0)
        std::fprintf(stderr, "gaea tests: GAEA_TEST_NODES=%s but the ranks span %d node(s)\n", want,
                     rt.nodes());
      return 1;
    }
    Catch::Session session;
    if (const int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
    // Ranks > 0 report only failures, so that the log stays readable.
    if (rt.rank() != 0) session.configData().showSuccessfulTests = false;
    failed = session.run();
    // Plain MPI on purpose: a failed test may leave the ranks out of step in coll::world()'s call
    // sequence, while MPI_COMM_WORLD carries no other collective and every test is over.
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    failed = any;
    if (rt.rank() == 0)
      std::printf("gaea tests: %d ranks, progress %s (%s), verdict %s\n", rt.size(),
                  std::string(gaea::progress::to_string(rt.progress().current_mode())).c_str(),
                  rt.placement().description.c_str(), failed ? "FAILED" : "passed");
  }
  return failed ? 1 : 0;
}
