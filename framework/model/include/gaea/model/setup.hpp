#pragma once
/// \file
/// Memory and set-up time per rank of Gaea's connections as P grows: the space/time complexity of
/// endpoints and memory regions of [PGAS-BGQ §III.B, eq. 3-6] for Gaea's designs. Pure
/// computation: not collective, thread-safe.

#include <cstdint>

#include "gaea/model/machine.hpp"

namespace gaea::model {

/// When a rank creates what it needs to reach a peer.
enum class connect_policy : std::uint8_t {
  eager,      ///< to every rank at start-up / at every region's creation (O(P) per rank)
  first_use,  ///< to a peer the first time the rank addresses it (O(clique))
};

/// A job's shape for the set-up model.
struct setup_case {
  /// Ranks of the job.
  std::int64_t ranks = 1;
  std::int64_t clique = 1;   ///< peers a rank addresses in its lifetime (zeta), <= ranks - 1
  std::int64_t regions = 1;  ///< memory regions alive: global arrays + counters (sigma)
  std::int64_t workers = 1;  ///< threads per rank with their own endpoints (rho)
  /// When endpoints are created.
  connect_policy endpoints = connect_policy::eager;
  /// When remote keys are unpacked.
  connect_policy keys = connect_policy::eager;
  /// A bound on the remote keys kept per rank (an LFU cache as [PGAS-BGQ §III.B]); 0: none.
  /// Misses are served by asking the owner again (the model charges nothing for them).
  std::int64_t key_cache = 0;
};

/// Per rank.
struct setup_cost {
  /// Memory of the endpoints (bytes).
  double endpoint_bytes = 0, key_bytes = 0;
  double endpoint_s = 0;  ///< creating endpoints (at start-up when eager, spread over the run)
  double region_s = 0;    ///< creating the regions: registration, key exchange, unpacking
  /// Memory of endpoints and keys together.
  double bytes() const noexcept { return endpoint_bytes + key_bytes; }
  /// \var key_bytes
  /// Memory of the remote keys kept (bytes).
};

/// The cost of `c` on `m` (m.setup's attributes):
///   endpoints:  workers x (ranks - 1 | clique) x (endpoint_bytes, endpoint_s)   [eq. 3-4]
///   keys:       regions x (ranks - 1 | clique, bounded by key_cache) x rkey_bytes [eq. 5]
///   regions:    regions x (region_s + ranks x exchange_s_per_rank (eager exchange only)
///               + keys unpacked x rkey_s)                                          [eq. 6]
/// gaea::error naming the values for counts below 1 or a clique above ranks - 1.
setup_cost predict_setup(const machine& m, const setup_case& c);

}  // namespace gaea::model
