// gaea::model: predicting Gaea's operations on a machine larger than the one at hand. The example
// describes a cluster in code (LogGP terms per link class), then asks the models for a remote get
// inside a node and across nodes, for a shared counter's fetch-and-add as the number of clients
// grows, and for an allreduce at increasing rank counts. Pure computation: no runtime, no MPI.
// (Shipped machines are JSON files read with load_machine; `gaea-model` is the command line.)
#include <cmath>
#include <cstdio>

#include "gaea/coll/options.hpp"
#include "gaea/model/machine.hpp"
#include "gaea/model/operations.hpp"

int main() {
  namespace md = gaea::model;
  md::machine m;
  m.name = "example-cluster";
  m.source = "illustrative figures for a small InfiniBand cluster";
  m.nodes = 64;
  m.cores_per_node = 32;
  m.ranks_per_node = 32;
  //            L        o        g        G (s/byte)  o_r
  m.intra = {0.2e-6, 0.3e-6, 0.1e-6, 0.1e-9, 0.5e-6};
  m.inter = {1.0e-6, 0.5e-6, 0.3e-6, 0.08e-9, 1.0e-6};
  m.network_atomics = true;
  m.check();  // gaea::error naming the field for an impossible description

  // A get: o + 2 L + m G [PGAS-BGQ eq. 7].
  const double small_intra = md::contiguous_s(m, md::link_class::intra, 8);
  const double small_inter = md::contiguous_s(m, md::link_class::inter, 8);
  const double big_inter = md::contiguous_s(m, md::link_class::inter, 1 << 20);
  bool ok = std::abs(small_inter - m.inter.rma_s(8)) < 1e-12 && small_intra < small_inter &&
            big_inter > small_inter;

  // A counter served by the owner's progress thread, as clients are added (one per node).
  std::printf("model: fetch-add, clients ->");
  double previous = 0;
  for (std::int64_t clients : {1, 8, 63}) {
    md::counter_load load;
    load.clients = clients;
    load.service = md::counter_mode::progress;
    const double t = md::fetch_add_s(m, load);
    ok = ok && t >= previous;  // more clients never make it faster
    previous = t;
    std::printf(" %lld: %.2f us", static_cast<long long>(clients), t * 1e6);
  }
  std::printf("\n");

  // An allreduce of 8 bytes per rank at 32, 256 and 2048 ranks (32 per node).
  std::printf("model: allreduce 8 B, ranks ->");
  previous = 0;
  for (std::int64_t ranks : {32, 256, 2048}) {
    const double t = md::collective_s(m, gaea::coll::operation::allreduce, 8, ranks);
    ok = ok && t > previous;
    previous = t;
    std::printf(" %lld: %.2f us", static_cast<long long>(ranks), t * 1e6);
  }
  std::printf("\n");
  std::printf(
      "model: get 8 B %.2f us in a node, %.2f us across nodes, 1 MiB %.1f us on '%s': "
      "%s\n",
      small_intra * 1e6, small_inter * 1e6, big_inter * 1e6, m.name.c_str(), ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
