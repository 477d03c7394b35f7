// GA's Fortran API: one-sided access (put/get/acc, non-blocking, strided, periodic, scatter/
// gather, read_inc) and direct access by index into the MA arrays (dbl_mb(index), …).

#include <vector>

#include "detail/fortran.hpp"

using namespace gaea::ga_compat::fortran;
using gaea::error;

namespace {

// A Fortran element list subs(ndim, n) as the C layer's flat list.
std::vector<std::int64_t> c_subs(const fint* subs, int ndim, fint n, const char* fn) {
  std::vector<std::int64_t> c(static_cast<std::size_t>(ndim) * static_cast<std::size_t>(n));
  for (fint k = 0; k < n; ++k) {
    const c_values s = c_subscript(subs + ndim * k, ndim, fn);
    for (int d = 0; d < ndim; ++d)
      c[static_cast<std::size_t>(ndim * k + d)] = s.v[d];
  }
  return c;
}
// The 2-D forms' two lists i(n), j(n).
std::vector<fint> interleave(const fint* g_a, const fint* i, const fint* j, fint n,
                             const char* fn) {
  const int ndim = ndim_of(*g_a, fn);
  if (ndim > 2)
    throw error(std::string(fn) + ": a " + std::to_string(ndim) + "-D array (nga_ form)");
  std::vector<fint> s;
  s.reserve(static_cast<std::size_t>(n) * 2);
  for (fint k = 0; k < n; ++k) {
    s.push_back(i[k]);
    if (ndim > 1) s.push_back(j[k]);
  }
  return s;
}

fint array_f_type(int h, const char* fn) {
  int t = 0, n = 0;
  std::int64_t d[GA_MAX_DIM] = {};
  NGA_Inquire64(h, &t, &n, d);
  (void)fn;
  return f_type(t);
}

fint nb_handle(ga_nbhdl_t h, const char* fn) {
  return narrow(h, fn, "request handle");
}

// Patches of the put/get/acc forms: the nga_ forms' n-D bounds, the ga_ forms' 2-D ones, each
// with the buffer's leading extents.
auto nd(const fint* g_a, const fint* lo, const fint* hi, const fint* ld) {
  return [=](const char* fn) { return patch(g_a, lo, hi, fn, ld); };
}
auto two_d(const fint* g_a, const fint* ilo, const fint* ihi, const fint* jlo, const fint* jhi,
           const fint* ld) {
  return [=](const char* fn) { return patch2(g_a, ilo, ihi, jlo, jhi, fn, ld); };
}

// Every put/get/acc form: the patch `where` names, then the C layer's
// call(handle, lo, hi, buf, ld, tail...) (tail: an accumulate's alpha).
template <class Where, class Call, class... Tail>
void transfer(const char* fn, Where where, Call call, void* buf, Tail... tail) {
  api(fn, [&] {
    nd_patch p = where(fn);
    call(p.h, p.lo.data(), p.hi.data(), buf, p.ld.data(), tail...);
  });
}
// The non-blocking forms: the same with the request's handle last, returned in `nb`.
template <class Where, class Call, class... Tail>
void transfer_nb(const char* fn, fint* nb, Where where, Call call, void* buf, Tail... tail) {
  api(fn, [&] {
    nd_patch p = where(fn);
    ga_nbhdl_t h = 0;
    call(p.h, p.lo.data(), p.hi.data(), buf, p.ld.data(), tail..., &h);
    *nb = nb_handle(h, fn);
  });
}

}  // namespace

extern "C" {

// ---- put / get / acc --------------------------------------------------------------------------
void nga_put_(fint* g_a, fint* lo, fint* hi, void* buf, fint* ld) {
  transfer("nga_put", nd(g_a, lo, hi, ld), NGA_Put64, buf);
}
void nga_get_(fint* g_a, fint* lo, fint* hi, void* buf, fint* ld) {
  transfer("nga_get", nd(g_a, lo, hi, ld), NGA_Get64, buf);
}
void nga_acc_(fint* g_a, fint* lo, fint* hi, void* buf, fint* ld, void* alpha) {
  transfer("nga_acc", nd(g_a, lo, hi, ld), NGA_Acc64, buf, alpha);
}
void ga_put_(fint* g_a, fint* ilo, fint* ihi, fint* jlo, fint* jhi, void* buf, fint* ld) {
  transfer("ga_put", two_d(g_a, ilo, ihi, jlo, jhi, ld), NGA_Put64, buf);
}
void ga_get_(fint* g_a, fint* ilo, fint* ihi, fint* jlo, fint* jhi, void* buf, fint* ld) {
  transfer("ga_get", two_d(g_a, ilo, ihi, jlo, jhi, ld), NGA_Get64, buf);
}
void ga_acc_(fint* g_a, fint* ilo, fint* ihi, fint* jlo, fint* jhi, void* buf, fint* ld,
             void* alpha) {
  transfer("ga_acc", two_d(g_a, ilo, ihi, jlo, jhi, ld), NGA_Acc64, buf, alpha);
}

// ---- non-blocking -----------------------------------------------------------------------------
void nga_nbput_(fint* g_a, fint* lo, fint* hi, void* buf, fint* ld, fint* nb) {
  transfer_nb("nga_nbput", nb, nd(g_a, lo, hi, ld), NGA_NbPut64, buf);
}
void nga_nbget_(fint* g_a, fint* lo, fint* hi, void* buf, fint* ld, fint* nb) {
  transfer_nb("nga_nbget", nb, nd(g_a, lo, hi, ld), NGA_NbGet64, buf);
}
void nga_nbacc_(fint* g_a, fint* lo, fint* hi, void* buf, fint* ld, void* alpha, fint* nb) {
  transfer_nb("nga_nbacc", nb, nd(g_a, lo, hi, ld), NGA_NbAcc64, buf, alpha);
}
void ga_nbput_(fint* g_a, fint* ilo, fint* ihi, fint* jlo, fint* jhi, void* buf, fint* ld,
               fint* nb) {
  transfer_nb("ga_nbput", nb, two_d(g_a, ilo, ihi, jlo, jhi, ld), NGA_NbPut64, buf);
}
void ga_nbget_(fint* g_a, fint* ilo, fint* ihi, fint* jlo, fint* jhi, void* buf, fint* ld,
               fint* nb) {
  transfer_nb("ga_nbget", nb, two_d(g_a, ilo, ihi, jlo, jhi, ld), NGA_NbGet64, buf);
}
void ga_nbacc_(fint* g_a, fint* ilo, fint* ihi, fint* jlo, fint* jhi, void* buf, fint* ld,
               void* alpha, fint* nb) {
  transfer_nb("ga_nbacc", nb, two_d(g_a, ilo, ihi, jlo, jhi, ld), NGA_NbAcc64, buf, alpha);
}
void nga_nbwait_(fint* nb) {
  ga_nbhdl_t h = *nb;
  NGA_NbWait(&h);
}
fint nga_nbtest_(fint* nb) {
  ga_nbhdl_t h = *nb;
  return NGA_NbTest(&h);
}
void ga_nbwait_(fint* nb) {
  nga_nbwait_(nb);
}
fint ga_nbtest_(fint* nb) {
  return nga_nbtest_(nb);
}

// ---- strided and periodic ---------------------------------------------------------------------
void nga_strided_put_(fint* g_a, fint* lo, fint* hi, fint* skip, void* buf, fint* ld) {
  api("nga_strided_put", [&] {
    nd_patch p = patch(g_a, lo, hi, "nga_strided_put", ld);
    c_values s = c_extent(skip, p.n, "nga_strided_put");
    NGA_Strided_put64(p.h, p.lo.data(), p.hi.data(), s.data(), buf, p.ld.data());
  });
}
void nga_strided_get_(fint* g_a, fint* lo, fint* hi, fint* skip, void* buf, fint* ld) {
  api("nga_strided_get", [&] {
    nd_patch p = patch(g_a, lo, hi, "nga_strided_get", ld);
    c_values s = c_extent(skip, p.n, "nga_strided_get");
    NGA_Strided_get64(p.h, p.lo.data(), p.hi.data(), s.data(), buf, p.ld.data());
  });
}
void nga_strided_acc_(fint* g_a, fint* lo, fint* hi, fint* skip, void* buf, fint* ld, void* alpha) {
  api("nga_strided_acc", [&] {
    nd_patch p = patch(g_a, lo, hi, "nga_strided_acc", ld);
    c_values s = c_extent(skip, p.n, "nga_strided_acc");
    NGA_Strided_acc64(p.h, p.lo.data(), p.hi.data(), s.data(), buf, p.ld.data(), alpha);
  });
}
void nga_periodic_put_(fint* g_a, fint* lo, fint* hi, void* buf, fint* ld) {
  transfer("nga_periodic_put", nd(g_a, lo, hi, ld), NGA_Periodic_put64, buf);
}
void nga_periodic_get_(fint* g_a, fint* lo, fint* hi, void* buf, fint* ld) {
  transfer("nga_periodic_get", nd(g_a, lo, hi, ld), NGA_Periodic_get64, buf);
}
void nga_periodic_acc_(fint* g_a, fint* lo, fint* hi, void* buf, fint* ld, void* alpha) {
  transfer("nga_periodic_acc", nd(g_a, lo, hi, ld), NGA_Periodic_acc64, buf, alpha);
}

// ---- read_inc ---------------------------------------------------------------------------------
fint nga_read_inc_(fint* g_a, fint* subscript, fint* inc) {
  return api("nga_read_inc", [&] {
    c_values s = c_subscript(subscript, ndim_of(*g_a, "nga_read_inc"), "nga_read_inc");
    return narrow(NGA_Read_inc64(handle(*g_a, "nga_read_inc"), s.data(), static_cast<long>(*inc)),
                  "nga_read_inc", "value");
  });
}
fint ga_read_inc_(fint* g_a, fint* i, fint* j, fint* inc) {
  fint s[2] = {*i, *j};
  return nga_read_inc_(g_a, s, inc);
}

// ---- scatter / gather -------------------------------------------------------------------------
void nga_scatter_(fint* g_a, void* v, fint* subs, fint* n) {
  api("nga_scatter", [&] {
    std::vector<std::int64_t> c = c_subs(subs, ndim_of(*g_a, "nga_scatter"), *n, "nga_scatter");
    NGA_Scatter_flat64(handle(*g_a, "nga_scatter"), v, c.data(), *n);
  });
}
void nga_scatter_acc_(fint* g_a, void* v, fint* subs, fint* n, void* alpha) {
  api("nga_scatter_acc", [&] {
    std::vector<std::int64_t> c =
        c_subs(subs, ndim_of(*g_a, "nga_scatter_acc"), *n, "nga_scatter_acc");
    NGA_Scatter_acc_flat64(handle(*g_a, "nga_scatter_acc"), v, c.data(), *n, alpha);
  });
}
void nga_gather_(fint* g_a, void* v, fint* subs, fint* n) {
  api("nga_gather", [&] {
    std::vector<std::int64_t> c = c_subs(subs, ndim_of(*g_a, "nga_gather"), *n, "nga_gather");
    NGA_Gather_flat64(handle(*g_a, "nga_gather"), v, c.data(), *n);
  });
}
void ga_scatter_(fint* g_a, void* v, fint* i, fint* j, fint* n) {
  std::vector<fint> s = api("ga_scatter", [&] { return interleave(g_a, i, j, *n, "ga_scatter"); });
  nga_scatter_(g_a, v, s.data(), n);
}
void ga_scatter_acc_(fint* g_a, void* v, fint* i, fint* j, fint* n, void* alpha) {
  std::vector<fint> s =
      api("ga_scatter_acc", [&] { return interleave(g_a, i, j, *n, "ga_scatter_acc"); });
  nga_scatter_acc_(g_a, v, s.data(), n, alpha);
}
void ga_gather_(fint* g_a, void* v, fint* i, fint* j, fint* n) {
  std::vector<fint> s = api("ga_gather", [&] { return interleave(g_a, i, j, *n, "ga_gather"); });
  nga_gather_(g_a, v, s.data(), n);
}

// ---- direct access ----------------------------------------------------------------------------
void nga_access_(fint* g_a, fint* lo, fint* hi, findex* index, fint* ld) {
  api("nga_access", [&] {
    nd_patch p = patch(g_a, lo, hi, "nga_access");
    std::int64_t c_ld[GA_MAX_DIM] = {};
    void* ptr = nullptr;
    NGA_Access64(p.h, p.lo.data(), p.hi.data(), &ptr, c_ld);
    *index = mb_index(array_f_type(p.h, "nga_access"), ptr, "nga_access");
    if (p.n > 1) f_extent(c_ld, p.n - 1, ld, "nga_access");
  });
}
void ga_access_(fint* g_a, fint* ilo, fint* ihi, fint* jlo, fint* jhi, findex* index, fint* ld) {
  api("ga_access", [&] {
    nd_patch p = patch2(g_a, ilo, ihi, jlo, jhi, "ga_access");
    std::int64_t c_ld[GA_MAX_DIM] = {};
    void* ptr = nullptr;
    NGA_Access64(p.h, p.lo.data(), p.hi.data(), &ptr, c_ld);
    *index = mb_index(array_f_type(p.h, "ga_access"), ptr, "ga_access");
    *ld = p.n > 1 ? narrow(c_ld[0], "ga_access", "ld")
                  : narrow(p.hi.v[0] - p.lo.v[0] + 1, "ga_access", "ld");
  });
}
void nga_release_(fint* g_a, fint* lo, fint* hi) {
  api("nga_release", [&] {
    nd_patch p = patch(g_a, lo, hi, "nga_release");
    NGA_Release64(p.h, p.lo.data(), p.hi.data());
  });
}
void nga_release_update_(fint* g_a, fint* lo, fint* hi) {
  api("nga_release_update", [&] {
    nd_patch p = patch(g_a, lo, hi, "nga_release_update");
    NGA_Release_update64(p.h, p.lo.data(), p.hi.data());
  });
}
void ga_release_(fint* g_a, fint* ilo, fint* ihi, fint* jlo, fint* jhi) {
  api("ga_release", [&] {
    nd_patch p = patch2(g_a, ilo, ihi, jlo, jhi, "ga_release");
    NGA_Release64(p.h, p.lo.data(), p.hi.data());
  });
}
void ga_release_update_(fint* g_a, fint* ilo, fint* ihi, fint* jlo, fint* jhi) {
  api("ga_release_update", [&] {
    nd_patch p = patch2(g_a, ilo, ihi, jlo, jhi, "ga_release_update");
    NGA_Release_update64(p.h, p.lo.data(), p.hi.data());
  });
}
void ga_update_ghosts_(fint* g_a) {
  GA_Update_ghosts(static_cast<int>(*g_a));
}
void nga_update_ghosts_(fint* g_a) {
  GA_Update_ghosts(static_cast<int>(*g_a));
}
// GA's alternative ghost-update algorithms: one update here, always successful.
void ga_update1_ghosts_(fint* g_a) {
  GA_Update_ghosts(static_cast<int>(*g_a));
}
fint ga_update2_ghosts_(fint* g_a) {
  GA_Update_ghosts(static_cast<int>(*g_a));
  return to_logical(true);
}
fint ga_update3_ghosts_(fint* g_a) {
  return ga_update2_ghosts_(g_a);
}
fint ga_update4_ghosts_(fint* g_a) {
  return ga_update2_ghosts_(g_a);
}
fint ga_update5_ghosts_(fint* g_a) {
  return ga_update2_ghosts_(g_a);
}
fint ga_update6_ghosts_(fint* g_a) {
  return ga_update2_ghosts_(g_a);
}
fint ga_update7_ghosts_(fint* g_a) {
  return ga_update2_ghosts_(g_a);
}
fint ga_set_update4_info_(fint* /*g_a*/) {
  return to_logical(true);
}
fint ga_set_update5_info_(fint* /*g_a*/) {
  return to_logical(true);
}
void ga_ghost_barrier_() {
  GA_Sync();
}
// dimension: Fortran's (1 = first index); dir: +1 or -1.
fint nga_update_ghost_dir_(fint* g_a, fint* dimension, fint* dir, fint* corners) {
  return api("nga_update_ghost_dir", [&] {
    const int n = ndim_of(*g_a, "nga_update_ghost_dir");
    return to_logical(NGA_Update_ghost_dir(handle(*g_a, "nga_update_ghost_dir"),
                                           n - static_cast<int>(*dimension), static_cast<int>(*dir),
                                           *corners != 0 ? 1 : 0) != 0);
  });
}
// The local block with its ghost cells: dims its extents, index its first (ghost) element.
void nga_access_ghosts_(fint* g_a, fint* dims, findex* index, fint* ld) {
  api("nga_access_ghosts", [&] {
    const int h = handle(*g_a, "nga_access_ghosts"), n = ndim_of(*g_a, "nga_access_ghosts");
    std::int64_t c_dims[GA_MAX_DIM] = {}, c_ld[GA_MAX_DIM] = {};
    void* ptr = nullptr;
    NGA_Access_ghosts64(h, c_dims, &ptr, c_ld);
    *index = mb_index(array_f_type(h, "nga_access_ghosts"), ptr, "nga_access_ghosts");
    f_extent(c_dims, n, dims, "nga_access_ghosts");
    if (n > 1) f_extent(c_ld, n - 1, ld, "nga_access_ghosts");
  });
}
void nga_release_ghosts_(fint* g_a) {
  NGA_Release_ghosts(static_cast<int>(*g_a));
}
void nga_release_update_ghosts_(fint* g_a) {
  NGA_Release_update_ghosts(static_cast<int>(*g_a));
}
// Non-blocking ghost transfers, completed by nga_nbwait.
void nga_update_ghosts_nb_(fint* g_a, fint* nb) {
  api("nga_update_ghosts_nb", [&] {
    ga_nbhdl_t h = 0;
    NGA_Update_ghosts_nb(handle(*g_a, "nga_update_ghosts_nb"), &h);
    *nb = nb_handle(h, "nga_update_ghosts_nb");
  });
}
// mask: -1, 0 or 1 per dimension (Fortran's order), the neighbour whose cells fill the ghosts.
void nga_nbget_ghost_dir_(fint* g_a, fint* mask, fint* nb) {
  const char* fn = "nga_nbget_ghost_dir";
  api(fn, [&] {
    c_values m = c_extent(mask, ndim_of(*g_a, fn), fn);
    ga_nbhdl_t h = 0;
    NGA_NbGet_ghost_dir64(handle(*g_a, fn), m.data(), &h);
    *nb = nb_handle(h, fn);
  });
}

}  // extern "C"
