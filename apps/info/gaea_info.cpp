// gaea-info: what a Gaea job sees — version, ranks and nodes, the node's topology, the UCX
// transports picked on the node and between nodes, and where each progress thread sits.
//   mpirun -np 4 gaea-info          (run with the same environment as the application)
//   gaea-info --env                  the GAEA_* environment variables, defaults and meanings
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gaea/base/env.hpp"
#include "gaea/base/version.hpp"
#include "gaea/runtime/runtime.hpp"

namespace {

std::vector<std::string> gather_strings(const std::string& mine, int root) {
  int n = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<std::size_t>(n)), displs(static_cast<std::size_t>(n));
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, root, MPI_COMM_WORLD);
  int total = 0;
  for (int i = 0; i < n; ++i)
    displs[static_cast<std::size_t>(i)] = total, total += lens[static_cast<std::size_t>(i)];
  std::vector<char> flat(static_cast<std::size_t>(total) + 1);
  MPI_Gatherv(mine.data(), len, MPI_CHAR, flat.data(), lens.data(), displs.data(), MPI_CHAR, root,
              MPI_COMM_WORLD);
  std::vector<std::string> out;
  if (me == root)
    for (int i = 0; i < n; ++i)
      out.emplace_back(flat.data() + displs[static_cast<std::size_t>(i)],
                       static_cast<std::size_t>(lens[static_cast<std::size_t>(i)]));
  return out;
}

void print_env() {
  std::printf("GAEA_* environment variables (set in the environment of every rank):\n");
  for (const auto& v : gaea::env::table()) {
    const auto cur = gaea::env::raw(v.name);
    std::printf("  %-20s default %-6s %s%s\n    %s\n", std::string(v.name).c_str(),
                std::string(v.default_str).c_str(), cur ? "now " : "", cur ? cur->c_str() : "",
                std::string(v.help).c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--env") == 0) {
      print_env();
      return 0;
    }
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::printf("usage: [mpirun -np N] gaea-info [--env]\n");
      return 0;
    }
  }
  try {
    gaea::runtime rt(&argc, &argv);
    // Peers: the next rank on this node, and the first rank on another node.
    std::vector<int> node_of(static_cast<std::size_t>(rt.size()));
    const int my_node = rt.node_id();
    MPI_Allgather(&my_node, 1, MPI_INT, node_of.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int on_node = -1, off_node = -1;
    for (int k = 1; k <= rt.size(); ++k) {
      const int r = (rt.rank() + k) % rt.size();
      if (node_of[static_cast<std::size_t>(r)] == my_node && on_node < 0 && r != rt.rank())
        on_node = r;
      if (node_of[static_cast<std::size_t>(r)] != my_node && off_node < 0) off_node = r;
    }
    auto& w = rt.worker();
    std::string line = "rank " + std::to_string(rt.rank()) + " node " +
                       std::to_string(rt.node_id()) + " (local " + std::to_string(rt.node_rank()) +
                       "/" + std::to_string(rt.node_size()) + "): progress " +
                       std::string(gaea::progress::to_string(rt.progress().current_mode())) + ", " +
                       rt.placement().description;
    if (const int cpu = rt.progress().last_cpu(); cpu >= 0)
      line += " (seen on PU " + std::to_string(cpu) + ")";
    line += "; to self: " + w.transports(rt.rank());
    if (on_node >= 0)
      line += "; on node (rank " + std::to_string(on_node) + "): " + w.transports(on_node);
    if (off_node >= 0)
      line += "; between nodes (rank " + std::to_string(off_node) + "): " + w.transports(off_node);
    // Node pairs, seen from each node's first rank: to the first rank of every node (its own
    // node: the next local rank, if any).
    std::string pairs;
    if (rt.node_rank() == 0) {
      const std::string& host = rt.comm().host(rt.rank());
      for (int n = 0; n < rt.nodes(); ++n) {
        const int peer =
            n == my_node
                ? on_node
                : static_cast<int>(std::find(node_of.begin(), node_of.end(), n) - node_of.begin());
        pairs += "  node " + std::to_string(my_node) + " (" + host + ") -> " +
                 (n == my_node ? std::string("itself") : "node " + std::to_string(n)) + ": " +
                 (peer >= 0 ? w.transports(peer) : std::string("(one rank on the node)")) + "\n";
      }
    }
    const std::string meter = rt.meter_reason();  // proves hardware meters (a short CPU burn)
    rt.barrier();
    const auto lines = gather_strings(line, 0);
    const auto pair_lines = gather_strings(pairs, 0);
    if (rt.rank() == 0) {
      std::printf("Gaea %s\n", gaea::version_string);
      std::printf("ranks %d on %d node%s\n", rt.size(), rt.nodes(), rt.nodes() == 1 ? "" : "s");
      std::printf("topology (node 0): %s\n", rt.topo().summary().c_str());
      const char* tls = std::getenv("UCX_TLS");
      std::printf("UCX_TLS=%s\n", tls ? tls : "(unset: UCX chooses)");
      for (const auto& l : lines)
        std::printf("%s\n", l.c_str());
      std::printf("transports per node pair (from each node's first rank):\n");
      for (const auto& l : pair_lines)
        std::printf("%s", l.c_str());
      std::printf("wait-mode calibration (rank 0): %s\n", rt.progress().cal().describe().c_str());
      std::printf(
          "auto thresholds (rank 0): spin %.0f us, block after %.0f us idle, "
          "waits >= %zu bytes block at once\n",
          static_cast<double>(rt.progress().auto_parameters().spin_ns) / 1e3,
          static_cast<double>(rt.progress().auto_parameters().block_after_ns) / 1e3,
          rt.progress().interrupt_bytes(rt.worker()));
      std::printf("DVFS (rank 0): %s\n", rt.dvfs_reason().c_str());
      std::printf("energy meter (rank 0): %s\n", meter.c_str());
    }
    rt.barrier();
  } catch (const gaea::Error& e) {
    std::fprintf(stderr, "gaea-info: %s\n", e.what());
    return 1;
  }
  return 0;
}
