// Shape-only schedules of every algorithm (no buffers) for the estimator and the energy strategy,
// and synthetic groups of any size and node count to walk them on.

#include "detail/shape.hpp"

#include <algorithm>
#include <vector>

#include "detail/builders.hpp"
#include "detail/service.hpp"
#include "detail/settings.hpp"

namespace gaea::coll::detail {

namespace {
void noop(std::byte*, const std::byte*, std::size_t) {}

// algorithm::shared_memory's steps: local work only (its pattern has no messages).
void shm_shape(schedule& s, operation op, const group_state& g, std::size_t bytes) {
  shm_context c;
  c.g = &g;
  c.buffer_bytes = shm_buffer_bytes(g.svc ? g.svc->cfg() : settings{}, g.size());
  const auto n = static_cast<std::size_t>(g.size());
  std::vector<std::size_t> sizes(n, bytes), offsets(n);
  for (std::size_t i = 0; i < n; ++i)
    offsets[i] = i * bytes;
  switch (op) {
    case operation::barrier:
      return shm_barrier(s, c);
    case operation::broadcast:
      return shm_broadcast(s, c, 0, nullptr, bytes);
    case operation::reduce:
    case operation::allreduce:
      return shm_reduce(s, c, op == operation::reduce ? 0 : -1, nullptr, nullptr, bytes / 8,
                        reducer{8, noop});
    case operation::allgather:
    case operation::gather:
      return shm_allgather(s, c, op == operation::gather ? 0 : -1, nullptr, nullptr, offsets,
                           sizes);
    case operation::scatter:
      return shm_scatter(s, c, 0, nullptr, nullptr, offsets, sizes);
    case operation::alltoall:
      return shm_alltoall(s, c, nullptr, nullptr, bytes);
  }
}
}  // namespace

schedule shape_schedule(operation op, algorithm a, const group_state& g, int me, std::size_t bytes,
                        std::size_t chunk) {
  schedule s;
  s.shape_only = true;
  if (a == algorithm::shared_memory) {
    shm_shape(s, op, g, bytes);
    return s;
  }
  const team t = whole(g, me);
  const reducer r{8, noop};
  const std::size_t count = bytes / 8;
  switch (op) {
    case operation::barrier:
      if (a == algorithm::hierarchical)
        barrier_hierarchical(s, g, me);
      else
        barrier_dissemination(s, t, phase_a);
      break;
    case operation::broadcast:
      if (a == algorithm::scatter_allgather)
        bcast_scatter_allgather(s, t, 0, nullptr, bytes, phase_a);
      else if (a == algorithm::chain)
        bcast_chain(s, t, 0, nullptr, bytes, chunk, phase_a);
      else if (a == algorithm::hierarchical)
        bcast_hierarchical(s, g, me, 0, nullptr, bytes, std::size_t{512} << 10);
      else
        bcast_binomial(s, t, 0, nullptr, bytes, phase_a);
      break;
    case operation::reduce:
      if (a == algorithm::hierarchical)
        reduce_hierarchical(s, g, me, 0, nullptr, nullptr, count, r);
      else
        reduce_binomial(s, t, 0, nullptr, nullptr, count, r, phase_a);
      break;
    case operation::allreduce:
      if (a == algorithm::ring)
        allreduce_ring(s, t, nullptr, count, r, phase_a);
      else if (a == algorithm::hierarchical)
        allreduce_hierarchical(s, g, me, nullptr, count, r);
      else
        allreduce_recursive_doubling(s, t, nullptr, count, r, phase_a);
      break;
    case operation::allgather:
    case operation::gather:
    case operation::scatter: {
      const auto n = static_cast<std::size_t>(g.size());
      std::vector<std::size_t> sizes(n, bytes), offsets(n);
      for (std::size_t i = 0; i < n; ++i)
        offsets[i] = i * bytes;
      if (op == operation::allgather)
        allgather_ring(s, t, nullptr, nullptr, offsets, sizes, phase_a);
      else
        gather_scatter_builder(op, a)(s, t, 0, nullptr, nullptr, offsets, sizes, phase_a);
      break;
    }
    case operation::alltoall: {
      const auto n = static_cast<std::size_t>(g.size());
      exchange_layout l;
      l.send_len.assign(n, bytes);
      l.recv_len.assign(n, bytes);
      l.send_off.resize(n);
      l.recv_off.resize(n);
      if (a == algorithm::bruck)
        alltoall_bruck(s, t, nullptr, nullptr, bytes);
      else if (a == algorithm::pairwise)
        alltoall_pairwise(s, t, nullptr, nullptr, l);
      else
        alltoall_send_recv(s, t, nullptr, nullptr, l);
      break;
    }
  }
  return s;
}

std::shared_ptr<group_state> synthetic_group(int size, int nodes, bool block) {
  auto g = std::make_shared<group_state>();
  g->name = "model";
  g->me = 0;
  nodes = std::max(1, std::min(nodes, size));
  const int per = (size + nodes - 1) / nodes;
  g->node_members.resize(static_cast<std::size_t>(nodes));
  for (int i = 0; i < size; ++i) {
    g->ranks.push_back(i);
    const int n = block ? i / per : i % nodes;
    g->node.push_back(n);
    g->node_members[static_cast<std::size_t>(n)].push_back(i);
  }
  std::erase_if(g->node_members, [](const auto& m) { return m.empty(); });
  g->block = block || nodes == 1 || nodes == size;
  return g;
}

}  // namespace gaea::coll::detail
