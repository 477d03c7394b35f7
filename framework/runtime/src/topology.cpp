// gaea::topology: this node's hwloc view, the thread's binding, and the progress thread's place.

#include "gaea/runtime/topology.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "gaea/base/error.hpp"

namespace gaea {

struct topology::impl {
  hwloc_topology_t topo = nullptr;
  ~impl() {
    if (topo) hwloc_topology_destroy(topo);
  }
};

namespace {
std::vector<int> to_vector(hwloc_const_bitmap_t set) {
  std::vector<int> out;
  int i = -1;
  while ((i = hwloc_bitmap_next(set, i)) != -1)
    out.push_back(i);
  return out;
}
}  // namespace

topology::topology() : impl_(std::make_unique<impl>()) {
  if (hwloc_topology_init(&impl_->topo) != 0 || hwloc_topology_load(impl_->topo) != 0)
    throw error("gaea::topology: hwloc could not load the machine topology");
  hwloc_topology_t t = impl_->topo;
  packages_ = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
  cores_ = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
  pus_ = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  for (int c = 0; c < cores_; ++c) {
    hwloc_obj_t core = hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, static_cast<unsigned>(c));
    std::vector<int> pus;
    for (int i = -1; (i = hwloc_bitmap_next(core->cpuset, i)) != -1;)
      pus.push_back(i);
    by_core_.push_back(std::move(pus));
  }
  if (cores_ == 0)  // some VMs report no core objects: treat every PU as a core
    for (int p : allowed_pus())
      by_core_.push_back({p});

  double mem_gib = 0;
  if (hwloc_obj_t root = hwloc_get_root_obj(t))
    mem_gib = static_cast<double>(root->total_memory) / (1024.0 * 1024.0 * 1024.0);
  std::string caches;
  for (hwloc_obj_type_t type : {HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE}) {
    if (hwloc_obj_t c = hwloc_get_obj_by_type(t, type, 0)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, ", L%u %llu KiB x%d", c->attr->cache.depth,
                    static_cast<unsigned long long>(c->attr->cache.size / 1024),
                    hwloc_get_nbobjs_by_type(t, type));
      caches += buf;
    }
  }
  char buf[256];
  std::snprintf(buf, sizeof buf, "%d package%s, %d cores, %d PUs (%d per core), %.1f GiB%s",
                packages_, packages_ == 1 ? "" : "s", cores_, pus_, cores_ ? pus_ / cores_ : 1,
                mem_gib, caches.c_str());
  summary_ = buf;
}

topology::~topology() = default;

std::vector<int> topology::thread_binding() const {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  std::vector<int> out;
  if (hwloc_get_cpubind(impl_->topo, set, HWLOC_CPUBIND_THREAD) == 0) out = to_vector(set);
  hwloc_bitmap_free(set);
  return out.empty() ? allowed_pus() : out;
}

std::vector<int> topology::allowed_pus() const {
  return to_vector(hwloc_topology_get_allowed_cpuset(impl_->topo));
}

progress_placement place_progress_thread(const std::vector<std::vector<int>>& pus_by_core,
                                         const std::vector<int>& allowed,
                                         const std::vector<int>& own,
                                         const std::vector<std::vector<int>>& node, int node_rank) {
  const std::set<int> allowed_set(allowed.begin(), allowed.end());
  auto bound = [&](const std::vector<int>& b) { return !b.empty() && b.size() < allowed.size(); };
  std::set<int> used;
  bool all_bound = true;
  for (const auto& b : node) {
    all_bound = all_bound && bound(b);
    used.insert(b.begin(), b.end());
  }
  progress_placement p;
  if (bound(own)) {
    // An SMT sibling: a PU of a core the main thread is bound to, used by no rank.
    for (std::size_t c = 0; c < pus_by_core.size(); ++c) {
      const auto& core = pus_by_core[c];
      const bool mine = std::any_of(core.begin(), core.end(), [&](int pu) {
        return std::find(own.begin(), own.end(), pu) != own.end();
      });
      if (!mine) continue;
      for (int pu : core)
        if (!used.count(pu) && allowed_set.count(pu)) {
          p.cpus = {pu};
          p.description =
              "SMT sibling on core " + std::to_string(c) + " (PU " + std::to_string(pu) + ")";
          p.dedicated = true;
          return p;
        }
    }
  }
  if (all_bound) {
    // Spare cores (no PU used by any rank), handed out by node rank.
    std::vector<std::size_t> spare;
    for (std::size_t c = 0; c < pus_by_core.size(); ++c) {
      const auto& core = pus_by_core[c];
      if (std::none_of(core.begin(), core.end(), [&](int pu) { return used.count(pu) > 0; }) &&
          std::all_of(core.begin(), core.end(), [&](int pu) { return allowed_set.count(pu) > 0; }))
        spare.push_back(c);
    }
    if (static_cast<std::size_t>(node_rank) < spare.size()) {
      const std::size_t c = spare[static_cast<std::size_t>(node_rank)];
      p.cpus = pus_by_core[c];
      p.description =
          "spare core " + std::to_string(c) + " (PU " + std::to_string(p.cpus.front()) + ")";
      p.dedicated = true;
      return p;
    }
  }
  // Unpinned: float over every allowed PU, not over the main thread's (inherited) binding.
  p.cpus = allowed;
  p.description = "unpinned";
  return p;
}

}  // namespace gaea
