// Collectives on local buffers (GA_Brdcst, GA_Gop and GA_[DFILZC]gop with "+", "*", "max",
// "min", "absmax", "absmin") on gaea::coll, process groups as far as the world group, GA's MPI
// communicators, and cluster (node) queries.

#include <algorithm>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>

#include "detail/state.hpp"
#include "ga-mpi.h"
#include "ga.h"
#include "gaea/coll/collectives.hpp"

using namespace gaea::ga_compat::detail;
namespace coll = gaea::coll;
using gaea::error;

namespace {

enum class gop { sum, prod, max, min, absmax, absmin };

gop parse_op(const char* op) {
  if (op == nullptr) throw error("null operator");
  const std::string o(op);
  if (o == "+") return gop::sum;
  if (o == "*") return gop::prod;
  if (o == "max") return gop::max;
  if (o == "min") return gop::min;
  if (o == "absmax") return gop::absmax;
  if (o == "absmin") return gop::absmin;
  throw error("operator \"" + o + "\" is not one of \"+\", \"*\", \"max\", \"min\", \"absmax\", " +
              "\"absmin\"");
}

// The world group: the only process group here. gaea::error for any other handle.
const coll::group& group_of(int p_handle, const char* fn) {
  state& st = current(fn);
  (void)st;
  if (p_handle != world_pgroup)
    throw error("process group " + std::to_string(p_handle) +
                " does not exist (only the world group, " + std::to_string(world_pgroup) +
                ", is supported)");
  return coll::world();
}

// x[0..n) reduced over the group with `op`, in place, on every member. Collective.
template <class T>
void reduce(const coll::group& g, T* x, int n, const char* op_name) {
  if (n < 0) throw error("n=" + std::to_string(n) + " must be >= 0");
  if (x == nullptr && n > 0) throw error("null buffer");
  const gop op = parse_op(op_name);
  const std::span<T> v(x, static_cast<std::size_t>(n));
  constexpr bool complex = !std::is_arithmetic_v<T>;
  if (complex && op != gop::sum && op != gop::prod)
    throw error(std::string("operator \"") + op_name +
                "\" is not defined on complex numbers (\"+\" and \"*\" are)");
  if constexpr (!complex) {
    if (op == gop::absmax || op == gop::absmin)
      for (T& e : v)
        e = e < T(0) ? static_cast<T>(-e) : e;
  }
  coll::reduce_op r = coll::reduce_op::sum;
  switch (op) {
    case gop::sum:
      break;
    case gop::prod:
      r = coll::reduce_op::prod;
      break;
    case gop::max:
    case gop::absmax:
      r = coll::reduce_op::max;
      break;
    case gop::min:
    case gop::absmin:
      r = coll::reduce_op::min;
      break;
  }
  if constexpr (complex) {
    // DoubleComplex/SingleComplex have std::complex's layout.
    using C = std::complex<decltype(x->real)>;
    coll::allreduce(g, std::span<C>(reinterpret_cast<C*>(x), v.size()), r);
  } else {
    coll::allreduce(g, v, r);
  }
}

template <class T>
void gop_call(const char* fn, int p_handle, T* x, int n, const char* op) {
  reduce(group_of(p_handle, fn), x, n, op);
}

void brdcst(const char* fn, int p_handle, void* buf, int lenbuf, int root) {
  const coll::group& g = group_of(p_handle, fn);
  if (lenbuf < 0) throw error("lenbuf=" + std::to_string(lenbuf) + " must be >= 0");
  if (buf == nullptr && lenbuf > 0) throw error("null buffer");
  if (root < 0 || root >= g.size())
    throw error("root " + std::to_string(root) + " is not in [0, " + std::to_string(g.size()) +
                ")");
  coll::broadcast(
      g, std::span<std::byte>(static_cast<std::byte*>(buf), static_cast<std::size_t>(lenbuf)),
      root);
}

void gop_typed(int type, void* x, int n, const char* op) {
  const char* fn = "GA_Gop";
  const int p = current(fn).default_pgroup;
  switch (type) {
    case C_INT:
      return gop_call(fn, p, static_cast<int*>(x), n, op);
    case C_LONG:
      return gop_call(fn, p, static_cast<long*>(x), n, op);
    case C_LONGLONG:
      return gop_call(fn, p, static_cast<long long*>(x), n, op);
    case C_FLOAT:
      return gop_call(fn, p, static_cast<float*>(x), n, op);
    case C_DBL:
      return gop_call(fn, p, static_cast<double*>(x), n, op);
    case C_SCPL:
      return gop_call(fn, p, static_cast<SingleComplex*>(x), n, op);
    case C_DCPL:
      return gop_call(fn, p, static_cast<DoubleComplex*>(x), n, op);
    default:
      throw error(type_name(type) + " is not a type GA_Gop reduces");
  }
}

int checked_rank(int proc, const char* what) {
  const gaea::runtime& rt = *current("GA_Cluster").rt;
  if (proc < 0 || proc >= rt.size())
    throw error(std::string(what) + " " + std::to_string(proc) + " is not in [0, " +
                std::to_string(rt.size()) + ")");
  return proc;
}

void check_node(int node) {
  const gaea::runtime& rt = *current("GA_Cluster").rt;
  if (node < 0 || node >= rt.nodes())
    throw error("node " + std::to_string(node) + " is not in [0, " + std::to_string(rt.nodes()) +
                ")");
}

}  // namespace

extern "C" {

// ---- Broadcast and reductions on the default group ----
void GA_Brdcst(void* buf, int lenbuf, int root) {
  api("GA_Brdcst",
      [&] { brdcst("GA_Brdcst", current("GA_Brdcst").default_pgroup, buf, lenbuf, root); });
}
void NGA_Brdcst(void* buf, int lenbuf, int root) {
  api("NGA_Brdcst",
      [&] { brdcst("NGA_Brdcst", current("NGA_Brdcst").default_pgroup, buf, lenbuf, root); });
}
void GA_Gop(int type, void* x, int n, const char* op) {
  api("GA_Gop", [&] { gop_typed(type, x, n, op); });
}
#define GAEA_GA_GOP(NAME, T)                                                       \
  void NAME(T x[], int n, const char* op) {                                        \
    api(#NAME, [&] { gop_call(#NAME, current(#NAME).default_pgroup, x, n, op); }); \
  }
GAEA_GA_GOP(GA_Dgop, double)
GAEA_GA_GOP(GA_Fgop, float)
GAEA_GA_GOP(GA_Igop, int)
GAEA_GA_GOP(GA_Lgop, long)
GAEA_GA_GOP(GA_Llgop, long long)
GAEA_GA_GOP(GA_Zgop, DoubleComplex)
GAEA_GA_GOP(GA_Cgop, SingleComplex)
GAEA_GA_GOP(NGA_Dgop, double)
GAEA_GA_GOP(NGA_Igop, int)
GAEA_GA_GOP(NGA_Lgop, long)
#undef GAEA_GA_GOP

// ---- Process groups: the world group ----
int GA_Pgroup_get_world(void) {
  return api("GA_Pgroup_get_world", [] {
    current("GA_Pgroup_get_world");
    return world_pgroup;
  });
}
int GA_Pgroup_get_default(void) {
  return api("GA_Pgroup_get_default",
             [] { return current("GA_Pgroup_get_default").default_pgroup; });
}
void GA_Pgroup_set_default(int p_handle) {
  api("GA_Pgroup_set_default", [&] {
    group_of(p_handle, "GA_Pgroup_set_default");
    current("GA_Pgroup_set_default").default_pgroup = p_handle;
  });
}
int GA_Pgroup_create(int* list, int count) {
  return api("GA_Pgroup_create", [&]() -> int {
    current("GA_Pgroup_create");
    (void)list;
    throw error("process groups other than the world group are not supported (asked for " +
                std::to_string(count) + " processes)");
  });
}
int GA_Pgroup_destroy(int p_handle) {
  return api("GA_Pgroup_destroy", [&]() -> int {
    group_of(p_handle, "GA_Pgroup_destroy");
    throw error("the world group cannot be destroyed");
  });
}
int GA_Pgroup_nodeid(int p_handle) {
  return api("GA_Pgroup_nodeid", [&] { return group_of(p_handle, "GA_Pgroup_nodeid").rank(); });
}
int GA_Pgroup_nnodes(int p_handle) {
  return api("GA_Pgroup_nnodes", [&] { return group_of(p_handle, "GA_Pgroup_nnodes").size(); });
}
void GA_Pgroup_sync(int p_handle) {
  api("GA_Pgroup_sync", [&] { group_of(p_handle, "GA_Pgroup_sync"); });
  GA_Sync();  // the world group: the same as GA_Sync (fences, then a barrier)
}
int GA_Pgroup_absolute_id(int p_handle, int pid) {
  return api("GA_Pgroup_absolute_id", [&] {
    const coll::group& g = group_of(p_handle, "GA_Pgroup_absolute_id");
    if (pid < 0 || pid >= g.size())
      throw error("pid " + std::to_string(pid) + " is not in [0, " + std::to_string(g.size()) +
                  ")");
    return pid;  // world group: its ids are the absolute ones
  });
}
void GA_Pgroup_brdcst(int p_handle, void* buf, int lenbuf, int root) {
  api("GA_Pgroup_brdcst", [&] { brdcst("GA_Pgroup_brdcst", p_handle, buf, lenbuf, root); });
}
#define GAEA_GA_PGOP(NAME, T)                                 \
  void NAME(int p_handle, T x[], int n, const char* op) {     \
    api(#NAME, [&] { gop_call(#NAME, p_handle, x, n, op); }); \
  }
GAEA_GA_PGOP(GA_Pgroup_dgop, double)
GAEA_GA_PGOP(GA_Pgroup_fgop, float)
GAEA_GA_PGOP(GA_Pgroup_igop, int)
GAEA_GA_PGOP(GA_Pgroup_lgop, long)
GAEA_GA_PGOP(GA_Pgroup_llgop, long long)
GAEA_GA_PGOP(GA_Pgroup_zgop, DoubleComplex)
GAEA_GA_PGOP(GA_Pgroup_cgop, SingleComplex)
GAEA_GA_PGOP(NGA_Pgroup_dgop, double)
GAEA_GA_PGOP(NGA_Pgroup_fgop, float)
GAEA_GA_PGOP(NGA_Pgroup_igop, int)
GAEA_GA_PGOP(NGA_Pgroup_lgop, long)
GAEA_GA_PGOP(NGA_Pgroup_llgop, long long)
GAEA_GA_PGOP(NGA_Pgroup_zgop, DoubleComplex)
#undef GAEA_GA_PGOP
int GA_Get_pgroup(int g_a) {
  return api("GA_Get_pgroup", [&] {
    current("GA_Get_pgroup").arrays.allocated(g_a, "GA_Get_pgroup");
    return world_pgroup;  // every array lives on the world group here
  });
}
int GA_Get_pgroup_size(int p_handle) {
  return api("GA_Get_pgroup_size", [&] { return group_of(p_handle, "GA_Get_pgroup_size").size(); });
}

int NGA_Pgroup_get_world(void) {
  return GA_Pgroup_get_world();
}
int NGA_Pgroup_get_default(void) {
  return GA_Pgroup_get_default();
}
void NGA_Pgroup_set_default(int p_handle) {
  GA_Pgroup_set_default(p_handle);
}
int NGA_Pgroup_create(int* list, int count) {
  return GA_Pgroup_create(list, count);
}
int NGA_Pgroup_destroy(int p_handle) {
  return GA_Pgroup_destroy(p_handle);
}
int NGA_Pgroup_nodeid(int p_handle) {
  return GA_Pgroup_nodeid(p_handle);
}
int NGA_Pgroup_nnodes(int p_handle) {
  return GA_Pgroup_nnodes(p_handle);
}
void NGA_Pgroup_sync(int p_handle) {
  GA_Pgroup_sync(p_handle);
}
int NGA_Pgroup_absolute_id(int p_handle, int pid) {
  return GA_Pgroup_absolute_id(p_handle, pid);
}
int NGA_Get_pgroup(int g_a) {
  return GA_Get_pgroup(g_a);
}
int NGA_Get_pgroup_size(int p_handle) {
  return GA_Get_pgroup_size(p_handle);
}

// ---- MPI communicators (the runtime's; not to be freed) ----
MPI_Comm GA_MPI_Comm(void) {
  return api("GA_MPI_Comm", [] { return current("GA_MPI_Comm").rt->comm().mpi_comm(); });
}
MPI_Comm GA_MPI_Comm_pgroup(int p_handle) {
  return api("GA_MPI_Comm_pgroup", [&] {
    group_of(p_handle, "GA_MPI_Comm_pgroup");
    return current("GA_MPI_Comm_pgroup").rt->comm().mpi_comm();
  });
}
MPI_Comm GA_MPI_Comm_pgroup_default(void) {
  return api("GA_MPI_Comm_pgroup_default", [] {
    group_of(current("GA_MPI_Comm_pgroup_default").default_pgroup, "GA_MPI_Comm_pgroup_default");
    return current("GA_MPI_Comm_pgroup_default").rt->comm().mpi_comm();
  });
}

// ---- Cluster (node) queries: a node is what MPI_COMM_TYPE_SHARED groups ----
int GA_Cluster_nnodes(void) {
  return api("GA_Cluster_nnodes", [] { return current("GA_Cluster_nnodes").rt->nodes(); });
}
int GA_Cluster_nodeid(void) {
  return api("GA_Cluster_nodeid", [] { return current("GA_Cluster_nodeid").rt->node_id(); });
}
int GA_Cluster_nprocs(int node) {
  return api("GA_Cluster_nprocs", [&] {
    const gaea::runtime& rt = *current("GA_Cluster_nprocs").rt;
    check_node(node);
    int count = 0;
    for (int r = 0; r < rt.size(); ++r)
      count += rt.node_of(r) == node ? 1 : 0;
    return count;
  });
}
int GA_Cluster_procid(int node, int local_rank) {
  return api("GA_Cluster_procid", [&] {
    const gaea::runtime& rt = *current("GA_Cluster_procid").rt;
    check_node(node);
    int seen = 0;
    for (int r = 0; r < rt.size(); ++r)
      if (rt.node_of(r) == node && seen++ == local_rank && local_rank >= 0) return r;
    throw error("node " + std::to_string(node) + " has " + std::to_string(seen) +
                " processes; local rank " + std::to_string(local_rank) + " is not one of them");
  });
}
int GA_Cluster_proc_nodeid(int proc) {
  return api("GA_Cluster_proc_nodeid", [&] {
    return current("GA_Cluster_proc_nodeid").rt->node_of(checked_rank(proc, "process"));
  });
}

}  // extern "C"
