// GA's Fortran API: start-up, process queries, creation, inquiry and distribution.
// Fortran sees arrays column-major with 1-based subscripts; the C layer row-major and 0-based:
// every dims/chunk/lo/hi list is reversed (and subscripts shifted) on the way (detail/fortran.hpp).

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "detail/fortran.hpp"

using namespace gaea::ga_compat::fortran;
using gaea::error;

namespace {

// Dimensions of a handle, also before GA_Allocate (from GA_Set_data).
int any_ndim(fint g_a, const char* fn) {
  auto& slot = gaea::ga_compat::detail::current(fn).arrays.at(handle(g_a, fn), fn);
  if (slot.allocated()) return GA_Ndim(slot.handle);
  if (slot.pending.type == 0) throw error(std::string(fn) + ": call ga_set_data first");
  return static_cast<int>(slot.pending.dims.size());
}

// An irregular distribution's map (Fortran: blocks of dimension 1 first, 1-based starts) in C
// order; nblock is the Fortran list.
std::vector<std::int64_t> c_map(const fint* map, const fint* nblock, int ndim, const char* fn) {
  std::vector<std::size_t> first(static_cast<std::size_t>(ndim));
  std::size_t total = 0;
  for (int d = 0; d < ndim; ++d) {
    if (nblock[d] < 1)
      throw error(std::string(fn) + ": nblock(" + std::to_string(d + 1) + ") is " +
                  std::to_string(nblock[d]));
    first[static_cast<std::size_t>(d)] = total;
    total += static_cast<std::size_t>(nblock[d]);
  }
  std::vector<std::int64_t> c;
  c.reserve(total);
  for (int d = ndim - 1; d >= 0; --d)
    for (fint b = 0; b < nblock[d]; ++b)
      c.push_back(static_cast<std::int64_t>(
                      map[first[static_cast<std::size_t>(d)] + static_cast<std::size_t>(b)]) -
                  1);
  return c;
}

// The pieces of a patch and their owners (C order, 0-based; 2*ndim values a piece).
struct region {
  std::vector<std::int64_t> map;
  std::vector<int> procs;
};
region locate_region(fint g_a, const fint* lo, const fint* hi, const char* fn) {
  const int n = ndim_of(g_a, fn), h = handle(g_a, fn);
  c_values l = c_subscript(lo, n, fn), u = c_subscript(hi, n, fn);
  const int count = NGA_Locate_nnodes64(h, l.data(), u.data());
  region r;
  if (count <= 0) return r;
  // Block-cyclic arrays may give one owner several pieces: room for every block.
  const auto room = static_cast<std::size_t>(std::max(count, GA_Total_blocks(h)) + 1);
  r.map.resize(room * 2 * static_cast<std::size_t>(n));
  r.procs.resize(room);
  const int got = NGA_Locate_region64(h, l.data(), u.data(), r.map.data(), r.procs.data());
  r.procs.resize(static_cast<std::size_t>(std::max(got, 0)));
  return r;
}

fint created(int h, fint* g_a) {
  *g_a = h;
  return to_logical(h != 0);
}

}  // namespace

extern "C" {

// ---- Start-up and process queries -------------------------------------------------------------
void ga_initialize_() {
  GA_Initialize();
}
void ga_initialize_ltd_(fint* limit) {
  GA_Initialize_ltd(static_cast<std::size_t>(*limit < 0 ? 0 : *limit));
}
fint ga_initialized_() {
  return to_logical(GA_Initialized() != 0);
}
void ga_terminate_() {
  GA_Terminate();
}
void ga_error_(const char* message, fint* code, flen len) {
  GA_Error(from_fortran(message, len).c_str(), static_cast<int>(*code));
}
fint ga_nodeid_() {
  return GA_Nodeid();
}
fint ga_nnodes_() {
  return GA_Nnodes();
}
double ga_wtime_() {
  return GA_Wtime();
}
fint ga_uses_ma_() {
  return to_logical(false);
}
fint ga_memory_limited_() {
  return to_logical(GA_Memory_limited() != 0);
}
fint ga_memory_avail_() {
  return api("ga_memory_avail", [] {
    return narrow(static_cast<std::int64_t>(GA_Memory_avail()), "ga_memory_avail", "size");
  });
}
fint ga_inquire_memory_() {
  return api("ga_inquire_memory", [] {
    return narrow(static_cast<std::int64_t>(GA_Inquire_memory()), "ga_inquire_memory", "size");
  });
}
void ga_set_memory_limit_(fint* limit) {
  GA_Set_memory_limit(static_cast<std::size_t>(*limit < 0 ? 0 : *limit));
}
void ga_print_stats_() {
  GA_Print_stats();
}
void ga_summarize_(fint* verbose) {
  GA_Summarize(static_cast<int>(*verbose));
}
void ga_set_debug_(fint* flag) {
  GA_Set_debug(*flag != 0);
}
fint ga_get_debug_() {
  return to_logical(GA_Get_debug() != 0);
}
void ga_sync_() {
  GA_Sync();
}
void ga_fence_() {
  GA_Fence();
}
void ga_init_fence_() {
  GA_Init_fence();
}
void ga_mask_sync_(fint* first, fint* last) {
  GA_Mask_sync(static_cast<int>(*first), static_cast<int>(*last));
}
fint ga_cluster_nnodes_() {
  return GA_Cluster_nnodes();
}
fint ga_cluster_nodeid_() {
  return GA_Cluster_nodeid();
}
fint ga_cluster_nprocs_(fint* node) {
  // GA (ARMCI) answers a negative node with the caller's node; GA's test.F asks for node -1.
  return GA_Cluster_nprocs(*node < 0 ? GA_Cluster_nodeid() : static_cast<int>(*node));
}
fint ga_cluster_procid_(fint* node, fint* local) {
  return GA_Cluster_procid(static_cast<int>(*node), static_cast<int>(*local));
}
fint ga_cluster_proc_nodeid_(fint* proc) {
  return GA_Cluster_proc_nodeid(static_cast<int>(*proc));
}
fint ga_pgroup_get_world_() {
  return GA_Pgroup_get_world();
}
fint ga_pgroup_get_default_() {
  return GA_Pgroup_get_default();
}
fint ga_pgroup_nodeid_(fint* p) {
  return GA_Pgroup_nodeid(static_cast<int>(*p));
}
fint ga_pgroup_nnodes_(fint* p) {
  return GA_Pgroup_nnodes(static_cast<int>(*p));
}
void ga_pgroup_sync_(fint* p) {
  GA_Pgroup_sync(static_cast<int>(*p));
}
void ga_pgroup_set_default_(fint* p) {
  GA_Pgroup_set_default(static_cast<int>(*p));
}
// list: the members' ranks in the default group (0-based, as in GA's Fortran API).
fint ga_pgroup_create_(fint* list, fint* count) {
  return api("ga_pgroup_create", [&] {
    std::vector<int> l(list, list + std::max<fint>(*count, 0));
    return static_cast<fint>(GA_Pgroup_create(l.data(), static_cast<int>(*count)));
  });
}
fint ga_pgroup_split_irreg_(fint* p, fint* color) {
  return GA_Pgroup_split_irreg(static_cast<int>(*p), static_cast<int>(*color));
}
fint ga_pgroup_destroy_(fint* p) {
  return to_logical(GA_Pgroup_destroy(static_cast<int>(*p)) != 0);
}
fint ga_pgroup_absolute_id_(fint* p, fint* pid) {
  return GA_Pgroup_absolute_id(static_cast<int>(*p), static_cast<int>(*pid));
}
// n groups of consecutive ids of group p (collective over p), as GA_Pgroup_split.
fint ga_pgroup_split_(fint* p, fint* n) {
  return GA_Pgroup_split(static_cast<int>(*p), static_cast<int>(*n));
}
fint ga_pgroup_self_() {
  return GA_Pgroup_self();
}
fint ga_pgroup_duplicate_(fint* p) {
  return GA_Pgroup_duplicate(static_cast<int>(*p));
}
// Mirrored arrays as the C layer has them: the mirror group is the world group.
fint ga_pgroup_get_mirror_() {
  return GA_Pgroup_get_mirror();
}
void ga_merge_mirrored_(fint* g_a) {
  GA_Merge_mirrored(static_cast<int>(*g_a));
}
void nga_merge_distr_patch_(fint* g_a, fint* alo, fint* ahi, fint* g_b, fint* blo, fint* bhi) {
  api("nga_merge_distr_patch", [&] {
    const char* fn = "nga_merge_distr_patch";
    nd_patch a = patch(g_a, alo, ahi, fn), b = patch(g_b, blo, bhi, fn);
    NGA_Merge_distr_patch64(a.h, a.lo.data(), a.hi.data(), b.h, b.lo.data(), b.hi.data());
  });
}
// Registered element types: GA's numbers and return codes (arrays cannot hold them here).
fint nga_register_type_(fint* bytes) {
  return api("nga_register_type", [&] {
    if (*bytes <= 0) throw error("nga_register_type: size " + std::to_string(*bytes));
    return static_cast<fint>(NGA_Register_type(static_cast<std::size_t>(*bytes)));
  });
}
fint nga_deregister_type_(fint* type) {
  return NGA_Deregister_type(static_cast<int>(*type));
}

// ---- Creation ---------------------------------------------------------------------------------
fint nga_create_(fint* type, fint* ndim, fint* dims, const char* name, fint* chunk, fint* g_a,
                 flen len) {
  return api("nga_create", [&] {
    const int n = static_cast<int>(*ndim);
    c_values d = c_extent(dims, n, "nga_create"), c = c_extent(chunk, n, "nga_create");
    return created(NGA_Create64(c_type(*type, "nga_create"), n, d.data(),
                                from_fortran(name, len).c_str(), c.data()),
                   g_a);
  });
}
fint nga_create_config_(fint* type, fint* ndim, fint* dims, const char* name, fint* chunk,
                        fint* p_handle, fint* g_a, flen len) {
  return api("nga_create_config", [&] {
    const int n = static_cast<int>(*ndim);
    c_values d = c_extent(dims, n, "nga_create_config"),
             c = c_extent(chunk, n, "nga_create_config");
    return created(
        NGA_Create_config64(c_type(*type, "nga_create_config"), n, d.data(),
                            from_fortran(name, len).c_str(), c.data(), static_cast<int>(*p_handle)),
        g_a);
  });
}
fint ga_create_(fint* type, fint* dim1, fint* dim2, const char* name, fint* chunk1, fint* chunk2,
                fint* g_a, flen len) {
  fint dims[2] = {*dim1, *dim2}, chunk[2] = {*chunk1, *chunk2}, two = 2;
  return nga_create_(type, &two, dims, name, chunk, g_a, len);
}
fint nga_create_irreg_(fint* type, fint* ndim, fint* dims, const char* name, fint* map,
                       fint* nblock, fint* g_a, flen len) {
  return api("nga_create_irreg", [&] {
    const int n = static_cast<int>(*ndim);
    c_values d = c_extent(dims, n, "nga_create_irreg"),
             nb = c_extent(nblock, n, "nga_create_irreg");
    std::vector<std::int64_t> m = c_map(map, nblock, n, "nga_create_irreg");
    return created(NGA_Create_irreg64(c_type(*type, "nga_create_irreg"), n, d.data(),
                                      from_fortran(name, len).c_str(), nb.data(), m.data()),
                   g_a);
  });
}
fint ga_create_irreg_(fint* type, fint* dim1, fint* dim2, const char* name, fint* map1,
                      fint* nblock1, fint* map2, fint* nblock2, fint* g_a, flen len) {
  std::vector<fint> map(map1, map1 + *nblock1);
  map.insert(map.end(), map2, map2 + *nblock2);
  fint dims[2] = {*dim1, *dim2}, nblock[2] = {*nblock1, *nblock2}, two = 2;
  return nga_create_irreg_(type, &two, dims, name, map.data(), nblock, g_a, len);
}
fint nga_create_ghosts_(fint* type, fint* ndim, fint* dims, fint* width, const char* name,
                        fint* chunk, fint* g_a, flen len) {
  return api("nga_create_ghosts", [&] {
    const int n = static_cast<int>(*ndim);
    c_values d = c_extent(dims, n, "nga_create_ghosts"),
             w = c_extent(width, n, "nga_create_ghosts"),
             c = c_extent(chunk, n, "nga_create_ghosts");
    return created(NGA_Create_ghosts64(c_type(*type, "nga_create_ghosts"), n, d.data(), w.data(),
                                       from_fortran(name, len).c_str(), c.data()),
                   g_a);
  });
}
fint nga_create_ghosts_irreg_(fint* type, fint* ndim, fint* dims, fint* width, const char* name,
                              fint* map, fint* nblock, fint* g_a, flen len) {
  return api("nga_create_ghosts_irreg", [&] {
    const int n = static_cast<int>(*ndim);
    const char* fn = "nga_create_ghosts_irreg";
    c_values d = c_extent(dims, n, fn), w = c_extent(width, n, fn), nb = c_extent(nblock, n, fn);
    std::vector<std::int64_t> m = c_map(map, nblock, n, fn);
    return created(NGA_Create_ghosts_irreg64(c_type(*type, fn), n, d.data(), w.data(),
                                             from_fortran(name, len).c_str(), nb.data(), m.data()),
                   g_a);
  });
}
fint nga_create_irreg_config_(fint* type, fint* ndim, fint* dims, const char* name, fint* map,
                              fint* nblock, fint* p_handle, fint* g_a, flen len) {
  return api("nga_create_irreg_config", [&] {
    const int n = static_cast<int>(*ndim);
    const char* fn = "nga_create_irreg_config";
    c_values d = c_extent(dims, n, fn), nb = c_extent(nblock, n, fn);
    std::vector<std::int64_t> m = c_map(map, nblock, n, fn);
    return created(
        NGA_Create_irreg_config64(c_type(*type, fn), n, d.data(), from_fortran(name, len).c_str(),
                                  nb.data(), m.data(), static_cast<int>(*p_handle)),
        g_a);
  });
}
fint nga_create_ghosts_config_(fint* type, fint* ndim, fint* dims, fint* width, const char* name,
                               fint* chunk, fint* p_handle, fint* g_a, flen len) {
  return api("nga_create_ghosts_config", [&] {
    const int n = static_cast<int>(*ndim);
    const char* fn = "nga_create_ghosts_config";
    c_values d = c_extent(dims, n, fn), w = c_extent(width, n, fn), c = c_extent(chunk, n, fn);
    return created(NGA_Create_ghosts_config64(c_type(*type, fn), n, d.data(), w.data(),
                                              from_fortran(name, len).c_str(), c.data(),
                                              static_cast<int>(*p_handle)),
                   g_a);
  });
}
fint nga_create_ghosts_irreg_config_(fint* type, fint* ndim, fint* dims, fint* width,
                                     const char* name, fint* map, fint* nblock, fint* p_handle,
                                     fint* g_a, flen len) {
  return api("nga_create_ghosts_irreg_config", [&] {
    const int n = static_cast<int>(*ndim);
    const char* fn = "nga_create_ghosts_irreg_config";
    c_values d = c_extent(dims, n, fn), w = c_extent(width, n, fn), nb = c_extent(nblock, n, fn);
    std::vector<std::int64_t> m = c_map(map, nblock, n, fn);
    return created(NGA_Create_ghosts_irreg_config64(c_type(*type, fn), n, d.data(), w.data(),
                                                    from_fortran(name, len).c_str(), nb.data(),
                                                    m.data(), static_cast<int>(*p_handle)),
                   g_a);
  });
}
fint ga_duplicate_(fint* g_a, fint* g_b, const char* name, flen len) {
  return api("ga_duplicate", [&] {
    return created(GA_Duplicate(handle(*g_a, "ga_duplicate"), from_fortran(name, len).c_str()),
                   g_b);
  });
}
fint ga_destroy_(fint* g_a) {
  return api("ga_destroy", [&] {
    GA_Destroy(handle(*g_a, "ga_destroy"));
    return to_logical(true);
  });
}
fint ga_create_handle_() {
  return GA_Create_handle();
}
void ga_set_data_(fint* g_a, fint* ndim, fint* dims, fint* type) {
  api("ga_set_data", [&] {
    const int n = static_cast<int>(*ndim);
    c_values d = c_extent(dims, n, "ga_set_data");
    GA_Set_data64(handle(*g_a, "ga_set_data"), n, d.data(), c_type(*type, "ga_set_data"));
  });
}
void ga_set_array_name_(fint* g_a, const char* name, flen len) {
  api("ga_set_array_name", [&] {
    GA_Set_array_name(handle(*g_a, "ga_set_array_name"), from_fortran(name, len).c_str());
  });
}
void ga_set_chunk_(fint* g_a, fint* chunk) {
  api("ga_set_chunk", [&] {
    c_values c = c_extent(chunk, any_ndim(*g_a, "ga_set_chunk"), "ga_set_chunk");
    GA_Set_chunk64(handle(*g_a, "ga_set_chunk"), c.data());
  });
}
void ga_set_irreg_distr_(fint* g_a, fint* map, fint* nblock) {
  api("ga_set_irreg_distr", [&] {
    const int n = any_ndim(*g_a, "ga_set_irreg_distr");
    c_values nb = c_extent(nblock, n, "ga_set_irreg_distr");
    std::vector<std::int64_t> m = c_map(map, nblock, n, "ga_set_irreg_distr");
    GA_Set_irreg_distr64(handle(*g_a, "ga_set_irreg_distr"), m.data(), nb.data());
  });
}
void ga_set_ghosts_(fint* g_a, fint* width) {
  api("ga_set_ghosts", [&] {
    c_values w = c_extent(width, any_ndim(*g_a, "ga_set_ghosts"), "ga_set_ghosts");
    GA_Set_ghosts64(handle(*g_a, "ga_set_ghosts"), w.data());
  });
}
void ga_set_block_cyclic_(fint* g_a, fint* block) {
  api("ga_set_block_cyclic", [&] {
    c_values b = c_extent(block, any_ndim(*g_a, "ga_set_block_cyclic"), "ga_set_block_cyclic");
    GA_Set_block_cyclic64(handle(*g_a, "ga_set_block_cyclic"), b.data());
  });
}
void ga_set_block_cyclic_proc_grid_(fint* g_a, fint* block, fint* grid) {
  api("ga_set_block_cyclic_proc_grid", [&] {
    const char* fn = "ga_set_block_cyclic_proc_grid";
    const int n = any_ndim(*g_a, fn);
    c_values b = c_extent(block, n, fn), p = c_extent(grid, n, fn);
    GA_Set_block_cyclic_proc_grid64(handle(*g_a, fn), b.data(), p.data());
  });
}
void ga_set_tiled_proc_grid_(fint* g_a, fint* block, fint* grid) {
  api("ga_set_tiled_proc_grid", [&] {
    const char* fn = "ga_set_tiled_proc_grid";
    const int n = any_ndim(*g_a, fn);
    c_values b = c_extent(block, n, fn), p = c_extent(grid, n, fn);
    GA_Set_tiled_proc_grid64(handle(*g_a, fn), b.data(), p.data());
  });
}
void ga_set_pgroup_(fint* g_a, fint* p) {
  GA_Set_pgroup(static_cast<int>(*g_a), static_cast<int>(*p));
}
void ga_set_property_(fint* g_a, const char* property, flen len) {
  GA_Set_property(static_cast<int>(*g_a), from_fortran(property, len).c_str());
}
void ga_set_ghost_corner_flag_(fint* g_a, fint* flag) {
  GA_Set_ghost_corner_flag(static_cast<int>(*g_a), *flag != 0 ? 1 : 0);
}
void ga_unset_property_(fint* g_a) {
  GA_Unset_property(static_cast<int>(*g_a));
}
fint ga_allocate_(fint* g_a) {
  return to_logical(GA_Allocate(static_cast<int>(*g_a)) != 0);
}
fint ga_deallocate_(fint* g_a) {
  return to_logical(GA_Deallocate(static_cast<int>(*g_a)) != 0);
}

// ---- Inquiry ----------------------------------------------------------------------------------
void nga_inquire_(fint* g_a, fint* type, fint* ndim, fint* dims) {
  api("nga_inquire", [&] {
    int t = 0, n = 0;
    std::int64_t d[GA_MAX_DIM] = {};
    NGA_Inquire64(handle(*g_a, "nga_inquire"), &t, &n, d);
    *type = f_type(t);
    *ndim = n;
    f_extent(d, n, dims, "nga_inquire");
  });
}
void ga_inquire_(fint* g_a, fint* type, fint* dim1, fint* dim2) {
  fint n = 0, dims[GA_MAX_DIM] = {};
  nga_inquire_(g_a, type, &n, dims);
  *dim1 = dims[0];
  *dim2 = n > 1 ? dims[1] : 1;
}
void ga_inquire_name_(fint* g_a, char* name, flen len) {
  api("ga_inquire_name",
      [&] { to_fortran(GA_Inquire_name(handle(*g_a, "ga_inquire_name")), name, len); });
}
fint ga_ndim_(fint* g_a) {
  return api("ga_ndim", [&] { return static_cast<fint>(ndim_of(*g_a, "ga_ndim")); });
}
fint ga_valid_handle_(fint* g_a) {
  return to_logical(*g_a >= std::numeric_limits<int>::min() &&
                    *g_a <= std::numeric_limits<int>::max() &&
                    GA_Valid_handle(static_cast<int>(*g_a)) != 0);
}
fint ga_verify_handle_(fint* g_a) {
  return ga_valid_handle_(g_a);
}
void ga_check_handle_(fint* g_a, const char* where, flen len) {
  api("ga_check_handle",
      [&] { GA_Check_handle(handle(*g_a, "ga_check_handle"), from_fortran(where, len).c_str()); });
}
fint ga_compare_distr_(fint* g_a, fint* g_b) {
  // GA's C call returns 0 when the distributions match; Fortran's says .true. then.
  return to_logical(GA_Compare_distr(static_cast<int>(*g_a), static_cast<int>(*g_b)) == 0);
}
fint ga_has_ghosts_(fint* g_a) {
  return to_logical(GA_Has_ghosts(static_cast<int>(*g_a)) != 0);
}
fint ga_total_blocks_(fint* g_a) {
  return GA_Total_blocks(static_cast<int>(*g_a));
}
fint ga_uses_proc_grid_(fint* g_a) {
  return to_logical(GA_Uses_proc_grid(static_cast<int>(*g_a)) != 0);
}
fint ga_is_mirrored_(fint* g_a) {
  return to_logical(GA_Is_mirrored(static_cast<int>(*g_a)) != 0);
}
void nga_distribution_(fint* g_a, fint* proc, fint* lo, fint* hi) {
  api("nga_distribution", [&] {
    const int n = ndim_of(*g_a, "nga_distribution");
    std::int64_t l[GA_MAX_DIM] = {}, h[GA_MAX_DIM] = {};
    NGA_Distribution64(handle(*g_a, "nga_distribution"), static_cast<int>(*proc), l, h);
    f_subscript(l, n, lo, "nga_distribution");
    f_subscript(h, n, hi, "nga_distribution");
  });
}
void ga_distribution_(fint* g_a, fint* proc, fint* ilo, fint* ihi, fint* jlo, fint* jhi) {
  fint lo[GA_MAX_DIM] = {}, hi[GA_MAX_DIM] = {};
  nga_distribution_(g_a, proc, lo, hi);
  const bool one = ga_ndim_(g_a) == 1;
  *ilo = lo[0];
  *ihi = hi[0];
  *jlo = one ? 1 : lo[1];
  *jhi = one ? 1 : hi[1];
}
fint nga_locate_(fint* g_a, fint* subscript, fint* owner) {
  return api("nga_locate", [&] {
    c_values s = c_subscript(subscript, ndim_of(*g_a, "nga_locate"), "nga_locate");
    *owner = NGA_Locate64(handle(*g_a, "nga_locate"), s.data());
    return to_logical(*owner >= 0);
  });
}
fint ga_locate_(fint* g_a, fint* i, fint* j, fint* owner) {
  fint s[2] = {*i, *j};
  return nga_locate_(g_a, s, owner);
}
// map(2*ndim, np): lo then hi of each owner's piece; proclist(np): its owner.
fint nga_locate_region_(fint* g_a, fint* lo, fint* hi, fint* map, fint* procs, fint* np) {
  return api("nga_locate_region", [&] {
    const char* fn = "nga_locate_region";
    const int n = ndim_of(*g_a, fn);
    const region r = locate_region(*g_a, lo, hi, fn);
    for (std::size_t k = 0; k < r.procs.size(); ++k) {
      const std::int64_t* piece = r.map.data() + 2 * n * k;
      f_subscript(piece, n, map + 2 * n * k, fn);
      f_subscript(piece + n, n, map + 2 * n * k + n, fn);
      procs[k] = r.procs[k];
    }
    *np = static_cast<fint>(r.procs.size());
    return to_logical(!r.procs.empty());
  });
}
// map(5, np): ilo, ihi, jlo, jhi, owner.
fint ga_locate_region_(fint* g_a, fint* ilo, fint* ihi, fint* jlo, fint* jhi, fint* map, fint* np) {
  return api("ga_locate_region", [&] {
    const char* fn = "ga_locate_region";
    const int n = ndim_of(*g_a, fn);
    if (n > 2) throw error(std::string(fn) + ": a " + std::to_string(n) + "-D array (nga_ form)");
    fint lo[2] = {*ilo, *jlo}, hi[2] = {*ihi, *jhi};
    const region r = locate_region(*g_a, lo, hi, fn);
    for (std::size_t k = 0; k < r.procs.size(); ++k) {
      fint l[2] = {1, 1}, h[2] = {1, 1};
      f_subscript(r.map.data() + 2 * n * k, n, l, fn);
      f_subscript(r.map.data() + 2 * n * k + n, n, h, fn);
      fint* out = map + 5 * k;
      out[0] = l[0];
      out[1] = h[0];
      out[2] = l[1];
      out[3] = h[1];
      out[4] = r.procs[k];
    }
    *np = static_cast<fint>(r.procs.size());
    return to_logical(!r.procs.empty());
  });
}
void ga_nblock_(fint* g_a, fint* nblock) {
  api("ga_nblock", [&] {
    const int n = ndim_of(*g_a, "ga_nblock");
    int c[GA_MAX_DIM] = {};
    GA_Nblock(handle(*g_a, "ga_nblock"), c);
    for (int i = 0; i < n; ++i)
      nblock[i] = c[n - 1 - i];
  });
}
void ga_get_proc_grid_(fint* g_a, fint* dims) {
  api("ga_get_proc_grid", [&] {
    const int n = ndim_of(*g_a, "ga_get_proc_grid");
    int c[GA_MAX_DIM] = {};
    GA_Get_proc_grid(handle(*g_a, "ga_get_proc_grid"), c);
    for (int i = 0; i < n; ++i)
      dims[i] = c[n - 1 - i];
  });
}

// The GA API level this layer follows (gacommon.h).
void ga_version_(fint* major, fint* minor, fint* patch) {
  *major = GA_VERSION_MAJOR;
  *minor = GA_VERSION_MINOR;
  *patch = GA_VERSION_PATCH;
}

// GA's Fortran random numbers: uniform in [0, 1); a non-zero flag reseeds first.
double drand_(fint* flag) {
  if (*flag != 0) srandom(static_cast<unsigned>(*flag));
  return static_cast<double>(random()) / 2147483648.0;
}

// ---- nga_ spellings ---------------------------------------------------------------------------
void nga_initialize_() {
  ga_initialize_();
}
void nga_terminate_() {
  ga_terminate_();
}
fint nga_nodeid_() {
  return ga_nodeid_();
}
fint nga_nnodes_() {
  return ga_nnodes_();
}
void nga_sync_() {
  ga_sync_();
}
fint nga_destroy_(fint* g_a) {
  return ga_destroy_(g_a);
}
fint nga_duplicate_(fint* g_a, fint* g_b, const char* name, flen len) {
  return ga_duplicate_(g_a, g_b, name, len);
}
fint nga_create_handle_() {
  return ga_create_handle_();
}
void nga_set_data_(fint* g_a, fint* ndim, fint* dims, fint* type) {
  ga_set_data_(g_a, ndim, dims, type);
}
void nga_set_chunk_(fint* g_a, fint* chunk) {
  ga_set_chunk_(g_a, chunk);
}
void nga_set_array_name_(fint* g_a, const char* name, flen len) {
  ga_set_array_name_(g_a, name, len);
}
fint nga_allocate_(fint* g_a) {
  return ga_allocate_(g_a);
}
void nga_version_(fint* major, fint* minor, fint* patch) {
  ga_version_(major, minor, patch);
}
fint nga_ndim_(fint* g_a) {
  return ga_ndim_(g_a);
}
fint nga_valid_handle_(fint* g_a) {
  return ga_valid_handle_(g_a);
}
fint nga_pgroup_create_(fint* list, fint* count) {
  return ga_pgroup_create_(list, count);
}
fint nga_pgroup_split_(fint* p, fint* n) {
  return ga_pgroup_split_(p, n);
}
fint nga_pgroup_split_irreg_(fint* p, fint* color) {
  return ga_pgroup_split_irreg_(p, color);
}
fint nga_pgroup_self_() {
  return ga_pgroup_self_();
}
fint nga_pgroup_duplicate_(fint* p) {
  return ga_pgroup_duplicate_(p);
}
fint nga_pgroup_destroy_(fint* p) {
  return ga_pgroup_destroy_(p);
}
fint nga_pgroup_get_world_() {
  return ga_pgroup_get_world_();
}
fint nga_pgroup_get_default_() {
  return ga_pgroup_get_default_();
}
void nga_pgroup_set_default_(fint* p) {
  ga_pgroup_set_default_(p);
}
fint nga_pgroup_nodeid_(fint* p) {
  return ga_pgroup_nodeid_(p);
}
fint nga_pgroup_nnodes_(fint* p) {
  return ga_pgroup_nnodes_(p);
}
void nga_pgroup_sync_(fint* p) {
  ga_pgroup_sync_(p);
}
fint nga_pgroup_absolute_id_(fint* p, fint* pid) {
  return ga_pgroup_absolute_id_(p, pid);
}
fint nga_pgroup_get_mirror_() {
  return ga_pgroup_get_mirror_();
}
void nga_merge_mirrored_(fint* g_a) {
  ga_merge_mirrored_(g_a);
}

}  // extern "C"
