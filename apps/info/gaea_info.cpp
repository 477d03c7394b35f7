// gaea-info: what a Gaea job sees — version, ranks and nodes, the node's topology, the UCX
// transports picked on the node and between nodes, and where each progress thread sits.
//   mpirun -np 4 gaea-info          (run with the same environment as the application)
//   gaea-info --env                  the GAEA_* environment variables, defaults and meanings
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli.hpp"
#include "gaea/base/env.hpp"
#include "gaea/base/version.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/energy/actuator.hpp"
#include "gaea/energy/markup.hpp"
#include "gaea/energy/slurm.hpp"
#include "gaea/energy/throttle.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"
#include "gaea/runtime/topology.hpp"

namespace {

// Every rank's string, in rank order, on member 0 (empty elsewhere). Only the lengths go to
// every member: gatherv takes the same counts everywhere.
std::vector<std::string> gather_strings(const gaea::coll::group& g, const std::string& mine) {
  const std::vector<std::int64_t> lens =
      gaea::coll::allgather(g, static_cast<std::int64_t>(mine.size()));
  if (g.rank() != 0) {
    gaea::coll::gatherv(g, std::span<const char>(mine), std::span<char>(), lens, 0);
    return {};
  }
  std::int64_t total = 0;
  for (const std::int64_t l : lens)
    total += l;
  std::string flat(static_cast<std::size_t>(total), '\0');
  gaea::coll::gatherv(g, std::span<const char>(mine), std::span<char>(flat), lens, 0);
  std::vector<std::string> out;
  std::size_t at = 0;
  for (const std::int64_t l : lens) {
    out.push_back(flat.substr(at, static_cast<std::size_t>(l)));
    at += static_cast<std::size_t>(l);
  }
  return out;
}

// What a variable accepts, as one short phrase.
std::string accepts(const gaea::env::variable& v) {
  using gaea::env::value_kind;
  switch (v.kind) {
    case value_kind::choice:
      return std::string(v.choices);
    case value_kind::size:
      return "integer >= " + std::to_string(v.min) + ", K/M/G suffixes";
    case value_kind::seconds:
      return "whole seconds >= 0";
    case value_kind::fraction:
      return "fraction in (0, 1)";
    case value_kind::report:
      return "0|1|<file>.json";
    case value_kind::text:
      break;
  }
  return "text";
}

void print_env() {
  std::printf("GAEA_* environment variables (set in the environment of every rank):\n");
  for (const auto& v : gaea::env::table()) {
    const auto cur = gaea::env::raw(v.name);
    std::printf("  %-20s default %-6s %s%s\n    accepts %s\n    %s\n", std::string(v.name).c_str(),
                std::string(v.default_str).c_str(), cur ? "now " : "", cur ? cur->c_str() : "",
                accepts(v).c_str(), std::string(v.help).c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "gaea-info: what a Gaea job sees (version, ranks and nodes, topology, UCX transports, "
      "progress threads); run under mpirun with the application's environment"};
  apps::conventions(app, "gaea-info");
  bool env = false;
  app.add_flag("--env", env, "print the GAEA_* environment variables, defaults and meanings");
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;
  if (env) {
    print_env();
    return 0;
  }
  // An error on any rank ends the job with its message on every rank (exit 1).
  return gaea::run_main(
      "gaea-info", &argc, &argv,
      [&](gaea::runtime& rt) {
        const gaea::coll::group& world = gaea::coll::world();  // collective on first use
        // Peers: the next rank on this node, and the first rank on another node.
        const int my_node = rt.node_id();
        const std::vector<int> node_of = gaea::coll::allgather(world, my_node);
        int on_node = -1, off_node = -1;
        for (int k = 1; k <= rt.size(); ++k) {
          const int r = (rt.rank() + k) % rt.size();
          if (node_of[static_cast<std::size_t>(r)] == my_node && on_node < 0 && r != rt.rank())
            on_node = r;
          if (node_of[static_cast<std::size_t>(r)] != my_node && off_node < 0) off_node = r;
        }
        auto& w = rt.worker();
        std::string line =
            "rank " + std::to_string(rt.rank()) + " node " + std::to_string(rt.node_id()) +
            " (local " + std::to_string(rt.node_rank()) + "/" + std::to_string(rt.node_size()) +
            "): progress " + std::string(gaea::progress::to_string(rt.progress().current_mode())) +
            ", " + rt.placement().description;
        if (const int cpu = rt.progress().last_cpu(); cpu >= 0)
          line += " (seen on PU " + std::to_string(cpu) + ")";
        line += "; to self: " + w.transports(rt.rank());
        if (on_node >= 0)
          line += "; on node (rank " + std::to_string(on_node) + "): " + w.transports(on_node);
        if (off_node >= 0)
          line +=
              "; between nodes (rank " + std::to_string(off_node) + "): " + w.transports(off_node);
        // Node pairs, seen from each node's first rank: to the first rank of every node (its own
        // node: the next local rank, if any).
        std::string pairs;
        if (rt.node_rank() == 0) {
          const std::string& host = rt.comm().host(rt.rank());
          for (int n = 0; n < rt.nodes(); ++n) {
            const int peer = n == my_node
                                 ? on_node
                                 : static_cast<int>(std::find(node_of.begin(), node_of.end(), n) -
                                                    node_of.begin());
            pairs += "  node " + std::to_string(my_node) + " (" + host + ") -> " +
                     (n == my_node ? std::string("itself") : "node " + std::to_string(n)) + ": " +
                     (peer >= 0 ? w.transports(peer) : std::string("(one rank on the node)")) +
                     "\n";
          }
        }
        const std::string meter = rt.meter_reason();  // proves hardware meters (a short CPU burn)
        const auto lines = gather_strings(world, line);
        const auto pair_lines = gather_strings(world, pairs);
        if (rt.rank() == 0) {
          std::printf("Gaea %s\n", gaea::version_string);
          std::printf("ranks %d on %d node%s\n", rt.size(), rt.nodes(), rt.nodes() == 1 ? "" : "s");
          std::printf("topology (node 0): %s\n", rt.topo().summary().c_str());
          std::printf("GA C API linear algebra: %s\n", GAEA_GA_LINALG);
          const char* tls = std::getenv("UCX_TLS");
          std::printf("UCX_TLS=%s\n", tls ? tls : "(unset: UCX chooses)");
          for (const auto& l : lines)
            std::printf("%s\n", l.c_str());
          std::printf("transports per node pair (from each node's first rank):\n");
          for (const auto& l : pair_lines)
            std::printf("%s", l.c_str());
          std::printf("wait-mode calibration (rank 0): %s\n",
                      rt.progress().cal().describe().c_str());
          std::printf(
              "auto thresholds (rank 0): spin %.0f us, block after %.0f us idle, "
              "waits >= %zu bytes (gets) or %zu bytes (others) block at once\n",
              static_cast<double>(rt.progress().auto_parameters().spin_ns) / 1e3,
              static_cast<double>(rt.progress().auto_parameters().block_after_ns) / 1e3,
              rt.progress().interrupt_bytes(rt.worker(), gaea::progress::transfer_kind::get),
              rt.progress().interrupt_bytes(rt.worker(), gaea::progress::transfer_kind::other));
          if (rt.progress().share_core())
            std::printf(
                "auto on shared cores (rank 0): waiting threads serve their peers; the progress "
                "thread takes over after %.1f ms without a wait, or when a wait blocks\n",
                static_cast<double>(rt.progress().auto_parameters().takeover_ns) / 1e6);
          std::printf("energy control (rank 0): %s\n", rt.energy_mode().c_str());
          std::printf("DVFS (rank 0): %s\n", rt.dvfs_reason().c_str());
          std::printf("throttle (rank 0): %s\n", rt.throttle_reason().c_str());
          std::printf("energy meter (rank 0): %s\n", meter.c_str());
          // The decision table: what is used, what was refused and why (each reason names what
          // a site must enable; framework/energy/README.md has the full table).
          std::printf("energy decision table (rank 0):\n");
          const auto row = [](bool used, const char* what, const std::string& text) {
            std::printf("  %-8s %-9s %s\n", used ? "used" : "refused", what, text.c_str());
          };
          row(rt.markup().active(), "markup", rt.markup_reason());
          row(rt.dvfs().active(), "DVFS",
              rt.dvfs().active() ? std::string(rt.dvfs().name()) : rt.dvfs_reason());
          row(rt.throttle().active(), "throttle",
              rt.throttle().active() ? std::string(rt.throttle().name()) : rt.throttle_reason());
          if (const std::string r = rt.throttle().refusal(); !r.empty()) row(false, "throttle", r);
          const auto e = rt.energy();
          row(true, "meter", e.source + (e.measured ? " (measured)" : " (estimated)"));
          for (const std::string& r : rt.meter_rejected())
            row(false, "meter", r);
          // Slurm: its frequency request (kept by DVFS, above) and which energy figure is whose.
          const char* job = std::getenv("SLURM_JOB_ID");
          const char* freq = std::getenv("SLURM_CPU_FREQ_REQ");
          std::printf("  %-8s %-9s %s\n", "note", "slurm",
                      job && *job ? (gaea::energy::slurm_energy_note(job) +
                                     "; --cpu-freq: " + (freq ? freq : "none"))
                                        .c_str()
                                  : "not a Slurm job (SLURM_JOB_ID unset)");
        }
        rt.barrier();
        return 0;
      },
      1);
}
