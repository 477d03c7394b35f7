// The operation models of gaea/model/operations.hpp.
#include "gaea/model/operations.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "gaea/base/error.hpp"
#include "gaea/coll/estimator.hpp"

namespace gaea::model {

namespace {

void check_bytes(const char* what, double bytes) {
  if (!std::isfinite(bytes) || bytes < 0)
    throw error(std::string("gaea::model::") + what + ": bytes = " + std::to_string(bytes) +
                " must be a finite number >= 0");
}

}  // namespace

double contiguous_s(const machine& m, link_class c, double bytes, contiguous_path path,
                    double extra_latency_s) {
  check_bytes("contiguous_s", bytes);
  const link_params& l = m.params(c);
  const double t = l.o + 2 * (l.L + extra_latency_s) + bytes * l.G;
  return path == contiguous_path::rma ? t : t + l.o_r;
}

double strided_zero_copy_s(const machine& m, link_class c, std::int64_t chunks,
                           double chunk_bytes) {
  check_bytes("strided_zero_copy_s", chunk_bytes);
  if (chunks < 1)
    throw error("gaea::model::strided_zero_copy_s: chunks = " + std::to_string(chunks) +
                " must be >= 1");
  const link_params& l = m.params(c);
  const double k = static_cast<double>(chunks);
  return l.o + 2 * l.L + (k - 1) * l.g + k * chunk_bytes * l.G;
}

double strided_packed_s(const machine& m, link_class c, std::int64_t chunks, double chunk_bytes) {
  check_bytes("strided_packed_s", chunk_bytes);
  if (chunks < 1)
    throw error("gaea::model::strided_packed_s: chunks = " + std::to_string(chunks) +
                " must be >= 1");
  const link_params& l = m.params(c);
  const double bytes = static_cast<double>(chunks) * chunk_bytes;
  return l.o + 2 * l.L + l.o_r + 2 * static_cast<double>(chunks) * m.pack_s_per_chunk +
         bytes * (l.G + 2 * m.copy_s_per_byte);
}

double acc_target_driven_s(const machine& m, link_class c, double bytes) {
  check_bytes("acc_target_driven_s", bytes);
  const link_params& l = m.params(c);
  return l.o + 2 * l.L + l.o_r + bytes * (m.copy_s_per_byte + l.G + m.add_s_per_byte);
}

double acc_source_driven_s(const machine& m, link_class c, double bytes, double chunk_bytes) {
  check_bytes("acc_source_driven_s", bytes);
  if (!std::isfinite(chunk_bytes) || chunk_bytes <= 0)
    throw error("gaea::model::acc_source_driven_s: chunk_bytes = " + std::to_string(chunk_bytes) +
                " must be > 0");
  const link_params& l = m.params(c);
  const double round_trip = l.o + 2 * l.L;
  const double piece = std::min(bytes, chunk_bytes);
  const double pieces = bytes > 0 ? std::ceil(bytes / chunk_bytes) : 1;
  // Lock and unlock are small round trips; the first get fills the pipeline, then each piece
  // costs its slowest stage (the next get and the previous put share the origin's injection),
  // and the last add and put drain it.
  const double stage = std::max(l.o + piece * l.G, piece * m.add_s_per_byte);
  return 2 * round_trip + (round_trip + piece * l.G) + (pieces - 1) * stage +
         piece * m.add_s_per_byte + (round_trip + piece * l.G);
}

double closed_queue_response_s(std::int64_t customers, double service_s, double think_s) {
  if (customers < 0 || !std::isfinite(service_s) || service_s < 0 || !std::isfinite(think_s) ||
      think_s < 0)
    throw error("gaea::model::closed_queue_response_s: customers = " + std::to_string(customers) +
                ", service = " + std::to_string(service_s) +
                " s, think = " + std::to_string(think_s) + " s (need >= 0)");
  // Exact mean-value analysis of one queueing station and one delay station.
  double queue = 0, response = service_s;
  for (std::int64_t n = 1; n <= customers; ++n) {
    response = service_s * (1 + queue);
    const double throughput = static_cast<double>(n) / (think_s + response);
    queue = throughput * response;
  }
  return customers > 0 ? response : 0;
}

double fetch_add_s(const machine& m, const counter_load& load) {
  if (load.clients < 1 || load.ranks_per_node < 1)
    throw error("gaea::model::fetch_add_s: clients = " + std::to_string(load.clients) +
                ", ranks_per_node = " + std::to_string(load.ranks_per_node) + " (need >= 1)");
  if (load.owner_compute_s < 0 || load.client_think_s < 0 || !(load.owner_busy_fraction >= 0) ||
      load.owner_busy_fraction > 1)
    throw error(
        "gaea::model::fetch_add_s: owner_compute_s = " + std::to_string(load.owner_compute_s) +
        ", client_think_s = " + std::to_string(load.client_think_s) + ", owner_busy_fraction = " +
        std::to_string(load.owner_busy_fraction) + " (need times >= 0 and a fraction in [0, 1])");
  // Clients are ranks 1..clients; rank 0 owns the counter. Their mean wire time and mean
  // per-request service, by the link each one takes.
  const std::int64_t on_node = std::min(load.clients, load.ranks_per_node - 1);
  const double f_intra = static_cast<double>(on_node) / static_cast<double>(load.clients);
  const double hops = m.mean_hop_s(machine::nodes_for(load.clients + 1, load.ranks_per_node));
  auto mean = [&](auto of) {
    return f_intra * of(m.intra, 0.0) + (1 - f_intra) * of(m.inter, hops);
  };
  const double wire = mean([](const link_params& l, double h) { return l.o + 2 * (l.L + h); });
  counter_service service = load.service;
  if (service == counter_service::progress && !m.progress_thread) service = counter_service::owner;
  // The owner's time per request: a CPU or network atomic costs the target's gap; an atomic the
  // network cannot execute, and every active message, costs the handler's o_r.
  double s = load.service_s;
  if (s < 0) {
    const bool inter_atomic = service == counter_service::atomic && m.network_atomics;
    s = service == counter_service::atomic
            ? f_intra * m.intra.g + (1 - f_intra) * (inter_atomic ? m.inter.g : m.inter.o_r)
            : mean([](const link_params& l, double) { return l.o_r; });
  }
  const double n = static_cast<double>(load.clients);
  const double open = wire + closed_queue_response_s(load.clients, s, wire + load.client_think_s);
  if (service != counter_service::owner || load.owner_compute_s <= 0) return open;
  // The owner serves only between kernels: a request that finds it in one waits half a kernel
  // on average; in saturation every client gets one reply per owner cycle.
  const double f = load.owner_busy_fraction;
  return std::max(open + f * load.owner_compute_s / 2, f * (load.owner_compute_s + n * s));
}

double collective_s(const machine& m, coll::operation op, double bytes, std::int64_t ranks) {
  check_bytes("collective_s", bytes);
  if (ranks < 1 || ranks > INT_MAX)
    throw error("gaea::model::collective_s: ranks = " + std::to_string(ranks) + " must be in [1, " +
                std::to_string(INT_MAX) + "]");
  const std::int64_t nodes = machine::nodes_for(ranks, m.ranks_per_node);
  coll::estimator e;
  const double hops = m.mean_hop_s(nodes);
  const double big = double(1 << 30);
  for (int c = 0; c < 2; ++c) {
    const link_params& l = c == 0 ? m.intra : m.inter;
    const double start = l.o + l.L + (c == 0 ? 0 : hops);
    e.message[c] = {{0, big}, {start, start + big * l.G}};
  }
  // Replays of ring and chain schedules cost O(P^2) messages (a minute at P = 4096), so they are
  // replayed only when they could win: their critical path holds P - 1 messages one after the
  // other, each at least the cheapest link's o + L (the step costs are the defaults here).
  const auto size = static_cast<int>(ranks), node_count = static_cast<int>(nodes);
  std::vector<coll::algorithm> short_paths, long_paths;
  for (const coll::algorithm a : coll::algorithms_of(op, size))
    (a == coll::algorithm::ring || a == coll::algorithm::chain ||
             a == coll::algorithm::scatter_allgather
         ? long_paths
         : short_paths)
        .push_back(a);
  const auto b = static_cast<std::size_t>(bytes);
  const bool block = true;
  const std::size_t chunk = 64 * 1024;
  double best = -1;
  auto take = [&](const std::vector<coll::algorithm>& which) {
    if (which.empty()) return;
    for (const coll::prediction& p : e.predict(op, b, size, node_count, block, chunk, which))
      if (best < 0 || p.seconds < best) best = p.seconds;
  };
  take(short_paths);
  const double floor =
      static_cast<double>(ranks - 1) * std::min(m.intra.o + m.intra.L, m.inter.o + m.inter.L);
  if (best < 0 || floor < best) take(long_paths);
  return std::max(best, 0.0);
}

}  // namespace gaea::model
