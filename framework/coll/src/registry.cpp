// The collectives' registry (every algorithm of every operation with its builder, can-run check
// and inline form; every operation's default rule) and the choice of a call's algorithm.

#include "detail/registry.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <string>

#include "detail/estimator_state.hpp"
#include "detail/shm_inline.hpp"
#include "detail/shm_region.hpp"
#include "gaea/base/assert.hpp"
#include "gaea/base/error.hpp"
#include "gaea/coll/estimator.hpp"

namespace gaea::coll::detail {

namespace {

// The default rules' thresholds (README's table). The hierarchical broadcast's leaders switch
// to scatter-allgather at the same size as the flat rule.
constexpr std::size_t large_broadcast_bytes = std::size_t{512} << 10;
constexpr int deep_broadcast_tree_members = 8;  // scatter-allgather only on larger groups
// Broadcasts across nodes from this size go down a chain (hybrid_chain with several per node).
constexpr std::size_t pipelined_broadcast_bytes = std::size_t{128} << 10;
constexpr std::size_t ring_allreduce_bytes = std::size_t{256} << 10;
constexpr int linear_rooted_members = 8;  // gather, scatter: linear up to this many members
constexpr std::size_t bruck_block_one_node = 256, bruck_block_across_nodes = 8192;
// Allgather parts up to this size take Bruck's log2 P steps instead of the ring's P - 1.
constexpr std::size_t bruck_allgather_part = 8192;
// Ring allreduce and Bruck pay off only beyond a pair, where every algorithm is one exchange.
constexpr int pair_members = 2;

bool power_of_two(int n) {
  return n > 0 && (n & (n - 1)) == 0;
}
bool multi_node_shared(const group_state& g) {
  return g.nodes() > 1 && g.nodes() < g.size();
}

algorithm barrier_rule(const group_state& g, const call_shape&) {
  return multi_node_shared(g) ? algorithm::hierarchical : algorithm::dissemination;
}
algorithm broadcast_rule(const group_state& g, const call_shape& c) {
  // Binomial (or its hierarchical form) is fastest on small groups; scatter-allgather pays off
  // only once the tree is deep, so only large groups take it. Across a few nodes a large buffer
  // goes down a pipelined chain (between the leaders, whose node-mates then copy from them),
  // where every link carries it once and at once (docs/measurements.md).
  const bool pipelined = c.bytes >= pipelined_broadcast_bytes && g.nodes() > 1 &&
                         g.nodes() <= deep_broadcast_tree_members;
  if (multi_node_shared(g))
    return pipelined && process_copy_refusal().empty() ? algorithm::hybrid_chain
                                                       : algorithm::hierarchical;
  if (c.bytes >= large_broadcast_bytes && g.size() > deep_broadcast_tree_members)
    return algorithm::scatter_allgather;
  return pipelined ? algorithm::chain : algorithm::binomial;
}
algorithm reduce_rule(const group_state& g, const call_shape&) {
  return multi_node_shared(g) ? algorithm::hierarchical : algorithm::binomial;
}
algorithm allreduce_rule(const group_state& g, const call_shape& c) {
  if (c.bytes >= ring_allreduce_bytes && g.size() > pair_members) return algorithm::ring;
  return multi_node_shared(g) ? algorithm::hierarchical : algorithm::recursive_doubling;
}
algorithm allgather_rule(const group_state& g, const call_shape& c) {
  // Small parts are latency-bound: fewer steps win (docs/measurements.md).
  if (g.size() > pair_members && c.bytes <= bruck_allgather_part) return algorithm::bruck;
  return algorithm::ring;
}
algorithm rooted_rule(const group_state& g, const call_shape&) {
  // Each tree level is one more hop through a forwarding member, which costs more than the
  // root's P - 1 messages on small groups; on large ones the tree's log2 P rounds win
  // (docs/measurements.md).
  return g.size() <= linear_rooted_members ? algorithm::linear : algorithm::binomial;
}
algorithm alltoall_rule(const group_state& g, const call_shape& c) {
  // Bruck's log2 P steps win while latency dominates: small blocks, larger across nodes
  // (docs/measurements.md).
  const std::size_t bruck_max = g.nodes() > 1 ? bruck_block_across_nodes : bruck_block_one_node;
  if (c.uniform && g.size() > pair_members && c.bytes <= bruck_max) return algorithm::bruck;
  return power_of_two(g.size()) ? algorithm::pairwise : algorithm::send_recv;
}

std::string pairwise_check(const run_query& q) {
  if (!power_of_two(q.size)) return "pairwise exchange needs a power-of-two number of members";
  return {};
}
std::string bruck_check(const run_query& q) {
  if (!q.uniform) return "Bruck needs equal blocks (alltoall, not alltoallv)";
  return {};
}
// A group within one node (alltoall with equal blocks), GAEA_COLL_SHM_BYTES not 0, and the
// region made (or not tried yet).
std::string region_check(const run_query& q) {
  GAEA_ASSERT(q.g && q.s, "the shared-memory check needs the group and its settings");
  if (q.s->shm_bytes == 0) return "GAEA_COLL_SHM_BYTES=0";
  if (q.g->nodes() > 1)
    return "the members are on " + std::to_string(q.g->nodes()) + " nodes, not one";
  if (q.op == operation::alltoall && !q.uniform) return "alltoallv needs equal blocks";
  if (!q.g->shm_why.empty()) return "no shared memory region: " + q.g->shm_why;
  return {};
}

// The hybrid broadcasts' node step reads the leader's memory.
std::string process_copy_check(const run_query&) {
  if (const std::string& why = process_copy_refusal(); !why.empty())
    return "its node step copies from the leader's memory, and " + why;
  return {};
}

team flat(const build_args& a) {
  return whole(*a.g, a.me);
}

// Each algorithm's builder, on the call's arguments.
using args = const build_args&;
void barrier_by_dissemination(schedule& s, args a) {
  barrier_dissemination(s, flat(a), phase_a);
}
void barrier_by_hierarchical(schedule& s, args a) {
  barrier_hierarchical(s, *a.g, a.me);
}
void barrier_by_shm(schedule& s, args a) {
  shm_barrier(s, *a.shm);
}
void broadcast_by_binomial(schedule& s, args a) {
  bcast_binomial(s, flat(a), a.root, a.to, a.bytes, phase_a);
}
void broadcast_by_scatter_allgather(schedule& s, args a) {
  bcast_scatter_allgather(s, flat(a), a.root, a.to, a.bytes, phase_a);
}
void broadcast_by_chain(schedule& s, args a) {
  bcast_chain(s, flat(a), a.root, a.to, a.bytes, a.chunk, phase_a);
}
void broadcast_by_hierarchical(schedule& s, args a) {
  bcast_hierarchical(s, *a.g, a.me, a.root, a.to, a.bytes, large_broadcast_bytes);
}
void broadcast_by_hybrid_scatter_allgather(schedule& s, args a) {
  bcast_hybrid(s, *a.g, a.me, a.root, a.to, a.bytes, 0);
}
void broadcast_by_hybrid_chain(schedule& s, args a) {
  bcast_hybrid(s, *a.g, a.me, a.root, a.to, a.bytes, std::max<std::size_t>(a.chunk, 1));
}
void broadcast_by_shm(schedule& s, args a) {
  shm_broadcast(s, *a.shm, a.root, a.to, a.bytes);
}
void reduce_by_binomial(schedule& s, args a) {
  reduce_binomial(s, flat(a), a.root, a.from, a.to, a.count, a.red, phase_a);
}
void reduce_by_hierarchical(schedule& s, args a) {
  reduce_hierarchical(s, *a.g, a.me, a.root, a.from, a.to, a.count, a.red);
}
// reduce and allreduce (root -1).
void reduce_by_shm(schedule& s, args a) {
  shm_reduce(s, *a.shm, a.root, a.from, a.to, a.count, a.red);
}
// The allreduce builders reduce in place in `to`, which holds this member's input.
void allreduce_by_recursive_doubling(schedule& s, args a) {
  allreduce_recursive_doubling(s, flat(a), a.to, a.count, a.red, phase_a);
}
void allreduce_by_ring(schedule& s, args a) {
  allreduce_ring(s, flat(a), a.to, a.count, a.red, phase_a);
}
void allreduce_by_hierarchical(schedule& s, args a) {
  allreduce_hierarchical(s, *a.g, a.me, a.to, a.count, a.red);
}
void allgather_by_ring(schedule& s, args a) {
  allgather_ring(s, flat(a), a.from, a.to, a.offsets, a.sizes, phase_a);
}
void allgather_by_bruck(schedule& s, args a) {
  allgather_bruck(s, flat(a), a.from, a.to, a.offsets, a.sizes, phase_a);
}
// allgather (root -1) and gather.
void allgather_by_shm(schedule& s, args a) {
  shm_allgather(s, *a.shm, a.root, a.from, a.to, a.offsets, a.sizes);
}
void alltoall_by_bruck(schedule& s, args a) {
  alltoall_bruck(s, flat(a), a.from, a.to, a.bytes);
}
void alltoall_by_pairwise(schedule& s, args a) {
  alltoall_pairwise(s, flat(a), a.from, a.to, *a.layout);
}
void alltoall_by_send_recv(schedule& s, args a) {
  alltoall_send_recv(s, flat(a), a.from, a.to, *a.layout);
}
void alltoall_by_shm(schedule& s, args a) {
  shm_alltoall(s, *a.shm, a.from, a.to, a.bytes);
}
void gather_by_binomial(schedule& s, args a) {
  gather_binomial(s, flat(a), a.root, a.from, a.to, a.offsets, a.sizes, phase_a);
}
void gather_by_linear(schedule& s, args a) {
  gather_linear(s, flat(a), a.root, a.from, a.to, a.offsets, a.sizes, phase_a);
}
void scatter_by_binomial(schedule& s, args a) {
  scatter_binomial(s, flat(a), a.root, a.from, a.to, a.offsets, a.sizes, phase_a);
}
void scatter_by_linear(schedule& s, args a) {
  scatter_linear(s, flat(a), a.root, a.from, a.to, a.offsets, a.sizes, phase_a);
}
void scatter_by_shm(schedule& s, args a) {
  shm_scatter(s, *a.shm, a.root, a.from, a.to, a.offsets, a.sizes);
}

// The shared-memory forms of blocking calls on the calling thread.
using signature_ref = const call_signature&;
bool barrier_inline(group_state& g, signature_ref sig, args) {
  return shm_inline_barrier(g, sig);
}
bool broadcast_inline(group_state& g, signature_ref sig, args a) {
  return shm_inline_broadcast(g, sig, a.root, a.to, a.bytes);
}
bool reduce_inline(group_state& g, signature_ref sig, args a) {
  return shm_inline_reduce(g, sig, a.root, a.from, a.to, a.count, a.red);
}
bool allgather_inline(group_state& g, signature_ref sig, args a) {
  return shm_inline_allgather(g, sig, a.root, a.from, a.to, a.offsets, a.sizes);
}
bool alltoall_inline(group_state& g, signature_ref sig, args a) {
  return shm_inline_alltoall(g, sig, a.from, a.to, a.bytes);
}

// A message algorithm; algorithm::shared_memory (through the region, on a group within one
// node).
constexpr entry message_entry(operation op, algorithm a, builder build, run_check check = nullptr) {
  return {op, a, build, check, false, nullptr};
}
constexpr entry region_entry(operation op, builder build, inline_runner run_inline = nullptr) {
  return {op, algorithm::shared_memory, build, region_check, true, run_inline};
}

// The registry. Order: by operation, then by algorithm (checked below).
constexpr entry entries[] = {
    message_entry(operation::barrier, algorithm::dissemination, barrier_by_dissemination),
    message_entry(operation::barrier, algorithm::hierarchical, barrier_by_hierarchical),
    region_entry(operation::barrier, barrier_by_shm, barrier_inline),

    message_entry(operation::broadcast, algorithm::binomial, broadcast_by_binomial),
    message_entry(operation::broadcast, algorithm::scatter_allgather,
                  broadcast_by_scatter_allgather),
    message_entry(operation::broadcast, algorithm::chain, broadcast_by_chain),
    message_entry(operation::broadcast, algorithm::hierarchical, broadcast_by_hierarchical),
    region_entry(operation::broadcast, broadcast_by_shm, broadcast_inline),
    message_entry(operation::broadcast, algorithm::hybrid_scatter_allgather,
                  broadcast_by_hybrid_scatter_allgather, process_copy_check),
    message_entry(operation::broadcast, algorithm::hybrid_chain, broadcast_by_hybrid_chain,
                  process_copy_check),

    message_entry(operation::reduce, algorithm::binomial, reduce_by_binomial),
    message_entry(operation::reduce, algorithm::hierarchical, reduce_by_hierarchical),
    region_entry(operation::reduce, reduce_by_shm, reduce_inline),

    message_entry(operation::allreduce, algorithm::recursive_doubling,
                  allreduce_by_recursive_doubling),
    message_entry(operation::allreduce, algorithm::ring, allreduce_by_ring),
    message_entry(operation::allreduce, algorithm::hierarchical, allreduce_by_hierarchical),
    region_entry(operation::allreduce, reduce_by_shm, reduce_inline),

    message_entry(operation::allgather, algorithm::ring, allgather_by_ring),
    message_entry(operation::allgather, algorithm::bruck, allgather_by_bruck),
    region_entry(operation::allgather, allgather_by_shm, allgather_inline),

    message_entry(operation::alltoall, algorithm::bruck, alltoall_by_bruck, bruck_check),
    message_entry(operation::alltoall, algorithm::pairwise, alltoall_by_pairwise, pairwise_check),
    message_entry(operation::alltoall, algorithm::send_recv, alltoall_by_send_recv),
    region_entry(operation::alltoall, alltoall_by_shm, alltoall_inline),

    message_entry(operation::gather, algorithm::binomial, gather_by_binomial),
    message_entry(operation::gather, algorithm::linear, gather_by_linear),
    region_entry(operation::gather, allgather_by_shm, allgather_inline),

    message_entry(operation::scatter, algorithm::binomial, scatter_by_binomial),
    message_entry(operation::scatter, algorithm::linear, scatter_by_linear),
    region_entry(operation::scatter, scatter_by_shm),
};

constexpr operation_entry operations[] = {
    {operation::barrier, barrier_rule, false, shape_data::none},
    {operation::broadcast, broadcast_rule, true, shape_data::none},
    {operation::reduce, reduce_rule, true, shape_data::none},
    {operation::allreduce, allreduce_rule, false, shape_data::none},
    {operation::allgather, allgather_rule, false, shape_data::parts},
    {operation::alltoall, alltoall_rule, false, shape_data::layout},
    {operation::gather, rooted_rule, true, shape_data::parts},
    {operation::scatter, rooted_rule, true, shape_data::parts},
};

constexpr std::size_t algorithm_count = std::size(algorithm_names);

constexpr bool tables_in_order() {
  for (std::size_t i = 0; i < std::size(operations); ++i)
    if (static_cast<std::size_t>(operations[i].op) != i || !operations[i].default_rule)
      return false;
  for (std::size_t i = 0; i < std::size(entries); ++i) {
    if (!entries[i].build || entries[i].algo == algorithm::automatic) return false;
    if (i > 0 && (entries[i - 1].op > entries[i].op ||
                  (entries[i - 1].op == entries[i].op && entries[i - 1].algo >= entries[i].algo)))
      return false;
  }
  return true;
}
static_assert(std::size(operations) == operation_count, "one row per operation");
static_assert(tables_in_order(), "rows in operation order, entries by (operation, algorithm)");

// entry_index[op][algo]: the entry's position in `entries`, or -1.
constexpr auto entry_index = [] {
  std::array<std::array<int, algorithm_count>, operation_count> ix{};
  for (auto& row : ix)
    row.fill(-1);
  for (std::size_t i = 0; i < std::size(entries); ++i)
    ix[static_cast<std::size_t>(entries[i].op)][static_cast<std::size_t>(entries[i].algo)] =
        static_cast<int>(i);
  return ix;
}();

bool calibrated(const group_state& g, operation op) {
  const estimator* e = g.svc ? g.svc->model() : nullptr;
  if (!e) return false;
  for (const auto& kind : e->ops[static_cast<std::size_t>(op)].steps)
    for (const step_cost& c : kind)
      if (c.samples > 0) return true;
  return false;
}

}  // namespace

std::span<const entry> registry() noexcept {
  return entries;
}

std::span<const operation_entry> operation_registry() noexcept {
  return operations;
}

const entry* find_entry(operation op, algorithm a) noexcept {
  const auto o = static_cast<std::size_t>(op), x = static_cast<std::size_t>(a);
  if (o >= operation_count || x >= algorithm_count) return nullptr;
  const int i = entry_index[o][x];
  return i < 0 ? nullptr : &entries[i];
}

std::string why_not(const entry& e, const run_query& q) {
  return e.cannot_run ? e.cannot_run(q) : std::string{};
}

std::vector<algorithm> candidates(operation op, int size) {
  std::vector<algorithm> out;
  for (const entry& e : entries)
    if (e.op == op && !e.region && why_not(e, {op, size, true, nullptr, nullptr}).empty())
      out.push_back(e.algo);
  return out;
}

algorithm default_rule(const group_state& g, const call_shape& c) {
  return operations[static_cast<std::size_t>(c.op)].default_rule(g, c);
}

algorithm choose(const group_state& g, const call_shape& c, algorithm requested,
                 const settings& s) {
  algorithm a = requested;
  const char* from = "options::algo";
  if (a == algorithm::automatic) {
    a = s.algo[static_cast<std::size_t>(c.op)];
    from = "GAEA_COLL_ALGO";
  }
  const run_query q{c.op, g.size(), c.uniform, &g, &s};
  if (a == algorithm::automatic) {
    // Inside a node, memory every member maps beats any message exchange (the estimator
    // models messages only).
    if (g.size() > 1 && why_not(*find_entry(c.op, algorithm::shared_memory), q).empty())
      return algorithm::shared_memory;
    // An operation the calibration file did not measure keeps the rules: predictions from the
    // default step costs would rank its algorithms by round count alone.
    if (calibrated(g, c.op))
      if (auto best = estimator_choice(g, c)) return *best;
    return default_rule(g, c);
  }
  auto bad = [&](const std::string& why) {
    return error("gaea::coll: " + std::string(from) + " = " + std::string(to_string(a)) + " for " +
                 std::string(to_string(c.op)) + " on group '" + g.name + "' (" +
                 std::to_string(g.size()) + " members): " + why);
  };
  const entry* e = find_entry(c.op, a);
  if (!e) throw bad("not an algorithm of this operation");
  if (const std::string why = why_not(*e, q); !why.empty()) throw bad(why);
  return a;
}

}  // namespace gaea::coll::detail
