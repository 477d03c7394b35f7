// Collectives on local buffers (GA_Brdcst, GA_Gop and GA_[DFILZC]gop with "+", "*", "max",
// "min", "absmax", "absmin") on gaea::coll, process groups (coll groups, with an MPI
// communicator each), GA's MPI communicators, and cluster (node) queries.

#include <mpi.h>

#include <algorithm>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <map>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "detail/state.hpp"
#include "ga-mpi.h"
#include "ga.h"
#include "gaea/coll/collectives.hpp"
#include "gaea/comm/context.hpp"

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

// Process groups other than the world's: a coll::group and an MPI communicator of the same
// members (for GA_MPI_Comm_pgroup), made together by GA_Pgroup_create. Handles count up from 1
// in creation order, the same on every rank since creation is collective.
struct pgroup {
  coll::group group;
  MPI_Comm comm = MPI_COMM_NULL;  // MPI_COMM_NULL on ranks outside the group
};
struct pgroup_table {
  std::map<int, pgroup> groups;
  int next = world_pgroup + 1;
  bool hooked = false;
};
pgroup_table& pgroups() {
  static pgroup_table t;
  return t;
}

const pgroup& pgroup_of(int p_handle, const char* fn) {
  current(fn);
  const auto it = pgroups().groups.find(p_handle);
  if (it == pgroups().groups.end())
    throw error("process group " + std::to_string(p_handle) +
                " does not exist (the world group is " + std::to_string(world_pgroup) +
                "; others come from GA_Pgroup_create and end with GA_Pgroup_destroy)");
  return it->second;
}

}  // namespace

namespace gaea::ga_compat::detail {
const coll::group& group_of(int p_handle, const char* fn) {
  current(fn);
  if (p_handle == world_pgroup) return coll::world();
  return pgroup_of(p_handle, fn).group;
}
const coll::group& default_group(const char* fn) {
  return group_of(current(fn).default_pgroup, fn);
}
}  // namespace gaea::ga_compat::detail

namespace {

// The MPI communicator of a group handle (MPI_COMM_NULL on ranks outside it).
MPI_Comm comm_of(int p_handle, const char* fn) {
  if (p_handle == world_pgroup) return current(fn).rt->comm().mpi_comm();
  return pgroup_of(p_handle, fn).comm;
}

// Records a new group (the same handle on every rank: creation is collective).
int add_pgroup(pgroup g) {
  pgroup_table& t = pgroups();
  if (!t.hooked) {  // GA_Terminate frees what the program left
    add_terminate_hook([] {
      for (auto& [h, pg] : pgroups().groups)
        if (pg.comm != MPI_COMM_NULL) MPI_Comm_free(&pg.comm);
      pgroups() = pgroup_table{};
    });
    t.hooked = true;
  }
  const int handle = t.next++;
  t.groups.emplace(handle, std::move(g));
  return handle;
}

// Collective over the default group: `list` holds `count` distinct ids of that group.
int create_pgroup(const int* list, int count) {
  const char* fn = "GA_Pgroup_create";
  const int parent_handle = current(fn).default_pgroup;
  const coll::group& parent = group_of(parent_handle, fn);
  if (count < 1 || count > parent.size())
    throw error("count=" + std::to_string(count) + " must be in [1, " +
                std::to_string(parent.size()) + "]");
  if (list == nullptr) throw error("null list");
  // GA orders a new group's members by their ids in the parent, whatever the list's order.
  std::vector<int> members(list, list + count);
  std::sort(members.begin(), members.end());
  pgroup g{parent.subset(members, "GA process group " + std::to_string(pgroups().next))};
  // The communicator of the same members in the same order (collective over the parent).
  MPI_Comm parent_comm = comm_of(parent_handle, fn);
  MPI_Group all, sub;
  MPI_Comm_group(parent_comm, &all);
  MPI_Group_incl(all, count, members.data(), &sub);
  MPI_Comm_create(parent_comm, sub, &g.comm);
  MPI_Group_free(&sub);
  MPI_Group_free(&all);
  return add_pgroup(std::move(g));
}

// Collective over group `p_handle`: members of the same `color` (>= 0) form a group, ordered by
// their id in `p_handle`; `duplicate` keeps every member.
int split_pgroup(const char* fn, int p_handle, int color) {
  const coll::group& parent = group_of(p_handle, fn);
  if (color < 0) throw error("color " + std::to_string(color) + " must be >= 0");
  if (parent.rank() < 0)
    throw error("this rank is not a member of process group " + std::to_string(p_handle));
  pgroup g{parent.split(color, 0, "GA process group " + std::to_string(pgroups().next))};
  MPI_Comm_split(comm_of(p_handle, fn), color, parent.rank(), &g.comm);
  return add_pgroup(std::move(g));
}

int destroy_pgroup(int p_handle) {
  current("GA_Pgroup_destroy");
  if (p_handle == world_pgroup) throw error("the world group cannot be destroyed");
  pgroup_of(p_handle, "GA_Pgroup_destroy");
  if (current("GA_Pgroup_destroy").default_pgroup == p_handle)
    throw error("process group " + std::to_string(p_handle) +
                " is the default group (GA_Pgroup_set_default another first)");
  for (array_slot* s : current("GA_Pgroup_destroy").arrays.live())
    if (s->pgroup == p_handle)
      throw error("process group " + std::to_string(p_handle) + " still holds array '" + s->name +
                  "' (handle " + std::to_string(s->handle) + "; GA_Destroy it first)");
  pgroup_table& t = pgroups();
  pgroup& g = t.groups.at(p_handle);
  if (g.comm != MPI_COMM_NULL) MPI_Comm_free(&g.comm);
  t.groups.erase(p_handle);
  return 1;
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
  return api("GA_Pgroup_create", [&] { return create_pgroup(list, count); });
}
int GA_Pgroup_split_irreg(int p_handle, int color) {
  return api("GA_Pgroup_split_irreg",
             [&] { return split_pgroup("GA_Pgroup_split_irreg", p_handle, color); });
}
int NGA_Pgroup_split_irreg(int p_handle, int color) {
  return api("NGA_Pgroup_split_irreg",
             [&] { return split_pgroup("NGA_Pgroup_split_irreg", p_handle, color); });
}
int GA_Pgroup_duplicate(int p_handle) {
  return api("GA_Pgroup_duplicate",
             [&] { return split_pgroup("GA_Pgroup_duplicate", p_handle, 0); });
}
int NGA_Pgroup_duplicate(int p_handle) {
  return api("NGA_Pgroup_duplicate",
             [&] { return split_pgroup("NGA_Pgroup_duplicate", p_handle, 0); });
}
int GA_Pgroup_destroy(int p_handle) {
  return api("GA_Pgroup_destroy", [&] { return destroy_pgroup(p_handle); });
}
int GA_Pgroup_nodeid(int p_handle) {
  return api("GA_Pgroup_nodeid", [&] { return group_of(p_handle, "GA_Pgroup_nodeid").rank(); });
}
int GA_Pgroup_nnodes(int p_handle) {
  return api("GA_Pgroup_nnodes", [&] { return group_of(p_handle, "GA_Pgroup_nnodes").size(); });
}
void GA_Pgroup_sync(int p_handle) {
  GA_Fence();  // this rank's puts and accumulates are complete, then the members meet
  api("GA_Pgroup_sync", [&] {
    if (p_handle == world_pgroup)
      current("GA_Pgroup_sync").rt->barrier();
    else
      coll::barrier(group_of(p_handle, "GA_Pgroup_sync"));
  });
}
// As GA: `num_group` groups of consecutive ids of `p_handle`, ceil(size / num_group) each
// (the last may be smaller); returns the caller's. num_group 0 returns `p_handle` itself.
int GA_Pgroup_split(int p_handle, int num_group) {
  return api("GA_Pgroup_split", [&] {
    const char* fn = "GA_Pgroup_split";
    const coll::group& parent = group_of(p_handle, fn);
    if (num_group < 0)
      throw error("num_group " + std::to_string(num_group) + " (the number of groups) is < 0");
    if (num_group == 0) return p_handle;
    const int per = (parent.size() + num_group - 1) / num_group;
    return split_pgroup(fn, p_handle, parent.rank() / per);
  });
}
int NGA_Pgroup_split(int p_handle, int num_group) {
  return GA_Pgroup_split(p_handle, num_group);
}
// As GA: a group of the caller alone, collective over the default group (GA creates it there).
int GA_Pgroup_self(void) {
  return api("GA_Pgroup_self", [] {
    const char* fn = "GA_Pgroup_self";
    const int p = current(fn).default_pgroup;
    return split_pgroup(fn, p, group_of(p, fn).rank());
  });
}
int NGA_Pgroup_self(void) {
  return GA_Pgroup_self();
}
int GA_Pgroup_absolute_id(int p_handle, int pid) {
  return api("GA_Pgroup_absolute_id", [&] {
    const coll::group& g = group_of(p_handle, "GA_Pgroup_absolute_id");
    if (pid < 0 || pid >= g.size())
      throw error("pid " + std::to_string(pid) + " is not in [0, " + std::to_string(g.size()) +
                  ")");
    return g.world_rank(pid);
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
    return current("GA_Get_pgroup").arrays.allocated(g_a, "GA_Get_pgroup").pgroup;
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
    return comm_of(p_handle, "GA_MPI_Comm_pgroup");  // MPI_COMM_NULL for non-members
  });
}
MPI_Comm GA_MPI_Comm_pgroup_default(void) {
  const int p = api("GA_MPI_Comm_pgroup_default",
                    [] { return current("GA_MPI_Comm_pgroup_default").default_pgroup; });
  return GA_MPI_Comm_pgroup(p);
}

// ---- Cluster (node) queries: nodes as the runtime numbers them (MPI_COMM_TYPE_SHARED), the
// world group's placement table ----
int GA_Cluster_nnodes(void) {
  return api("GA_Cluster_nnodes", [] { return current("GA_Cluster_nnodes").rt->nodes(); });
}
int GA_Cluster_nodeid(void) {
  return api("GA_Cluster_nodeid", [] { return current("GA_Cluster_nodeid").rt->node_id(); });
}
int GA_Cluster_nprocs(int node) {
  return api("GA_Cluster_nprocs", [&] {
    const gaea::runtime& rt = *current("GA_Cluster_nprocs").rt;
    if (node < 0) node = rt.node_id();  // as GA (ARMCI): the caller's node (GA's pg2test asks so)
    check_node(node);
    int count = 0;
    for (int r = 0; r < rt.size(); ++r)
      count += coll::world().node_of(r) == node ? 1 : 0;
    return count;
  });
}
int GA_Cluster_procid(int node, int local_rank) {
  return api("GA_Cluster_procid", [&] {
    const gaea::runtime& rt = *current("GA_Cluster_procid").rt;
    check_node(node);
    int seen = 0;
    for (int r = 0; r < rt.size(); ++r)
      if (coll::world().node_of(r) == node && seen++ == local_rank && local_rank >= 0) return r;
    throw error("node " + std::to_string(node) + " has " + std::to_string(seen) +
                " processes; local rank " + std::to_string(local_rank) + " is not one of them");
  });
}
int GA_Cluster_proc_nodeid(int proc) {
  return api("GA_Cluster_proc_nodeid", [&] {
    current("GA_Cluster_proc_nodeid");
    return coll::world().node_of(checked_rank(proc, "process"));
  });
}

}  // extern "C"
