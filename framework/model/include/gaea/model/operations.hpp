#pragma once
/// \file
/// Time models of Gaea's one-sided operations on a described machine ([PGAS-BGQ §III.C-D], with
/// LogGP parameters from gaea::model::machine). Every function is a pure computation: not
/// collective, thread-safe, no runtime needed. Times are seconds for one blocking call as the
/// origin sees it (issue to completion).

#include <cstdint>

#include "gaea/coll/options.hpp"
#include "gaea/counters/counter_mode.hpp"
#include "gaea/model/machine.hpp"

namespace gaea::model {

/// How a contiguous transfer travels.
enum class contiguous_path : std::uint8_t {
  rma,             ///< zero-copy RMA, no target CPU [PGAS-BGQ eq. 7]
  active_message,  ///< the fall-back through the target's handler [PGAS-BGQ eq. 8]
};

/// A contiguous get (or a put waiting for remote completion) of `bytes` over link `c`, with
/// `extra_latency_s` added each way (hops).
double contiguous_s(const machine& m, link_class c, double bytes,
                    contiguous_path path = contiguous_path::rma, double extra_latency_s = 0);

/// A contiguous put of `bytes` and the fence that completes it at the target (two calls: one more
/// o than contiguous_s).
double put_s(const machine& m, link_class c, double bytes);

/// A strided get/put of `chunks` contiguous chunks of `chunk_bytes` each to one target:
///   zero-copy: one RMA per chunk, posted back to back, one completion [PGAS-BGQ eq. 9]:
///              o + 2 L + (chunks - 1) g + m G  (g: the origin's cost per further message
///              of a batch; [PGAS-BGQ eq. 9] charges o, which is what an origin whose batch
///              costs as much as separate calls pays)
///   packed:    one active message carrying the packed piece, packed on one side and unpacked
///              on the other: o + 2 L + o_r + 2 chunks pack + m (G + 2 copy)
double strided_zero_copy_s(const machine& m, link_class c, std::int64_t chunks, double chunk_bytes);
/// The packed form of the strided transfer above.
double strided_packed_s(const machine& m, link_class c, std::int64_t chunks, double chunk_bytes);

/// An accumulate of `bytes` (doubles) into one owner.
///   target-driven: the origin packs the data into an active message and the owner's handler
///                  adds it: o + 2 L + o_r + m (copy + G + add)
///   source-driven: lock, then the patch in `chunk_bytes` pieces through a pipeline of get → add
///                  → put (each stage overlapping the next piece's previous stage), then unlock
///                  ([PGAS-BGQ Fig. 11]'s source-driven pipelined form): two small round trips,
///                  the first piece's get, and per piece the slowest stage (the add includes
///                  filling the origin's two piece buffers: 2 copy per byte).
double acc_target_driven_s(const machine& m, link_class c, double bytes);
/// The source-driven form of the accumulate above, in pieces of `chunk_bytes`.
double acc_source_driven_s(const machine& m, link_class c, double bytes, double chunk_bytes);

/// How a shared counter's fetch-and-add is served: the counters' own modes. In the models,
/// counter_mode::atomic is a CPU atomic on a node and a network atomic across nodes
/// (machine::network_atomics; else the owner's handler serves it as an active message).
using counters::counter_mode;

/// The [PGAS-BGQ Fig. 10] experiment: `clients` ranks fetch-and-add back to back on one counter.
struct counter_load {
  std::int64_t clients = 1;         ///< ranks requesting (P - 1 in the figure)
  std::int64_t ranks_per_node = 1;  ///< placement: rank r on node r / ranks_per_node, owner rank 0
  /// How the owner serves the fetch-and-adds.
  counter_mode service = counter_mode::progress;
  double owner_compute_s = 0;  ///< the owner computes in kernels of this length between polls
  /// Share of the time the owner spends in those kernels (1: back to back, as [PGAS-BGQ Fig. 10];
  /// an app's owner that also waits for data computes a smaller share).
  double owner_busy_fraction = 1;
  double client_think_s = 0;  ///< each client's own work between two calls
  double service_s = -1;      ///< the owner's time per request; < 0: the link's o_r
};
/// Mean time of one fetch-and-add as the clients see it. The owner is a single server in a closed
/// system of `clients` customers (exact mean-value analysis; think time = the client's work plus
/// the round trip's wire time), which gives the linear growth in P once the owner saturates.
/// With counter_mode::owner and a computing owner, a request also waits for the kernel
/// running when it arrives: in saturation every client gets one reply per owner cycle
/// (owner_compute_s + clients x service). With a busy fraction f < 1 a request finds the owner in
/// a kernel with probability f: f x owner_compute_s / 2 more, and a cycle of f x (kernel +
/// clients x service) in saturation. A progress thread without a hardware thread of its own
/// (machine::progress_thread false) behaves as counter_mode::owner.
double fetch_add_s(const machine& m, const counter_load& load);

/// A collective of `op` with `bytes` per member (as coll::estimator::predict reads them) over
/// `ranks` ranks placed in blocks of m.ranks_per_node: the fastest algorithm's time as the
/// collectives' estimator replays it ([Bcast-Energy]), its message curves taken from the
/// machine's links (the measured two-member curve when the link has one, else one message =
/// o + L + bytes G; hops included) and its step costs at their defaults. gaea::error for ranks < 1.
double collective_s(const machine& m, coll::operation op, double bytes, std::int64_t ranks);

/// Mean response time of a single server with service time `service_s` and `customers` customers
/// who each think `think_s` between requests (exact MVA). Exposed for tests.
double closed_queue_response_s(std::int64_t customers, double service_s, double think_s);

}  // namespace gaea::model
