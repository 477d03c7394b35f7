// GA's Fortran API: the second spellings of calls (nga_X for ga_X, as GA's fapi.c gives both
// with the same arguments), the calls GA 5.8.2's Fortran library has that the other files do not,
// and those that cannot be meaningful here (they end the job with a message naming them).

#include <vector>

#include "detail/fortran.hpp"
#include "macdecls.h"

using namespace gaea::ga_compat::fortran;
using gaea::error;

// A second spelling is a jump to the first: the same arguments, registers and stack untouched
// (whatever the signature, including gfortran's hidden CHARACTER lengths), one body.
#if defined(__x86_64__)
#define GAEA_JUMP_INSN "jmp "
#define GAEA_JUMP_SUFFIX "@PLT"
#elif defined(__aarch64__)
#define GAEA_JUMP_INSN "b "
#define GAEA_JUMP_SUFFIX ""
#else
#error "GA Fortran spellings: add this architecture's tail jump"
#endif
#define GAEA_SPELLING(alias, target)                                                        \
  asm(".text\n.globl " #alias "_\n.type " #alias "_, %function\n" #alias                    \
      "_:\n  " GAEA_JUMP_INSN #target "_" GAEA_JUMP_SUFFIX "\n.size " #alias "_, .-" #alias \
      "_\n");

// Calls that cannot be meaningful on Gaea: they exist (a program links) and end the job naming
// themselves and why.
#define GAEA_UNAVAILABLE(name, why)                                     \
  extern "C" [[noreturn]] void name##_() {                              \
    gaea::ga_compat::detail::fail(#name ": " why " (Gaea's GA layer)"); \
  }

GAEA_SPELLING(nga_abs_value, ga_abs_value)
GAEA_SPELLING(nga_abs_value_patch, ga_abs_value_patch)
GAEA_SPELLING(nga_add_constant, ga_add_constant)
GAEA_SPELLING(nga_add_constant_patch, ga_add_constant_patch)
GAEA_SPELLING(nga_add_diagonal, ga_add_diagonal)
GAEA_SPELLING(nga_cdot, ga_cdot)
GAEA_SPELLING(nga_cgop, ga_cgop)
GAEA_SPELLING(nga_check_handle, ga_check_handle)
GAEA_SPELLING(nga_cluster_nnodes, ga_cluster_nnodes)
GAEA_SPELLING(nga_cluster_nodeid, ga_cluster_nodeid)
GAEA_SPELLING(nga_cluster_nprocs, ga_cluster_nprocs)
GAEA_SPELLING(nga_cluster_proc_nodeid, ga_cluster_proc_nodeid)
GAEA_SPELLING(nga_cluster_procid, ga_cluster_procid)
GAEA_SPELLING(nga_compare_distr, ga_compare_distr)
GAEA_SPELLING(nga_create_mutexes, ga_create_mutexes)
GAEA_SPELLING(nga_deallocate, ga_deallocate)
GAEA_SPELLING(nga_destroy_mutexes, ga_destroy_mutexes)
GAEA_SPELLING(nga_elem_divide, ga_elem_divide)
GAEA_SPELLING(nga_elem_divide_patch, ga_elem_divide_patch)
GAEA_SPELLING(nga_elem_maximum, ga_elem_maximum)
GAEA_SPELLING(nga_elem_minimum, ga_elem_minimum)
GAEA_SPELLING(nga_elem_multiply, ga_elem_multiply)
GAEA_SPELLING(nga_elem_multiply_patch, ga_elem_multiply_patch)
GAEA_SPELLING(nga_error, ga_error)
GAEA_SPELLING(nga_fence, ga_fence)
GAEA_SPELLING(nga_get_debug, ga_get_debug)
GAEA_SPELLING(nga_get_diag, ga_get_diag)
GAEA_SPELLING(nga_get_proc_grid, ga_get_proc_grid)
GAEA_SPELLING(nga_ghost_barrier, ga_ghost_barrier)
GAEA_SPELLING(nga_has_ghosts, ga_has_ghosts)
GAEA_SPELLING(nga_idot, ga_idot)
GAEA_SPELLING(nga_init_fence, ga_init_fence)
GAEA_SPELLING(nga_initialize_ltd, ga_initialize_ltd)
GAEA_SPELLING(nga_initialized, ga_initialized)
GAEA_SPELLING(nga_inquire_memory, ga_inquire_memory)
GAEA_SPELLING(nga_inquire_name, ga_inquire_name)
GAEA_SPELLING(nga_is_mirrored, ga_is_mirrored)
GAEA_SPELLING(nga_mask_sync, ga_mask_sync)
GAEA_SPELLING(nga_memory_avail, ga_memory_avail)
GAEA_SPELLING(nga_memory_limited, ga_memory_limited)
GAEA_SPELLING(nga_nblock, ga_nblock)
GAEA_SPELLING(nga_norm1, ga_norm1)
GAEA_SPELLING(nga_norm_infinity, ga_norm_infinity)
GAEA_SPELLING(nga_pgroup_dgop, ga_pgroup_dgop)
GAEA_SPELLING(nga_pgroup_igop, ga_pgroup_igop)
GAEA_SPELLING(nga_print, ga_print)
GAEA_SPELLING(nga_print_distribution, ga_print_distribution)
GAEA_SPELLING(nga_print_stats, ga_print_stats)
GAEA_SPELLING(nga_randomize, ga_randomize)
GAEA_SPELLING(nga_recip_patch, ga_recip_patch)
GAEA_SPELLING(nga_scale_cols, ga_scale_cols)
GAEA_SPELLING(nga_scale_rows, ga_scale_rows)
GAEA_SPELLING(nga_sdot, ga_sdot)
GAEA_SPELLING(nga_set_block_cyclic, ga_set_block_cyclic)
GAEA_SPELLING(nga_set_block_cyclic_proc_grid, ga_set_block_cyclic_proc_grid)
GAEA_SPELLING(nga_set_debug, ga_set_debug)
GAEA_SPELLING(nga_set_diagonal, ga_set_diagonal)
GAEA_SPELLING(nga_set_ghost_corner_flag, ga_set_ghost_corner_flag)
GAEA_SPELLING(nga_set_ghosts, ga_set_ghosts)
GAEA_SPELLING(nga_set_irreg_distr, ga_set_irreg_distr)
GAEA_SPELLING(nga_set_memory_limit, ga_set_memory_limit)
GAEA_SPELLING(nga_set_pgroup, ga_set_pgroup)
GAEA_SPELLING(nga_set_property, ga_set_property)
GAEA_SPELLING(nga_set_tiled_proc_grid, ga_set_tiled_proc_grid)
GAEA_SPELLING(nga_set_update4_info, ga_set_update4_info)
GAEA_SPELLING(nga_set_update5_info, ga_set_update5_info)
GAEA_SPELLING(nga_sgop, ga_sgop)
GAEA_SPELLING(nga_shift_diagonal, ga_shift_diagonal)
GAEA_SPELLING(nga_summarize, ga_summarize)
GAEA_SPELLING(nga_symmetrize, ga_symmetrize)
GAEA_SPELLING(nga_total_blocks, ga_total_blocks)
GAEA_SPELLING(nga_transpose, ga_transpose)
GAEA_SPELLING(nga_unset_property, ga_unset_property)
GAEA_SPELLING(nga_update1_ghosts, ga_update1_ghosts)
GAEA_SPELLING(nga_update2_ghosts, ga_update2_ghosts)
GAEA_SPELLING(nga_update3_ghosts, ga_update3_ghosts)
GAEA_SPELLING(nga_update4_ghosts, ga_update4_ghosts)
GAEA_SPELLING(nga_update5_ghosts, ga_update5_ghosts)
GAEA_SPELLING(nga_update6_ghosts, ga_update6_ghosts)
GAEA_SPELLING(nga_update7_ghosts, ga_update7_ghosts)
GAEA_SPELLING(nga_uses_ma, ga_uses_ma)
GAEA_SPELLING(nga_uses_proc_grid, ga_uses_proc_grid)
GAEA_SPELLING(nga_verify_handle, ga_verify_handle)
GAEA_SPELLING(nga_wtime, ga_wtime)
GAEA_SPELLING(nga_zdot, ga_zdot)
GAEA_SPELLING(nga_zero_diagonal, ga_zero_diagonal)
GAEA_SPELLING(nga_zgop, ga_zgop)
GAEA_SPELLING(nga_set_restricted, ga_set_restricted)
GAEA_SPELLING(nga_set_restricted_range, ga_set_restricted_range)
GAEA_SPELLING(nga_get_dimension, ga_get_dimension)
GAEA_SPELLING(nga_get_pgroup, ga_get_pgroup)
GAEA_SPELLING(nga_get_pgroup_size, ga_get_pgroup_size)
GAEA_SPELLING(nga_msg_sync, ga_msg_sync)
GAEA_SPELLING(nga_timer, ga_timer)
GAEA_SPELLING(nga_elem_maximum_patch, ga_elem_maximum_patch)
GAEA_SPELLING(nga_elem_minimum_patch, ga_elem_minimum_patch)
GAEA_SPELLING(nga_median, ga_median)
GAEA_SPELLING(nga_median_patch, ga_median_patch)
GAEA_SPELLING(nga_step_max, ga_step_max)
GAEA_SPELLING(nga_step_max_patch, ga_step_max_patch)
GAEA_SPELLING(nga_step_bound_info, ga_step_bound_info)
GAEA_SPELLING(nga_step_bound_info_patch, ga_step_bound_info_patch)
GAEA_SPELLING(nga_get_array_name, ga_get_array_name)
GAEA_SPELLING(nga_list_nodeid, ga_list_nodeid)
GAEA_SPELLING(nga_overlay, ga_overlay)
GAEA_SPELLING(nga_get_block_info, ga_get_block_info)
GAEA_SPELLING(nga_get_proc_index, ga_get_proc_index)
GAEA_SPELLING(nga_set_irreg_flag, ga_set_irreg_flag)
GAEA_SPELLING(nga_set_memory_dev, ga_set_memory_dev)
GAEA_SPELLING(nga_pgroup_sgop, ga_pgroup_sgop)
GAEA_SPELLING(nga_pgroup_zgop, ga_pgroup_zgop)
GAEA_SPELLING(nga_pgroup_cgop, ga_pgroup_cgop)
GAEA_SPELLING(nga_pgroup_gop, ga_pgroup_gop)
GAEA_SPELLING(nga_update44_ghosts, ga_update4_ghosts)
GAEA_SPELLING(nga_update55_ghosts, ga_update5_ghosts)
GAEA_SPELLING(ga_update44_ghosts, ga_update4_ghosts)
GAEA_SPELLING(ga_update55_ghosts, ga_update5_ghosts)
// GA's scalapack.F eigensolvers for a symmetric matrix differ in ScaLAPACK's driver (and take
// its block size nb): here they are the standard symmetric solver ga_diag_std (which uses
// ScaLAPACK when the build has it), and ga_pdsygv the generalized one, ga_diag.
GAEA_SPELLING(ga_pdsyev, ga_diag_std)
GAEA_SPELLING(ga_pdsyevd, ga_diag_std)
GAEA_SPELLING(ga_pdsyevx, ga_diag_std)
GAEA_SPELLING(ga_pdsygv, ga_diag)

namespace {

std::vector<int> ints(const fint* v, fint n, const char* fn) {
  if (n < 0) throw error(std::string(fn) + ": " + std::to_string(n) + " entries");
  if (v == nullptr && n > 0) throw error(std::string(fn) + ": null list");
  return std::vector<int>(v, v + n);
}
int pgroup(const fint* p) {
  return static_cast<int>(*p);
}
int count(const fint* n, const char* fn) {
  return static_cast<int>(narrow(*n, fn, "count"));
}

}  // namespace

extern "C" {

// ---- array set-up and inquiries ------------------------------------------------------------
void ga_set_restricted_(fint* g_a, fint* list, fint* size) {
  api("ga_set_restricted", [&] {
    std::vector<int> l = ints(list, *size, "ga_set_restricted");
    GA_Set_restricted(h(g_a), l.data(), static_cast<int>(*size));
  });
}
void ga_set_restricted_range_(fint* g_a, fint* lo_proc, fint* hi_proc) {
  api("ga_set_restricted_range", [&] {
    GA_Set_restricted_range(h(g_a), static_cast<int>(*lo_proc), static_cast<int>(*hi_proc));
  });
}
void ga_set_irreg_flag_(fint* g_a, fint* flag) {
  api("ga_set_irreg_flag", [&] { GA_Set_irreg_flag(h(g_a), *flag != 0 ? 1 : 0); });
}
void ga_set_memory_dev_(fint* g_a, const char* device, flen len) {
  api("ga_set_memory_dev", [&] { GA_Set_memory_dev(h(g_a), from_fortran(device, len).c_str()); });
}
fint ga_get_dimension_(fint* g_a) {
  return api("ga_get_dimension", [&] { return static_cast<fint>(GA_Get_dimension(h(g_a))); });
}
fint ga_get_pgroup_(fint* g_a) {
  return api("ga_get_pgroup", [&] { return static_cast<fint>(GA_Get_pgroup(h(g_a))); });
}
fint ga_get_pgroup_size_(fint* p) {
  return api("ga_get_pgroup_size",
             [&] { return static_cast<fint>(GA_Get_pgroup_size(pgroup(p))); });
}
// GA 5.8.2's own reads the CHARACTER argument in and returns nothing; here it returns the name.
void ga_get_array_name_(fint* g_a, char* name, flen len) {
  api("ga_get_array_name", [&] { to_fortran(GA_Inquire_name(h(g_a)), name, len); });
}
fint ga_overlay_(fint* g_a, fint* g_p) {
  return api("ga_overlay", [&] { return to_logical(GA_Overlay(h(g_a), h(g_p)) != 0); });
}
void ga_get_block_info_(fint* g_a, fint* num_blocks, fint* block_dims) {
  api("ga_get_block_info", [&] {
    const int n = ndim_of(*g_a, "ga_get_block_info");
    int nb[GA_MAX_DIM] = {}, bd[GA_MAX_DIM] = {};
    GA_Get_block_info(h(g_a), nb, bd);
    std::int64_t nb64[GA_MAX_DIM], bd64[GA_MAX_DIM];
    for (int d = 0; d < n; ++d) {
      nb64[d] = nb[d];
      bd64[d] = bd[d];
    }
    f_extent(nb64, n, num_blocks, "ga_get_block_info");
    f_extent(bd64, n, block_dims, "ga_get_block_info");
  });
}
// Block coordinates count from 0, as GA's Fortran API; only their order is reversed.
void ga_get_proc_index_(fint* g_a, fint* iproc, fint* index) {
  api("ga_get_proc_index", [&] {
    const int n = ndim_of(*g_a, "ga_get_proc_index");
    int c[GA_MAX_DIM] = {};
    NGA_Get_proc_index(h(g_a), static_cast<int>(*iproc), c);
    for (int d = 0; d < n; ++d)
      index[d] = c[n - 1 - d];
  });
}
void nga_proc_topology_(fint* g_a, fint* proc, fint* coord) {
  api("nga_proc_topology", [&] {
    const int n = ndim_of(*g_a, "nga_proc_topology");
    int c[GA_MAX_DIM] = {};
    NGA_Proc_topology(h(g_a), static_cast<int>(*proc), c);
    for (int d = 0; d < n; ++d)
      coord[d] = c[n - 1 - d];
  });
}
void ga_proc_topology_(fint* g_a, fint* proc, fint* pr, fint* pc) {
  fint c[2] = {-1, -1};
  nga_proc_topology_(g_a, proc, c);
  *pr = c[0];
  *pc = c[1];
}
void ga_list_nodeid_(fint* list, fint* nprocs) {
  api("ga_list_nodeid", [&] {
    std::vector<int> l(static_cast<std::size_t>(count(nprocs, "ga_list_nodeid")));
    GA_List_nodeid(l.data(), static_cast<int>(l.size()));
    for (std::size_t i = 0; i < l.size(); ++i)
      list[i] = l[i];
  });
}
fint nga_locate_nnodes_(fint* g_a, fint* lo, fint* hi, fint* np) {
  return api("nga_locate_nnodes", [&] {
    nd_patch p = patch(g_a, lo, hi, "nga_locate_nnodes");
    const int n = NGA_Locate_nnodes64(p.h, p.lo.data(), p.hi.data());
    *np = n;
    return to_logical(n >= 0);
  });
}
fint ga_locate_nnodes_(fint* g_a, fint* ilo, fint* ihi, fint* jlo, fint* jhi, fint* np) {
  return api("ga_locate_nnodes", [&] {
    nd_patch p = patch2(g_a, ilo, ihi, jlo, jhi, "ga_locate_nnodes");
    const int n = NGA_Locate_nnodes64(p.h, p.lo.data(), p.hi.data());
    *np = n;
    return to_logical(n >= 0);
  });
}
fint nga_locate_num_blocks_(fint* g_a, fint* lo, fint* hi) {
  return api("nga_locate_num_blocks", [&] {
    nd_patch p = patch(g_a, lo, hi, "nga_locate_num_blocks");
    int l[GA_MAX_DIM], u[GA_MAX_DIM];
    for (int d = 0; d < p.n; ++d) {
      l[d] = static_cast<int>(p.lo.v[d]);
      u[d] = static_cast<int>(p.hi.v[d]);
    }
    return static_cast<fint>(NGA_Locate_num_blocks(p.h, l, u));
  });
}
void ga_msg_sync_() {
  api("ga_msg_sync", [] { GA_Sync(); });
}
double ga_timer_() {
  return GA_Wtime();
}
void nga_alloc_gatscat_buf_(fint* nelems) {
  api("nga_alloc_gatscat_buf",
      [&] { NGA_Alloc_gatscat_buf(count(nelems, "nga_alloc_gatscat_buf")); });
}
void nga_free_gatscat_buf_() {
  NGA_Free_gatscat_buf();
}

// ---- element-wise and step ---------------------------------------------------------------------
void ga_elem_maximum_patch_(fint* g_a, fint* alo, fint* ahi, fint* g_b, fint* blo, fint* bhi,
                            fint* g_c, fint* clo, fint* chi) {
  api("ga_elem_maximum_patch", [&] {
    const char* fn = "ga_elem_maximum_patch";
    nd_patch a = patch(g_a, alo, ahi, fn), b = patch(g_b, blo, bhi, fn),
             c = patch(g_c, clo, chi, fn);
    GA_Elem_maximum_patch64(a.h, a.lo.data(), a.hi.data(), b.h, b.lo.data(), b.hi.data(), c.h,
                            c.lo.data(), c.hi.data());
  });
}
void ga_elem_minimum_patch_(fint* g_a, fint* alo, fint* ahi, fint* g_b, fint* blo, fint* bhi,
                            fint* g_c, fint* clo, fint* chi) {
  api("ga_elem_minimum_patch", [&] {
    const char* fn = "ga_elem_minimum_patch";
    nd_patch a = patch(g_a, alo, ahi, fn), b = patch(g_b, blo, bhi, fn),
             c = patch(g_c, clo, chi, fn);
    GA_Elem_minimum_patch64(a.h, a.lo.data(), a.hi.data(), b.h, b.lo.data(), b.hi.data(), c.h,
                            c.lo.data(), c.hi.data());
  });
}
void ga_median_(fint* g_a, fint* g_b, fint* g_c, fint* g_m) {
  api("ga_median", [&] { GA_Median(h(g_a), h(g_b), h(g_c), h(g_m)); });
}
void ga_median_patch_(fint* g_a, fint* alo, fint* ahi, fint* g_b, fint* blo, fint* bhi, fint* g_c,
                      fint* clo, fint* chi, fint* g_m, fint* mlo, fint* mhi) {
  api("ga_median_patch", [&] {
    const char* fn = "ga_median_patch";
    nd_patch a = patch(g_a, alo, ahi, fn), b = patch(g_b, blo, bhi, fn),
             c = patch(g_c, clo, chi, fn), m = patch(g_m, mlo, mhi, fn);
    GA_Median_patch64(a.h, a.lo.data(), a.hi.data(), b.h, b.lo.data(), b.hi.data(), c.h,
                      c.lo.data(), c.hi.data(), m.h, m.lo.data(), m.hi.data());
  });
}
void ga_step_max_(fint* g_a, fint* g_b, void* step) {
  api("ga_step_max", [&] { GA_Step_max(h(g_a), h(g_b), step); });
}
void ga_step_max_patch_(fint* g_a, fint* alo, fint* ahi, fint* g_b, fint* blo, fint* bhi,
                        void* step) {
  api("ga_step_max_patch", [&] {
    const char* fn = "ga_step_max_patch";
    nd_patch a = patch(g_a, alo, ahi, fn), b = patch(g_b, blo, bhi, fn);
    GA_Step_max_patch64(a.h, a.lo.data(), a.hi.data(), b.h, b.lo.data(), b.hi.data(), step);
  });
}
void ga_step_bound_info_(fint* g_xx, fint* g_vv, fint* g_xxll, fint* g_xxuu, void* boundmin,
                         void* wolfemin, void* boundmax) {
  api("ga_step_bound_info", [&] {
    GA_Step_bound_info(h(g_xx), h(g_vv), h(g_xxll), h(g_xxuu), boundmin, wolfemin, boundmax);
  });
}
void ga_step_bound_info_patch_(fint* g_xx, fint* xxlo, fint* xxhi, fint* g_vv, fint* vvlo,
                               fint* vvhi, fint* g_xxll, fint* xxlllo, fint* xxllhi, fint* g_xxuu,
                               fint* xxuulo, fint* xxuuhi, void* boundmin, void* wolfemin,
                               void* boundmax) {
  api("ga_step_bound_info_patch", [&] {
    const char* fn = "ga_step_bound_info_patch";
    nd_patch x = patch(g_xx, xxlo, xxhi, fn), v = patch(g_vv, vvlo, vvhi, fn),
             l = patch(g_xxll, xxlllo, xxllhi, fn), u = patch(g_xxuu, xxuulo, xxuuhi, fn);
    GA_Step_bound_info_patch64(x.h, x.lo.data(), x.hi.data(), v.h, v.lo.data(), v.hi.data(), l.h,
                               l.lo.data(), l.hi.data(), u.h, u.lo.data(), u.hi.data(), boundmin,
                               wolfemin, boundmax);
  });
}

// ---- process-group reductions --------------------------------------------------------------
void ga_pgroup_sgop_(fint* p, fint* /*type*/, float* x, fint* n, const char* op, flen len) {
  api("ga_pgroup_sgop", [&] {
    GA_Pgroup_fgop(pgroup(p), x, count(n, "ga_pgroup_sgop"), from_fortran(op, len).c_str());
  });
}
void ga_pgroup_zgop_(fint* p, fint* /*type*/, DoubleComplex* x, fint* n, const char* op, flen len) {
  api("ga_pgroup_zgop", [&] {
    GA_Pgroup_zgop(pgroup(p), x, count(n, "ga_pgroup_zgop"), from_fortran(op, len).c_str());
  });
}
void ga_pgroup_cgop_(fint* p, fint* /*type*/, SingleComplex* x, fint* n, const char* op, flen len) {
  api("ga_pgroup_cgop", [&] {
    GA_Pgroup_cgop(pgroup(p), x, count(n, "ga_pgroup_cgop"), from_fortran(op, len).c_str());
  });
}
void ga_pgroup_gop_(fint* p, fint* type, void* x, fint* n, const char* op, flen len) {
  api("ga_pgroup_gop", [&] {
    const int c = c_type(*type, "ga_pgroup_gop"), k = count(n, "ga_pgroup_gop");
    const std::string o = from_fortran(op, len);
    switch (c) {
      case C_INT:
        return GA_Pgroup_igop(pgroup(p), static_cast<int*>(x), k, o.c_str());
      case C_LONG:
      case C_LONGLONG:
        return GA_Pgroup_lgop(pgroup(p), static_cast<long*>(x), k, o.c_str());
      case C_FLOAT:
        return GA_Pgroup_fgop(pgroup(p), static_cast<float*>(x), k, o.c_str());
      case C_DBL:
        return GA_Pgroup_dgop(pgroup(p), static_cast<double*>(x), k, o.c_str());
      case C_SCPL:
        return GA_Pgroup_cgop(pgroup(p), static_cast<SingleComplex*>(x), k, o.c_str());
      case C_DCPL:
        return GA_Pgroup_zgop(pgroup(p), static_cast<DoubleComplex*>(x), k, o.c_str());
      default:
        throw error("type " + std::to_string(*type) + " is not one ga_pgroup_gop reduces");
    }
  });
}

// ---- eigensolvers of GA's scalapack.F (see the spellings above) -----------------------------
void ga_diag_std_(fint* g_a, fint* g_v, double* eval);
void ga_pdsyevr_(fint* g_a, fint* g_b, double* eval, fint* /*nb*/, fint* mout) {
  ga_diag_std_(g_a, g_b, eval);
  api("ga_pdsyevr", [&] {
    int t = 0, nd = 0, d[GA_MAX_DIM] = {};
    NGA_Inquire(h(g_a), &t, &nd, d);
    *mout = static_cast<fint>(d[0]);  // every eigenvalue is found
  });
}

// ---- MA --------------------------------------------------------------------------------------
fint ma_set_numalign_(fint* value) {
  return to_logical(MA_set_numalign(*value) == MA_TRUE);
}
fint ma_get_numalign_(fint* value) {
  Integer v = 0;
  const bool ok = MA_get_numalign(&v) == MA_TRUE;
  *value = static_cast<fint>(v);
  return to_logical(ok);
}
void ma_trace_(fint* value) {
  MA_trace(*value != 0 ? MA_TRUE : MA_FALSE);
}
fint ma_free_heap_piece_(fint* memhandle, fint* nelem) {
  return to_logical(MA_free_heap_piece(*memhandle, *nelem) == MA_TRUE);
}
fint ma_init_memhandle_iterator_(fint* it) {
  Integer i = 0;
  const bool ok = MA_init_memhandle_iterator(&i) == MA_TRUE;
  *it = static_cast<fint>(i);
  return to_logical(ok);
}
fint ma_get_next_memhandle_(fint* it, fint* memhandle) {
  Integer i = *it, m = 0;
  const bool ok = MA_get_next_memhandle(&i, &m) == MA_TRUE;
  *it = static_cast<fint>(i);
  *memhandle = static_cast<fint>(m);
  return to_logical(ok);
}
fint ma_inquire_heap_check_stack_(fint* type) {
  return api("ma_inquire_heap_check_stack", [&] {
    return narrow(MA_inquire_heap_check_stack(c_type(*type, "ma_inquire_heap_check_stack")),
                  "ma_inquire_heap_check_stack", "count");
  });
}
fint ma_inquire_heap_no_partition_(fint* type) {
  return api("ma_inquire_heap_no_partition", [&] {
    return narrow(MA_inquire_heap_no_partition(c_type(*type, "ma_inquire_heap_no_partition")),
                  "ma_inquire_heap_no_partition", "count");
  });
}
fint ma_inquire_stack_check_heap_(fint* type) {
  return api("ma_inquire_stack_check_heap", [&] {
    return narrow(MA_inquire_stack_check_heap(c_type(*type, "ma_inquire_stack_check_heap")),
                  "ma_inquire_stack_check_heap", "count");
  });
}
fint ma_inquire_stack_no_partition_(fint* type) {
  return api("ma_inquire_stack_no_partition", [&] {
    return narrow(MA_inquire_stack_no_partition(c_type(*type, "ma_inquire_stack_no_partition")),
                  "ma_inquire_stack_no_partition", "count");
  });
}

}  // extern "C"

// GA internals in GA's Fortran library that global.fh does not declare (its ScaLAPACK and
// matmul plumbing, its MA common-block set-up) and calls with no Gaea counterpart.
GAEA_UNAVAILABLE(ga_pzheevd, "complex Hermitian eigensolvers are not provided")
GAEA_UNAVAILABLE(ga_pzheevr, "complex Hermitian eigensolvers are not provided")
GAEA_UNAVAILABLE(ga_cpycpl2dbl, "a GA-internal helper (scalapack.F), not part of GA's API")
GAEA_UNAVAILABLE(ga_cpydbl2cpl, "a GA-internal helper (scalapack.F), not part of GA's API")
GAEA_UNAVAILABLE(ga_to_sl, "a GA-internal helper (scalapack.F), not part of GA's API")
GAEA_UNAVAILABLE(ga_to_sl2, "a GA-internal helper (scalapack.F), not part of GA's API")
GAEA_UNAVAILABLE(ga_to_sl2cpl, "a GA-internal helper (scalapack.F), not part of GA's API")
GAEA_UNAVAILABLE(ga_from_sl, "a GA-internal helper (scalapack.F), not part of GA's API")
GAEA_UNAVAILABLE(ga_from_sl2, "a GA-internal helper (scalapack.F), not part of GA's API")
GAEA_UNAVAILABLE(ga_from_sl2cpl, "a GA-internal helper (scalapack.F), not part of GA's API")
GAEA_UNAVAILABLE(ga_symul, "a GA-internal helper (scalapack.F), not part of GA's API")
GAEA_UNAVAILABLE(ga_zeroul, "a GA-internal helper (scalapack.F), not part of GA's API")
GAEA_UNAVAILABLE(ga_matmul, "a GA-internal helper (matmul.c), not part of GA's API; use ga_dgemm")
GAEA_UNAVAILABLE(ga_matmul_mirrored, "a GA-internal helper (matmul.c), not part of GA's API")
GAEA_UNAVAILABLE(nga_matmul_patch_alt, "a GA-internal variant; use nga_matmul_patch")
GAEA_UNAVAILABLE(ga_copy_patch_dp,
                 "a GA-internal helper (ga_copy_patch of doubles); use ga_copy_patch")
GAEA_UNAVAILABLE(ga_ddot_patch_dp, "a GA-internal helper; use ga_ddot_patch")
GAEA_UNAVAILABLE(ga_get_armci_group, "ARMCI groups do not exist on Gaea")
GAEA_UNAVAILABLE(ga_register_proclist, "GA-internal process-list registration")
GAEA_UNAVAILABLE(ga_set_ghost_info, "GA-internal ghost bookkeeping")
GAEA_UNAVAILABLE(nga_set_ghost_info, "GA-internal ghost bookkeeping")
GAEA_UNAVAILABLE(ma_set_sizes, "GA-internal set-up of MA's Fortran common blocks")
GAEA_UNAVAILABLE(nga_nbput_notify, "put-with-notify is not provided")
GAEA_UNAVAILABLE(nga_nbwait_notify, "put-with-notify is not provided")
GAEA_UNAVAILABLE(ga_create_bin_range,
                 "bin ranges are not provided (ga_bin_index, ga_bin_sorter are)")
GAEA_UNAVAILABLE(nga_create_bin_range,
                 "bin ranges are not provided (ga_bin_index, ga_bin_sorter are)")
GAEA_UNAVAILABLE(ga_elem_step_divide_patch, "the step-divide patch calls are not provided")
GAEA_UNAVAILABLE(ga_elem_stepb_divide_patch, "the step-divide patch calls are not provided")
GAEA_UNAVAILABLE(nga_elem_step_divide_patch, "the step-divide patch calls are not provided")
GAEA_UNAVAILABLE(nga_elem_stepb_divide_patch, "the step-divide patch calls are not provided")
GAEA_UNAVAILABLE(ga_set_tiled_irreg_proc_grid, "not provided from Fortran yet (C has it)")
GAEA_UNAVAILABLE(nga_set_tiled_irreg_proc_grid, "not provided from Fortran yet (C has it)")
