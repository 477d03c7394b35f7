#pragma once
/// \file
/// Choices a collective call can take: algorithm, pipeline chunk, energy strategy.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "gaea/base/enum_names.hpp"

namespace gaea::coll {

/// The operation a collective performs; names the families algorithms belong to.
enum class operation : std::uint8_t {
  barrier,
  broadcast,
  reduce,
  allreduce,
  allgather,
  alltoall,
  gather,   ///< gather(v): every member's part to a root
  scatter,  ///< scatter(v): a root's parts to every member
};

/// Algorithms. Each belongs to the families listed; `automatic` lets the estimator choose.
enum class algorithm : std::uint8_t {
  automatic,
  dissemination,       ///< barrier: log2 P rounds, rank+2^k
  binomial,            ///< broadcast, reduce, gather(v), scatter(v): binomial tree
  linear,              ///< gather(v), scatter(v): the root talks to every member directly
  scatter_allgather,   ///< broadcast: binomial scatter then ring allgather (large messages)
  chain,               ///< broadcast: pipelined chain, chunk = options::chunk_bytes
  recursive_doubling,  ///< allreduce
  ring,                ///< allgather(v); allreduce: reduce-scatter then allgather
  hierarchical,        ///< barrier, broadcast, reduce, allreduce: inside each node, then leaders
  bruck,               ///< alltoall: log2 P steps of packed blocks (small messages)
  pairwise,            ///< alltoall(v): rank XOR step (power-of-two group sizes only)
  send_recv,           ///< alltoall(v): send to rank+k, receive from rank-k (any size)
  shared_memory,       ///< every operation (alltoall: equal blocks) on a group within one node:
                       ///< through a region every member maps (GAEA_COLL_SHM_BYTES)
  hybrid_scatter_allgather,  ///< broadcast: scatter-allgather between the nodes' leaders, then
                             ///< every other member copies once from its leader's buffer
                             ///< ([Bcast-Energy] Hybrid/SAG)
  hybrid_chain,              ///< broadcast: pipelined chain between the leaders, then the same
                             ///< copy from the leader ([Bcast-Energy] Hybrid/Pipeline)
};

/// Whether a call applies the per-call energy strategy ([A2A-Energy]): lowest frequency for the
/// call, throttling by step. `automatic`: on where a writable (hardware) actuator exists.
enum class energy_mode : std::uint8_t { automatic, on, off };

/// Text names of the collective operations, in value order.
inline constexpr enum_name<operation> operation_names[] = {
    {operation::barrier, "barrier"},     {operation::broadcast, "broadcast"},
    {operation::reduce, "reduce"},       {operation::allreduce, "allreduce"},
    {operation::allgather, "allgather"}, {operation::alltoall, "alltoall"},
    {operation::gather, "gather"},       {operation::scatter, "scatter"}};
/// Text names of the algorithms, in value order (GAEA_COLL_ALGO's spellings).
inline constexpr enum_name<algorithm> algorithm_names[] = {
    {algorithm::automatic, "auto"},
    {algorithm::dissemination, "dissemination"},
    {algorithm::binomial, "binomial"},
    {algorithm::linear, "linear"},
    {algorithm::scatter_allgather, "scatter_allgather"},
    {algorithm::chain, "chain"},
    {algorithm::recursive_doubling, "recursive_doubling"},
    {algorithm::ring, "ring"},
    {algorithm::hierarchical, "hierarchical"},
    {algorithm::bruck, "bruck"},
    {algorithm::pairwise, "pairwise"},
    {algorithm::send_recv, "send_recv"},
    {algorithm::shared_memory, "shm"},
    {algorithm::hybrid_scatter_allgather, "hybrid_scatter_allgather"},
    {algorithm::hybrid_chain, "hybrid_chain"}};
/// GAEA_COLL_ENERGY's choices.
inline constexpr enum_name<energy_mode> energy_mode_names[] = {
    {energy_mode::automatic, "auto"}, {energy_mode::on, "on"}, {energy_mode::off, "off"}};
/// Name table of operation for gaea::to_string and gaea::parse.
constexpr enum_names<operation> enum_names_of(operation) noexcept {
  return {"collective operation", operation_names};
}
/// Name table of algorithm for gaea::to_string and gaea::parse.
constexpr enum_names<algorithm> enum_names_of(algorithm) noexcept {
  return {"collective algorithm", algorithm_names};
}
/// Name table of energy_mode for gaea::to_string and gaea::parse.
constexpr enum_names<energy_mode> enum_names_of(energy_mode) noexcept {
  return {"collective energy mode", energy_mode_names};
}

/// "bruck", "send_recv", ... and back; parse returns nullopt for an unknown name.
constexpr std::string_view to_string(algorithm a) noexcept {
  return gaea::to_string<algorithm>(a);
}
/// Parses an algorithm name ("auto", "bruck", "shm", ...); nullopt for an unknown one.
constexpr std::optional<algorithm> parse_algorithm(std::string_view s) noexcept {
  return gaea::try_parse<algorithm>(s);
}
/// Text name of `o` ("barrier", "broadcast", ...).
constexpr std::string_view to_string(operation o) noexcept {
  return gaea::to_string<operation>(o);
}
/// Parses an operation name; nullopt for an unknown one.
constexpr std::optional<operation> parse_operation(std::string_view s) noexcept {
  return gaea::try_parse<operation>(s);
}
/// Text name of `m` ("auto", "on", "off").
constexpr std::string_view to_string(energy_mode m) noexcept {
  return gaea::to_string<energy_mode>(m);
}
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
  /// Makes `m` the calling thread's energy mode until the destructor.
  explicit scoped_energy(energy_mode m) noexcept;
  ~scoped_energy();
  scoped_energy(const scoped_energy&) = delete;
  scoped_energy& operator=(const scoped_energy&) = delete;

 private:
  energy_mode previous_;
  bool had_previous_ = false;
};

}  // namespace gaea::coll
