// Array creation: NGA_Create* (32- and 64-bit), the handle path (GA_Create_handle, GA_Set_*,
// GA_Allocate), GA_Duplicate and GA_Destroy.

#include <algorithm>
#include <string>

#include "detail/indices.hpp"
#include "detail/state.hpp"
#include "ga.h"
#include "gaea/coll/collectives.hpp"

using namespace gaea::ga_compat::detail;
namespace ga = gaea::ga;
namespace coll = gaea::coll;
using gaea::error;

namespace {

// GA's chunk: entries <= 0 put no constraint on a dimension, an entry >= the extent keeps the
// dimension whole.
template <class I>
ga::index to_chunk(const I* chunk, const ga::index& dims) {
  if (chunk == nullptr) return {};
  ga::index out;
  for (std::size_t d = 0; d < dims.size(); ++d)
    out.push_back(std::clamp<ga::index_t>(static_cast<ga::index_t>(chunk[d]), 0, dims[d]));
  return out;
}

// GA's irregular map: nblock[d] block starts per dimension, concatenated.
template <class I, class J>
std::vector<std::vector<ga::index_t>> to_starts(const I* nblock, const J* map, int ndim) {
  if (nblock == nullptr || map == nullptr)
    throw error("irregular distribution: null nblock or map");
  std::vector<std::vector<ga::index_t>> starts(static_cast<std::size_t>(ndim));
  std::size_t k = 0;
  for (int d = 0; d < ndim; ++d) {
    if (nblock[d] < 1)
      throw error("irregular distribution: nblock[" + std::to_string(d) +
                  "]=" + std::to_string(nblock[d]) + " must be at least 1");
    for (long b = 0; b < static_cast<long>(nblock[d]); ++b)
      starts[static_cast<std::size_t>(d)].push_back(static_cast<ga::index_t>(map[k++]));
  }
  return starts;
}

// The process group an array is created on: `pgroup`, or the default group for -1 (as GA).
// gaea::error for an unknown group or when this rank is not one of its members.
int group_for(state& st, int pgroup, const char* fn) {
  const int p = pgroup == -1 ? st.default_pgroup : pgroup;
  if (group_of(p, fn).rank() < 0)
    throw error(std::string(fn) + ": rank " + std::to_string(st.rt->rank()) +
                " is not a member of process group " + std::to_string(p) +
                ", on which the array is created");
  return p;
}

// Creates the array of `slot` (collective over its group). Returns false, on every member
// alike, when some member's share would exceed the GA_Initialize_ltd budget.
bool allocate(state& st, array_slot& slot, const ga::index& dims, const ga::layout_spec& spec,
              int pgroup, const char* fn) {
  const coll::group& g = group_of(pgroup, fn);
  return visit_type(slot.type, fn, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const std::string name = slot.name.empty() ? "array " + std::to_string(slot.handle) : slot.name;
    std::vector<int> ranks(static_cast<std::size_t>(g.size()));
    for (int i = 0; i < g.size(); ++i)
      ranks[static_cast<std::size_t>(i)] = g.world_rank(i);
    const ga::distribution d(name, dims, g.size(), spec, ranks);
    std::vector<std::size_t> bytes(static_cast<std::size_t>(st.rt->size()));
    for (int r = 0; r < st.rt->size(); ++r)
      bytes[static_cast<std::size_t>(r)] =
          static_cast<std::size_t>(d.storage_elements(r)) * sizeof(T);
    if (st.memory_limit > 0) {
      // A rank knows its own usage only (arrays of groups it is not in escape it): the members
      // agree on the verdict, so that all of them create the array or none.
      const auto me = static_cast<std::size_t>(st.rt->rank());
      const int fits = st.memory_used[me] + bytes[me] <= st.memory_limit ? 1 : 0;
      if (coll::allreduce(g, fits, coll::reduce_op::min) == 0) return false;
    }
    slot.array.template emplace<ga::global_array<T>>(g, name, dims, spec);
    slot.pgroup = pgroup;
    slot.bytes_per_rank = std::move(bytes);
    for (std::size_t i = 0; i < slot.bytes_per_rank.size(); ++i)
      st.memory_used[i] += slot.bytes_per_rank[i];
    return true;
  });
}

// The NGA_Create* family: one path for every variant. Returns the handle, or 0 when the
// memory budget is exceeded (GA's "creation failed").
template <class I>
int create(const char* fn, int type, int ndim, const I* dims_in, const I* width, const char* name,
           ga::layout_spec spec, int pgroup) {
  state& st = current(fn);
  const int group = group_for(st, pgroup, fn);
  const ga::index dims = to_index(dims_in, ndim, "dims");
  if (ndim < 1) throw error(std::string(fn) + ": ndim " + std::to_string(ndim) + " (1 to 7)");
  if (width != nullptr) spec.ghosts = to_index(width, ndim, "width");
  (void)visit_type(type, fn, [](auto) { return 0; });  // unsupported type: error before allocating
  array_slot& slot = st.arrays.create();
  slot.type = type;
  slot.name = name ? name : "";
  bool ok = false;
  try {
    ok = allocate(st, slot, dims, spec, group, fn);
  } catch (...) {
    st.arrays.erase(slot.handle);
    throw;
  }
  if (!ok) {
    st.arrays.erase(slot.handle);
    return 0;
  }
  return slot.handle;
}

template <class I>
int create_block(const char* fn, int type, int ndim, const I* dims, const I* width,
                 const char* name, const I* chunk, int pgroup) {
  const ga::index d = to_index(dims, ndim, "dims");
  return create(fn, type, ndim, dims, width, name, ga::layout_spec::block(to_chunk(chunk, d)),
                pgroup);
}

template <class I>
int create_irreg(const char* fn, int type, int ndim, const I* dims, const I* width,
                 const char* name, const I* nblock, const I* map, int pgroup) {
  return create(fn, type, ndim, dims, width, name,
                ga::layout_spec::irregular(to_starts(nblock, map, ndim)), pgroup);
}

// ---- the handle path ----
template <class Fn>
void set(int g_a, const char* fn, Fn&& body) {
  array_slot& s = current(fn).arrays.at(g_a, fn);
  if (s.allocated()) throw error(std::string(fn) + ": array '" + s.name + "' is already allocated");
  body(s);
}

template <class I>
void set_data(int g_a, int ndim, const I* dims, int type, const char* fn) {
  set(g_a, fn, [&](array_slot& s) {
    (void)visit_type(type, fn, [](auto) { return 0; });
    if (ndim < 1) throw error(std::string(fn) + ": ndim " + std::to_string(ndim) + " (1 to 7)");
    s.pending.dims = to_index(dims, ndim, "dims");
    s.pending.type = type;
  });
}

// Setters that need the dimensions first.
template <class Fn>
void set_shaped(int g_a, const char* fn, Fn&& body) {
  set(g_a, fn, [&](array_slot& s) {
    if (s.pending.dims.empty())
      throw error(std::string(fn) + ": call GA_Set_data first (the dimensions are not known)");
    body(s, static_cast<int>(s.pending.dims.size()));
  });
}

template <class I>
void set_chunk(int g_a, const I* chunk, const char* fn) {
  set_shaped(g_a, fn, [&](array_slot& s, int) {
    const ga::index ghosts = s.pending.spec.ghosts;
    std::vector<int> ranks = std::move(s.pending.spec.ranks);  // GA_Set_restricted stays
    s.pending.spec = ga::layout_spec::block(to_chunk(chunk, s.pending.dims));
    s.pending.spec.ghosts = ghosts;
    s.pending.spec.ranks = std::move(ranks);
  });
}

template <class I>
void set_irreg(int g_a, const I* map, const I* nblock, const char* fn) {
  set_shaped(g_a, fn, [&](array_slot& s, int ndim) {
    const ga::index ghosts = s.pending.spec.ghosts;
    std::vector<int> ranks = std::move(s.pending.spec.ranks);  // GA_Set_restricted stays
    s.pending.spec = ga::layout_spec::irregular(to_starts(nblock, map, ndim));
    s.pending.spec.ghosts = ghosts;
    s.pending.spec.ranks = std::move(ranks);
  });
}

template <class I>
void set_ghosts(int g_a, const I* width, const char* fn) {
  set_shaped(g_a, fn, [&](array_slot& s, int ndim) {
    s.pending.spec.ghosts = to_index(width, ndim, "width");
  });
}

template <class I>
void set_block_cyclic(int g_a, const I* block, const I* grid, const char* fn) {
  set_shaped(g_a, fn, [&](array_slot& s, int ndim) {
    std::vector<int> g;
    if (grid != nullptr)
      for (int d = 0; d < ndim; ++d)
        g.push_back(static_cast<int>(grid[d]));
    s.pending.spec = ga::layout_spec::block_cyclic(to_index(block, ndim, "block"), g);
  });
}

int allocate_pending(int g_a, const char* fn) {
  state& st = current(fn);
  array_slot& s = st.arrays.at(g_a, fn);
  if (s.allocated()) throw error(std::string(fn) + ": array '" + s.name + "' is already allocated");
  if (s.pending.dims.empty())
    throw error(std::string(fn) + ": array handle " + std::to_string(g_a) +
                " has no data (call GA_Set_data first)");
  const int group = group_for(st, s.pending.pgroup, fn);
  s.type = s.pending.type;
  const bool ok = allocate(st, s, s.pending.dims, s.pending.spec, group, fn);
  return ok ? 1 : 0;
}

// GA_Deallocate: frees the array but keeps the handle and its settings, so that GA_Allocate
// can create it again (collective).
int deallocate(int g_a, const char* fn) {
  state& st = current(fn);
  array_slot& s = st.arrays.allocated(g_a, fn);
  visit_type(s.type, fn, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto& a = std::get<ga::global_array<T>>(s.array);
    s.pending.type = s.type;
    s.pending.dims = a.dims();
    s.pending.spec = a.layout().spec();
    s.pending.pgroup = s.pgroup;
    a.destroy();
  });
  s.array = std::monostate{};
  for (std::size_t i = 0; i < s.bytes_per_rank.size(); ++i)
    st.memory_used[i] -= s.bytes_per_rank[i];
  s.bytes_per_rank.clear();
  return 1;
}

void destroy(int g_a, const char* fn) {
  state& st = current(fn);
  array_slot& s = st.arrays.at(g_a, fn);
  for (std::size_t i = 0; i < s.bytes_per_rank.size(); ++i)
    st.memory_used[i] -= s.bytes_per_rank[i];
  st.arrays.erase(g_a);  // collective when allocated: the array syncs and frees its memory
}

int duplicate(int g_a, const char* name, const char* fn) {
  state& st = current(fn);
  array_slot& src = st.arrays.allocated(g_a, fn);
  const int type = src.type;
  return visit_type(type, fn, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto& a = std::get<ga::global_array<T>>(src.array);
    const ga::index dims = a.dims();
    const ga::layout_spec spec = a.layout().spec();
    array_slot& s = st.arrays.create();
    s.type = type;
    s.name = name ? name : "";
    s.property = st.arrays.at(g_a, fn).property;
    bool ok = false;
    try {
      ok = allocate(st, s, dims, spec, src.pgroup, fn);
    } catch (...) {
      st.arrays.erase(s.handle);
      throw;
    }
    if (!ok) {
      st.arrays.erase(s.handle);
      return 0;
    }
    return s.handle;
  });
}

}  // namespace

extern "C" {

int NGA_Create(int type, int ndim, int dims[], const char* name, int chunk[]) {
  return api("NGA_Create", [&] {
    return create_block<int>("NGA_Create", type, ndim, dims, nullptr, name, chunk, -1);
  });
}
int NGA_Create64(int type, int ndim, int64_t dims[], const char* name, int64_t chunk[]) {
  return api("NGA_Create64", [&] {
    return create_block<int64_t>("NGA_Create64", type, ndim, dims, nullptr, name, chunk, -1);
  });
}
int NGA_Create_config(int type, int ndim, int dims[], const char* name, int chunk[], int p) {
  return api("NGA_Create_config", [&] {
    return create_block<int>("NGA_Create_config", type, ndim, dims, nullptr, name, chunk, p);
  });
}
int NGA_Create_config64(int type, int ndim, int64_t dims[], const char* name, int64_t chunk[],
                        int p) {
  return api("NGA_Create_config64", [&] {
    return create_block<int64_t>("NGA_Create_config64", type, ndim, dims, nullptr, name, chunk, p);
  });
}
int NGA_Create_irreg(int type, int ndim, int dims[], const char* name, int nblock[], int map[]) {
  return api("NGA_Create_irreg", [&] {
    return create_irreg<int>("NGA_Create_irreg", type, ndim, dims, nullptr, name, nblock, map, -1);
  });
}
int NGA_Create_irreg64(int type, int ndim, int64_t dims[], const char* name, int64_t nblock[],
                       int64_t map[]) {
  return api("NGA_Create_irreg64", [&] {
    return create_irreg<int64_t>("NGA_Create_irreg64", type, ndim, dims, nullptr, name, nblock, map,
                                 -1);
  });
}
int NGA_Create_irreg_config(int type, int ndim, int dims[], const char* name, int nblock[],
                            int map[], int p) {
  return api("NGA_Create_irreg_config", [&] {
    return create_irreg<int>("NGA_Create_irreg_config", type, ndim, dims, nullptr, name, nblock,
                             map, p);
  });
}
int NGA_Create_irreg_config64(int type, int ndim, int64_t dims[], const char* name,
                              int64_t nblock[], int64_t map[], int p) {
  return api("NGA_Create_irreg_config64", [&] {
    return create_irreg<int64_t>("NGA_Create_irreg_config64", type, ndim, dims, nullptr, name,
                                 nblock, map, p);
  });
}
int NGA_Create_ghosts(int type, int ndim, int dims[], int width[], const char* name, int chunk[]) {
  return api("NGA_Create_ghosts", [&] {
    return create_block<int>("NGA_Create_ghosts", type, ndim, dims, width, name, chunk, -1);
  });
}
int NGA_Create_ghosts64(int type, int ndim, int64_t dims[], int64_t width[], const char* name,
                        int64_t chunk[]) {
  return api("NGA_Create_ghosts64", [&] {
    return create_block<int64_t>("NGA_Create_ghosts64", type, ndim, dims, width, name, chunk, -1);
  });
}
int NGA_Create_ghosts_config(int type, int ndim, int dims[], int width[], const char* name,
                             int chunk[], int p) {
  return api("NGA_Create_ghosts_config", [&] {
    return create_block<int>("NGA_Create_ghosts_config", type, ndim, dims, width, name, chunk, p);
  });
}
int NGA_Create_ghosts_config64(int type, int ndim, int64_t dims[], int64_t width[],
                               const char* name, int64_t chunk[], int p) {
  return api("NGA_Create_ghosts_config64", [&] {
    return create_block<int64_t>("NGA_Create_ghosts_config64", type, ndim, dims, width, name, chunk,
                                 p);
  });
}
int NGA_Create_ghosts_irreg(int type, int ndim, int dims[], int width[], const char* name,
                            int nblock[], int map[]) {
  return api("NGA_Create_ghosts_irreg", [&] {
    return create_irreg<int>("NGA_Create_ghosts_irreg", type, ndim, dims, width, name, nblock, map,
                             -1);
  });
}
int NGA_Create_ghosts_irreg64(int type, int ndim, int64_t dims[], int64_t width[], const char* name,
                              int64_t nblock[], int64_t map[]) {
  return api("NGA_Create_ghosts_irreg64", [&] {
    return create_irreg<int64_t>("NGA_Create_ghosts_irreg64", type, ndim, dims, width, name, nblock,
                                 map, -1);
  });
}
int NGA_Create_ghosts_irreg_config(int type, int ndim, int dims[], int width[], const char* name,
                                   int nblock[], int map[], int p) {
  return api("NGA_Create_ghosts_irreg_config", [&] {
    return create_irreg<int>("NGA_Create_ghosts_irreg_config", type, ndim, dims, width, name,
                             nblock, map, p);
  });
}
int NGA_Create_ghosts_irreg_config64(int type, int ndim, int64_t dims[], int64_t width[],
                                     const char* name, int64_t nblock[], int64_t map[], int p) {
  return api("NGA_Create_ghosts_irreg_config64", [&] {
    return create_irreg<int64_t>("NGA_Create_ghosts_irreg_config64", type, ndim, dims, width, name,
                                 nblock, map, p);
  });
}

int GA_Create_handle(void) {
  return api("GA_Create_handle", [] { return current("GA_Create_handle").arrays.create().handle; });
}
int NGA_Create_handle(void) {
  return GA_Create_handle();
}

void GA_Set_data(int g_a, int ndim, int dims[], int type) {
  api("GA_Set_data", [&] { set_data<int>(g_a, ndim, dims, type, "GA_Set_data"); });
}
void GA_Set_data64(int g_a, int ndim, int64_t dims[], int type) {
  api("GA_Set_data64", [&] { set_data<int64_t>(g_a, ndim, dims, type, "GA_Set_data64"); });
}
void GA_Set_array_name(int g_a, const char* name) {
  api("GA_Set_array_name",
      [&] { set(g_a, "GA_Set_array_name", [&](array_slot& s) { s.name = name ? name : ""; }); });
}
void GA_Set_chunk(int g_a, int chunk[]) {
  api("GA_Set_chunk", [&] { set_chunk<int>(g_a, chunk, "GA_Set_chunk"); });
}
void GA_Set_chunk64(int g_a, int64_t chunk[]) {
  api("GA_Set_chunk64", [&] { set_chunk<int64_t>(g_a, chunk, "GA_Set_chunk64"); });
}
void GA_Set_irreg_distr(int g_a, int map[], int nblock[]) {
  api("GA_Set_irreg_distr", [&] { set_irreg<int>(g_a, map, nblock, "GA_Set_irreg_distr"); });
}
void GA_Set_irreg_distr64(int g_a, int64_t map[], int64_t nblock[]) {
  api("GA_Set_irreg_distr64",
      [&] { set_irreg<int64_t>(g_a, map, nblock, "GA_Set_irreg_distr64"); });
}
void GA_Set_ghosts(int g_a, int width[]) {
  api("GA_Set_ghosts", [&] { set_ghosts<int>(g_a, width, "GA_Set_ghosts"); });
}
void GA_Set_ghosts64(int g_a, int64_t width[]) {
  api("GA_Set_ghosts64", [&] { set_ghosts<int64_t>(g_a, width, "GA_Set_ghosts64"); });
}
void GA_Set_block_cyclic(int g_a, int block[]) {
  api("GA_Set_block_cyclic",
      [&] { set_block_cyclic<int>(g_a, block, nullptr, "GA_Set_block_cyclic"); });
}
void GA_Set_block_cyclic64(int g_a, int64_t block[]) {
  api("GA_Set_block_cyclic64",
      [&] { set_block_cyclic<int64_t>(g_a, block, nullptr, "GA_Set_block_cyclic64"); });
}
void GA_Set_block_cyclic_proc_grid(int g_a, int block[], int proc_grid[]) {
  api("GA_Set_block_cyclic_proc_grid",
      [&] { set_block_cyclic<int>(g_a, block, proc_grid, "GA_Set_block_cyclic_proc_grid"); });
}
void GA_Set_block_cyclic_proc_grid64(int g_a, int64_t block[], int64_t proc_grid[]) {
  api("GA_Set_block_cyclic_proc_grid64",
      [&] { set_block_cyclic<int64_t>(g_a, block, proc_grid, "GA_Set_block_cyclic_proc_grid64"); });
}
void GA_Set_tiled_proc_grid(int g_a, int block[], int proc_grid[]) {
  api("GA_Set_tiled_proc_grid",
      [&] { set_block_cyclic<int>(g_a, block, proc_grid, "GA_Set_tiled_proc_grid"); });
}
void GA_Set_tiled_proc_grid64(int g_a, int64_t block[], int64_t proc_grid[]) {
  api("GA_Set_tiled_proc_grid64",
      [&] { set_block_cyclic<int64_t>(g_a, block, proc_grid, "GA_Set_tiled_proc_grid64"); });
}
void GA_Set_pgroup(int g_a, int p_handle) {
  api("GA_Set_pgroup", [&] {
    set(g_a, "GA_Set_pgroup", [&](array_slot& s) {
      group_of(p_handle, "GA_Set_pgroup");  // an unknown group is an error here already
      s.pending.pgroup = p_handle;
    });
  });
}
void GA_Set_property(int g_a, const char* property) {
  api("GA_Set_property", [&] {
    const std::string p = property ? property : "";
    // "read_only" (replicate, then read locally) and "read_cache" (keep what was read) are
    // performance hints in GA; here the array stays distributed and every read is a one-sided
    // get: the results a program may rely on, without the copies.
    if (p != "read_only" && p != "read_cache")
      throw error("GA_Set_property: property '" + p +
                  "' is not supported (only \"read_only\" and \"read_cache\")");
    current("GA_Set_property").arrays.at(g_a, "GA_Set_property").property = p;
  });
}
void GA_Unset_property(int g_a) {
  api("GA_Unset_property",
      [&] { current("GA_Unset_property").arrays.at(g_a, "GA_Unset_property").property.clear(); });
}
void GA_Set_irreg_flag(int g_a, int flag) {
  // The flag only says that a later GA_Set_irreg_distr will come; the distribution itself
  // decides here. Accepted for source compatibility; the handle must exist.
  api("GA_Set_irreg_flag", [&] {
    (void)flag;
    set(g_a, "GA_Set_irreg_flag", [](array_slot&) {});
  });
}
void GA_Set_ghost_corner_flag(int g_a, int flag) {
  api("GA_Set_ghost_corner_flag", [&] {
    // Gaea always fills corner ghost cells; asking to skip them only saves GA some messages.
    (void)flag;
    current("GA_Set_ghost_corner_flag").arrays.at(g_a, "GA_Set_ghost_corner_flag");
  });
}
int GA_Allocate(int g_a) {
  return api("GA_Allocate", [&] { return allocate_pending(g_a, "GA_Allocate"); });
}
int GA_Deallocate(int g_a) {
  return api("GA_Deallocate", [&] { return deallocate(g_a, "GA_Deallocate"); });
}
int NGA_Deallocate(int g_a) {
  return GA_Deallocate(g_a);
}
int GA_Duplicate(int g_a, const char* name) {
  return api("GA_Duplicate", [&] { return duplicate(g_a, name, "GA_Duplicate"); });
}
void GA_Destroy(int g_a) {
  api("GA_Destroy", [&] { destroy(g_a, "GA_Destroy"); });
}

// NGA_ spellings.
void NGA_Set_data(int g_a, int ndim, int dims[], int type) {
  GA_Set_data(g_a, ndim, dims, type);
}
void NGA_Set_data64(int g_a, int ndim, int64_t dims[], int type) {
  GA_Set_data64(g_a, ndim, dims, type);
}
void NGA_Set_array_name(int g_a, const char* name) {
  GA_Set_array_name(g_a, name);
}
void NGA_Set_chunk(int g_a, int chunk[]) {
  GA_Set_chunk(g_a, chunk);
}
void NGA_Set_chunk64(int g_a, int64_t chunk[]) {
  GA_Set_chunk64(g_a, chunk);
}
void NGA_Set_irreg_distr(int g_a, int map[], int nblock[]) {
  GA_Set_irreg_distr(g_a, map, nblock);
}
void NGA_Set_irreg_distr64(int g_a, int64_t map[], int64_t nblock[]) {
  GA_Set_irreg_distr64(g_a, map, nblock);
}
void NGA_Set_ghosts(int g_a, int width[]) {
  GA_Set_ghosts(g_a, width);
}
void NGA_Set_ghosts64(int g_a, int64_t width[]) {
  GA_Set_ghosts64(g_a, width);
}
void NGA_Set_block_cyclic(int g_a, int block[]) {
  GA_Set_block_cyclic(g_a, block);
}
void NGA_Set_block_cyclic64(int g_a, int64_t block[]) {
  GA_Set_block_cyclic64(g_a, block);
}
void NGA_Set_block_cyclic_proc_grid(int g_a, int block[], int proc_grid[]) {
  GA_Set_block_cyclic_proc_grid(g_a, block, proc_grid);
}
void NGA_Set_block_cyclic_proc_grid64(int g_a, int64_t block[], int64_t proc_grid[]) {
  GA_Set_block_cyclic_proc_grid64(g_a, block, proc_grid);
}
void NGA_Set_tiled_proc_grid(int g_a, int block[], int proc_grid[]) {
  GA_Set_tiled_proc_grid(g_a, block, proc_grid);
}
void NGA_Set_tiled_proc_grid64(int g_a, int64_t block[], int64_t proc_grid[]) {
  GA_Set_tiled_proc_grid64(g_a, block, proc_grid);
}
void NGA_Set_pgroup(int g_a, int p_handle) {
  GA_Set_pgroup(g_a, p_handle);
}
void NGA_Set_property(int g_a, const char* property) {
  GA_Set_property(g_a, property);
}
void NGA_Unset_property(int g_a) {
  GA_Unset_property(g_a);
}
void NGA_Set_irreg_flag(int g_a, int flag) {
  GA_Set_irreg_flag(g_a, flag);
}
int NGA_Allocate(int g_a) {
  return GA_Allocate(g_a);
}
int NGA_Duplicate(int g_a, const char* name) {
  return GA_Duplicate(g_a, name);
}
void NGA_Destroy(int g_a) {
  GA_Destroy(g_a);
}

}  // extern "C"
