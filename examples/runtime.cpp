// gaea::runtime: start-up and shut-down of a Gaea program. The runtime is constructed on every
// rank (it starts MPI if the program has not), tells each rank where it runs (rank, node, the
// node's hardware, where its progress thread was placed), offers a barrier that keeps serving
// one-sided traffic while it waits, and on an error ends the whole job through fail() instead of
// leaving the other ranks hanging. The example checks the node numbering against MPI.
//   mpirun -np 4 gaea-example-runtime
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <exception>

#include "gaea/runtime/communicator.hpp"
#include "gaea/runtime/runtime.hpp"
#include "gaea/runtime/topology.hpp"

int main(int argc, char** argv) {
  gaea::runtime rt(&argc, &argv);  // collective; destroyed (collectively) at the end of main
  try {
    // Node numbering: node_rank 0 exists once per node, node_size ranks share each node.
    int node_leaders = rt.node_rank() == 0 ? 1 : 0, on_my_node = 1;
    MPI_Allreduce(MPI_IN_PLACE, &node_leaders, 1, MPI_INT, MPI_SUM, gaea::runtime_communicator());
    MPI_Allreduce(MPI_IN_PLACE, &on_my_node, 1, MPI_INT, MPI_SUM, gaea::node_comm(rt));
    int bad = node_leaders != rt.nodes() || on_my_node != rt.node_size();
    bad += rt.node_rank() < 0 || rt.node_rank() >= rt.node_size() || rt.size() < 1;

    // Gaea's barrier: flushes this thread's puts, then waits by the progress mode.
    const auto t0 = std::chrono::steady_clock::now();
    constexpr int rounds = 100;
    for (int i = 0; i < rounds; ++i)
      rt.barrier();
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
        rounds;

    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, gaea::runtime_communicator());
    if (rt.rank() == 0)
      std::printf(
          "runtime: %d ranks on %d node(s), %d cores / %d PUs here, progress thread %s, "
          "barrier %.1f us, up %.2f s: %s\n",
          rt.size(), rt.nodes(), rt.topo().cores(), rt.topo().pus(),
          rt.placement().description.c_str(), us, rt.elapsed(), bad == 0 ? "ok" : "FAILED");
    return bad == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    rt.fail(e.what(), 1);  // prints the error and ends every rank; never returns
  }
}
