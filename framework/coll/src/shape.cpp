// Shape-only schedules of every algorithm (its registry entry's builder without buffers) for the
// estimator and the energy strategy, and synthetic groups of any size and node count.

#include "detail/shape.hpp"

#include <algorithm>
#include <vector>

#include "detail/builders.hpp"
#include "detail/registry.hpp"
#include "detail/service.hpp"
#include "detail/settings.hpp"
#include "gaea/base/assert.hpp"

namespace gaea::coll::detail {

namespace {
void noop(std::byte*, const std::byte*, std::size_t) {}
}  // namespace

schedule shape_schedule(operation op, algorithm a, const group_state& g, int me, std::size_t bytes,
                        std::size_t chunk) {
  const entry* e = find_entry(op, a);
  GAEA_ASSERT(e, "a shape is asked of an algorithm the operation does not have");
  const operation_entry& row = operation_registry()[static_cast<std::size_t>(op)];
  schedule s;
  s.shape_only = true;
  build_args args{.g = &g,
                  .me = me,
                  .root = row.rooted ? 0 : -1,
                  .bytes = bytes,
                  .count = bytes / 8,
                  .red = reducer{8, noop},
                  .chunk = chunk};
  const auto n = static_cast<std::size_t>(g.size());
  std::vector<std::size_t> sizes, offsets;
  exchange_layout l;
  if (row.data == shape_data::parts) {
    sizes.assign(n, bytes);
    offsets.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      offsets[i] = i * bytes;
    args.offsets = offsets;
    args.sizes = sizes;
  } else if (row.data == shape_data::layout) {
    l.send_len.assign(n, bytes);
    l.recv_len.assign(n, bytes);
    l.send_off.resize(n);
    l.recv_off.resize(n);
    args.layout = &l;
  }
  shm_context c;  // a region entry's steps: local work only (no messages)
  if (e->region) {
    c.g = &g;
    c.buffer_bytes = shm_buffer_bytes(g.svc ? g.svc->cfg() : settings{}, g.size());
    args.shm = &c;
  }
  e->build(s, args);
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
