#pragma once
/// \file
/// gaea::model::machine — what the scale models [PGAS-BGQ §III] need to know about a cluster: its
/// nodes and cores, LogGP parameters per link class (Alexandrov et al. 1995, as [PGAS-BGQ eq.
/// 7-9] use them), the owner-side costs of active messages, and the compute rates the apps' models
/// divide work by. Read from and written to JSON (machine descriptions:
/// `framework/model/machines/`, or a file `gaea-model calibrate` writes from measurements on the
/// machine itself).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gaea/coll/estimator.hpp"

namespace gaea::model {

/// Which link a message between two ranks takes.
enum class link_class : std::uint8_t {
  intra,  ///< both ranks on one node (shared memory)
  inter,  ///< ranks on different nodes (the network)
};

/// LogGP parameters of one link class, in seconds (and seconds per byte), as the models use them:
///   - one-sided get of m bytes, RMA:        o + 2 L + m G                         [PGAS-BGQ eq. 7]
///   - the same through an active message:   o + 2 L + o_r + m G                   [PGAS-BGQ eq. 8]
///   - k further messages posted back to back in one batch: k g more               [PGAS-BGQ eq. 9]
/// L is one-way, so a round trip pays it twice; o is the origin's CPU time to post and complete one
/// message; o_r is the target's CPU time to run a small active message's handler (the progress
/// thread of the owner, or the owner itself when it polls).
struct link_params {
  link_params() = default;
  /// The five LogGP terms (the rest at their defaults).
  link_params(double L_s, double o_s, double g_s, double G_s_per_byte, double o_r_s) noexcept
      : L(L_s), o(o_s), g(g_s), G(G_s_per_byte), o_r(o_r_s) {}

  double L = 0;    ///< one-way latency
  double o = 0;    ///< origin overhead per message
  double g = 0;    ///< gap: the origin's cost per further message of a batch (inverse message rate)
  double G = 0;    ///< per byte (inverse bandwidth)
  double o_r = 0;  ///< target's handler time for one small active message
  /// Per byte of an active message's payload (Gaea's packed transfers and accumulates go
  /// through the transport's message path, whose copies and protocol switches differ from an
  /// RMA's; 0: the same as G).
  double G_am = 0;
  /// One remote atomic (fetch-and-add) as its origin sees it without contention (0: o + 2 L).
  double atomic = 0;
  /// The measured time of a two-member broadcast at `curve_bytes` (PLogP-style, Kielmann, Bal &
  /// Verstoep 2000): what a collective's message costs with the progress mode's wake-ups in.
  /// Empty: o + L + bytes G.
  std::vector<double> curve_bytes, curve_s;

  /// A blocking RMA get (or put with remote completion) of `bytes`.
  double rma_s(double bytes) const noexcept { return o + 2 * L + bytes * G; }
  /// A round trip through the target's handler carrying `bytes` one way.
  double am_s(double bytes) const noexcept { return o + 2 * L + o_r + bytes * am_G(); }
  /// Per-byte cost of an active message's payload: G_am, or G when G_am is 0.
  double am_G() const noexcept { return G_am > 0 ? G_am : G; }
  /// Cost of one remote atomic: `atomic`, or o + 2 L when it is 0.
  double atomic_s() const noexcept { return atomic > 0 ? atomic : o + 2 * L; }
  /// \var curve_s
  /// Measured seconds of the broadcast at each of curve_bytes (same length).
};

/// What connecting to one peer and reaching one of its memory regions costs a rank: the space and
/// time attributes of [PGAS-BGQ §III.B, eq. 3-6, Table II] (alpha, beta, gamma, delta), for
/// Gaea's UCX endpoints and remote keys. Defaults: docs/scaling.md's estimates for UCX here.
struct setup_params {
  double endpoint_bytes = 1536;  ///< one idle endpoint with its lanes (alpha)
  double endpoint_s = 30e-6;     ///< creating and wiring it up (beta)
  double rkey_bytes = 230;       ///< one peer's packed key kept, plus its unpacked key (gamma)
  double rkey_s = 2e-6;          ///< unpacking one peer's key on first use
  double region_s = 50e-6;       ///< registering one memory region (delta), plus its collectives
  double exchange_s_per_rank = 0.25e-6;  ///< the all-gather of packed keys, per rank
};

/// A cluster as the models see it. Ranks are placed in blocks: rank r runs on node
/// r / ranks_per_node.
struct machine {
  std::string name;    ///< e.g. "bgq"
  std::string source;  ///< where the figures come from (a paper's key, "calibrated on <host> ...")
  /// Nodes of the cluster.
  std::int64_t nodes = 1;
  /// Cores per node.
  std::int64_t cores_per_node = 1;
  std::int64_t threads_per_core = 1;  ///< SMT: hardware threads per core
  std::int64_t ranks_per_node = 1;    ///< default for predictions (at most nodes' worth of ranks)
  link_params intra;                  ///< inside a node
  link_params inter;                  ///< across nodes
  /// Added per network hop beyond the first, per one-way message ([PGAS-BGQ §IV.B.1]: 35 ns on the
  /// Blue Gene/Q torus); 0 for a switched network. The models use the mean hop count of a
  /// torus of `torus_dims` dimensions holding the nodes in use (0: no torus).
  double hop_s = 0;
  /// Dimensions of the torus network (0: no torus).
  int torus_dims = 0;
  double copy_s_per_byte = 0;        ///< memcpy on one core
  double add_s_per_byte = 0;         ///< accumulate kernel (y += a x, doubles) on one core
  double pack_s_per_chunk = 0;       ///< packing or unpacking one contiguous chunk (per chunk)
  double dgemm_flops_per_core = 0;   ///< flop/s of one core's dgemm (large blocks)
  double memory_bytes_per_node = 0;  ///< sustained memory bandwidth of a node (STREAM copy), B/s
  /// True when an asynchronous progress thread serves active messages while the rank computes
  /// (Gaea's progress thread; [PGAS-BGQ §III.D]'s asynchronous thread on a spare SMT thread).
  bool progress_thread = true;
  /// True when the network executes remote atomics itself (InfiniBand, Cray Gemini); false when
  /// an atomic across nodes is served by the owner's handler like an active message (tcp here,
  /// Blue Gene/Q's PAMI [PGAS-BGQ §III.D]). Atomics inside a node are CPU atomics either way.
  bool network_atomics = false;
  setup_params setup;  ///< "setup" in the file (optional; defaults above)
  /// The collectives' estimator calibrated on this machine (`gaea-coll calibrate`, or
  /// `gaea-model calibrate --collectives`): "coll_calibration" in the file, a path relative to
  /// the machine file. When set, collectives are predicted by it instead of by the links' LogGP
  /// terms. Empty for described machines.
  std::filesystem::path coll_calibration;
  /// The estimator loaded from coll_calibration (null when none).
  std::shared_ptr<const coll::estimator> collectives;

  /// The link parameters of class `c` (intra or inter).
  const link_params& params(link_class c) const noexcept {
    return c == link_class::intra ? intra : inter;
  }
  /// Mean one-way latency added by hops among `nodes_used` nodes (hop_s x (mean hops - 1)).
  double mean_hop_s(std::int64_t nodes_used) const;
  /// Nodes that `ranks` ranks occupy at `ranks_per_node` per node.
  static std::int64_t nodes_for(std::int64_t ranks, std::int64_t ranks_per_node) noexcept {
    return ranks_per_node > 0 ? (ranks + ranks_per_node - 1) / ranks_per_node : 0;
  }
  /// gaea::error naming the machine and the field for a count below 1, a negative time or rate,
  /// or ranks_per_node above cores_per_node x threads_per_core.
  void check() const;
};

/// Reads a machine description (JSON, documented in framework/model/README.md). gaea::error naming
/// the file and the key for an unreadable file, invalid JSON, a missing or wrong-typed key, and
/// whatever machine::check() refuses.
machine load_machine(const std::filesystem::path& file);
/// `m` as the JSON text a machine file holds, and back (`what` names the text in errors, as a
/// file name would). For passing a description between ranks.
std::string to_json_text(const machine& m);
/// Reads a machine from JSON text (the inverse of to_json_text); gaea::error as load_machine,
/// naming the text by `what`.
machine machine_from_json_text(const std::string& text, const std::string& what);
/// Writes `m` as JSON to a temporary beside `file`, renamed over it when written. gaea::error when
/// it cannot (the file is then untouched).
void save_machine(const machine& m, const std::filesystem::path& file);

}  // namespace gaea::model
