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
  const double t = l.rma_s(bytes) + 2 * extra_latency_s;
  return path == contiguous_path::rma ? t : t + l.o_r;
}

double put_s(const machine& m, link_class c, double bytes) {
  return contiguous_s(m, c, bytes) + m.params(c).o;
}

double strided_zero_copy_s(const machine& m, link_class c, std::int64_t chunks,
                           double chunk_bytes) {
  check_bytes("strided_zero_copy_s", chunk_bytes);
  if (chunks < 1)
    throw error("gaea::model::strided_zero_copy_s: chunks = " + std::to_string(chunks) +
                " must be >= 1");
  const link_params& l = m.params(c);
  const double k = static_cast<double>(chunks);
  return l.rma_s(k * chunk_bytes) + (k - 1) * l.g;
}

double strided_packed_s(const machine& m, link_class c, std::int64_t chunks, double chunk_bytes) {
  check_bytes("strided_packed_s", chunk_bytes);
  if (chunks < 1)
    throw error("gaea::model::strided_packed_s: chunks = " + std::to_string(chunks) +
                " must be >= 1");
  const link_params& l = m.params(c);
  const double bytes = static_cast<double>(chunks) * chunk_bytes;
  return l.am_s(bytes) + 2 * static_cast<double>(chunks) * m.pack_s_per_chunk +
         bytes * 2 * m.copy_s_per_byte;
}

double acc_target_driven_s(const machine& m, link_class c, double bytes) {
  check_bytes("acc_target_driven_s", bytes);
  const link_params& l = m.params(c);
  return l.am_s(bytes) + bytes * (m.copy_s_per_byte + m.add_s_per_byte);
}

double acc_source_driven_s(const machine& m, link_class c, double bytes, double chunk_bytes) {
  check_bytes("acc_source_driven_s", bytes);
  if (!std::isfinite(chunk_bytes) || chunk_bytes <= 0)
    throw error("gaea::model::acc_source_driven_s: chunk_bytes = " + std::to_string(chunk_bytes) +
                " must be > 0");
  const link_params& l = m.params(c);
  const double round_trip = l.rma_s(0);
  const double piece = std::min(bytes, chunk_bytes);
  const double pieces = bytes > 0 ? std::ceil(bytes / chunk_bytes) : 1;
  // Lock and unlock are small round trips; the first get fills the pipeline, then each piece
  // costs its slowest stage (the next get and the previous put share the origin's injection),
  // and the last add and put drain it. The origin fills two buffers of a piece (the owner's
  // data and its own) per piece.
  const double stage =
      std::max(l.o + piece * l.G, piece * (m.add_s_per_byte + 2 * m.copy_s_per_byte));
  return 2 * round_trip + l.rma_s(piece) + (pieces - 1) * stage +
         piece * (m.add_s_per_byte + 2 * m.copy_s_per_byte) + l.rma_s(piece);
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
  counter_mode service = load.service;
  if (service == counter_mode::progress && !m.progress_thread) service = counter_mode::owner;
  // The owner's time per request: a CPU or network atomic costs the target's gap; an atomic the
  // network cannot execute, and every active message, costs the handler's o_r. An atomic's wire
  // time is its uncontended round trip less that service.
  const bool atomic = service == counter_mode::atomic;
  const double s_intra = atomic ? m.intra.g : m.intra.o_r;
  const double s_inter = atomic && m.network_atomics ? m.inter.g : m.inter.o_r;
  const double wire =
      atomic ? f_intra * std::max(m.intra.atomic_s() - s_intra, 0.0) +
                   (1 - f_intra) * std::max(m.inter.atomic_s() + 2 * hops - s_inter, 0.0)
             : mean([](const link_params& l, double h) { return l.rma_s(0) + 2 * h; });
  const double s =
      load.service_s >= 0 ? load.service_s : f_intra * s_intra + (1 - f_intra) * s_inter;
  const double n = static_cast<double>(load.clients);
  const double open = wire + closed_queue_response_s(load.clients, s, wire + load.client_think_s);
  if (service != counter_mode::owner || load.owner_compute_s <= 0) return open;
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
  // A calibrated estimator when the machine has one (its curves and step costs measured here),
  // else LogGP curves with default step costs.
  coll::estimator e = m.collectives ? *m.collectives : coll::estimator{};
  const double hops = m.mean_hop_s(nodes);
  const double big = double(1 << 30);
  for (int c = 0; c < 2 && !m.collectives; ++c) {
    const link_params& l = c == 0 ? m.intra : m.inter;
    const double extra = c == 0 ? 0 : hops;
    if (!l.curve_bytes.empty()) {
      e.message[c] = {l.curve_bytes, l.curve_s};
      for (double& t : e.message[c].seconds)
        t += extra;
      continue;
    }
    const double start = l.o + l.L + extra;
    e.message[c] = {{0, big}, {start, start + big * l.G}};
  }
  // Replays of ring and chain schedules cost O(P^2) messages (a minute at P = 4096), so they are
  // replayed only when they could win: their critical path holds P - 1 messages one after the
  // other, each at least the cheapest link's empty message (with default step costs; a calibrated
  // estimator's fitted costs make this an approximation, so it replays everything up to 1024
  // ranks).
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
      m.collectives && ranks <= 1024
          ? 0
          : static_cast<double>(ranks - 1) * std::min(e.message[0].at(0), e.message[1].at(0));
  if (best < 0 || floor < best) take(long_paths);
  return std::max(best, 0.0);
}

}  // namespace gaea::model
