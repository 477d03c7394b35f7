#pragma once
/// \file
/// Choices a collective call can take: algorithm, pipeline chunk, energy strategy.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gaea::coll {

/// The operation a collective performs; names the families algorithms belong to.
enum class operation : std::uint8_t {
  barrier,
  broadcast,
  reduce,
  allreduce,
  allgather,
  alltoall,
};

/// Algorithms. Each belongs to the families listed; `automatic` lets the estimator choose.
enum class algorithm : std::uint8_t {
  automatic,
  dissemination,       ///< barrier: log2 P rounds, rank+2^k
  binomial,            ///< broadcast, reduce: binomial tree
  scatter_allgather,   ///< broadcast: binomial scatter then ring allgather (large messages)
  chain,               ///< broadcast: pipelined chain, chunk = options::chunk_bytes
  recursive_doubling,  ///< allreduce
  ring,                ///< allgather(v); allreduce: reduce-scatter then allgather
  hierarchical,        ///< barrier, broadcast, reduce, allreduce: inside each node, then leaders
  bruck,               ///< alltoall: log2 P steps of packed blocks (small messages)
  pairwise,            ///< alltoall(v): rank XOR step (power-of-two group sizes only)
  send_recv,           ///< alltoall(v): send to rank+k, receive from rank-k (any size)
};

/// Whether a call applies the per-call energy strategy ([A2A-Energy]): lowest frequency for the
/// call, throttling by step. `automatic`: on where a writable (hardware) actuator exists.
enum class energy_mode : std::uint8_t { automatic, on, off };

/// "bruck", "send_recv", ... and back; parse returns nullopt for an unknown name.
std::string_view to_string(algorithm a) noexcept;
std::optional<algorithm> parse_algorithm(std::string_view s) noexcept;
std::string_view to_string(operation o) noexcept;
std::optional<operation> parse_operation(std::string_view s) noexcept;
std::string_view to_string(energy_mode m) noexcept;
/// True when `a` implements `op` (automatic implements all).
bool implements(algorithm a, operation op) noexcept;

/// Per-call options. Defaults come from GAEA_COLL_ALGO, GAEA_COLL_CHUNK and GAEA_COLL_ENERGY.
struct options {
  /// automatic: the estimator's choice (or GAEA_COLL_ALGO's for this operation).
  algorithm algo = algorithm::automatic;
  /// Pipeline chunk of `chain` in bytes; 0 = GAEA_COLL_CHUNK.
  std::size_t chunk_bytes = 0;
  /// automatic = the thread's scoped_energy setting, else GAEA_COLL_ENERGY.
  energy_mode energy = energy_mode::automatic;
};

/// Sets the energy mode of the collectives the calling thread starts while it lives (unless a
/// call passes its own). Restores the previous setting on destruction. Not copyable.
class scoped_energy {
 public:
  explicit scoped_energy(energy_mode m) noexcept;
  ~scoped_energy();
  scoped_energy(const scoped_energy&) = delete;
  scoped_energy& operator=(const scoped_energy&) = delete;

 private:
  energy_mode previous_;
  bool had_previous_ = false;
};

}  // namespace gaea::coll
