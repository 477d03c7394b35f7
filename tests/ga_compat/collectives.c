/* GA C API, collectives and process queries: GA_Brdcst, GA_Gop and GA_[DFILZC]gop with every
 * operator, process groups (the world group and GA_Pgroup_create's), GA_MPI_Comm* and the
 * cluster queries —
 * checked against values every rank can compute. A GA-style program: plain C, ga.h and
 * ga-mpi.h only. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "ga-mpi.h"
#include "ga.h"

static int me, nproc;

/* Rank r contributes x_r(k) = (k + 1) * (r % 2 ? -1 : 1) * (r + 1): signs alternate so that
 * "max" and "absmax" differ. Serial references over r = 0..nproc-1. */
static double magnitude(double x) {
  return x < 0 ? -x : x;
}
static double contribution(int r, int k) {
  return (k + 1) * (r % 2 ? -1.0 : 1.0) * (r + 1);
}
static double reference(const char* op, int k) {
  double acc = strcmp(op, "*") == 0 ? 1.0 : strcmp(op, "+") == 0 ? 0.0 : contribution(0, k);
  if (strcmp(op, "absmax") == 0 || strcmp(op, "absmin") == 0) acc = magnitude(acc);
  for (int r = strcmp(op, "+") == 0 || strcmp(op, "*") == 0 ? 0 : 1; r < nproc; ++r) {
    const double x = contribution(r, k);
    if (strcmp(op, "+") == 0) acc += x;
    if (strcmp(op, "*") == 0) acc *= x;
    if (strcmp(op, "max") == 0 && x > acc) acc = x;
    if (strcmp(op, "min") == 0 && x < acc) acc = x;
    if (strcmp(op, "absmax") == 0 && magnitude(x) > acc) acc = magnitude(x);
    if (strcmp(op, "absmin") == 0 && magnitude(x) < acc) acc = magnitude(x);
  }
  return acc;
}

static void test_gops(void) {
  const char* ops[] = {"+", "*", "max", "min", "absmax", "absmin"};
  enum { N = 5 };
  for (int o = 0; o < 6; ++o) {
    double d[N];
    float f[N];
    int i[N];
    long l[N];
    long long ll[N];
    for (int k = 0; k < N; ++k) {
      d[k] = contribution(me, k);
      f[k] = (float)d[k];
      i[k] = (int)d[k];
      l[k] = (long)d[k];
      ll[k] = (long long)d[k];
    }
    GA_Dgop(d, N, ops[o]);
    GA_Fgop(f, N, ops[o]);
    GA_Igop(i, N, ops[o]);
    GA_Lgop(l, N, ops[o]);
    GA_Llgop(ll, N, ops[o]);
    for (int k = 0; k < N; ++k) {
      const double want = reference(ops[o], k);
      CHECK(d[k] == want, "GA_Dgop %s [%d] = %g, expected %g", ops[o], k, d[k], want);
      CHECK(f[k] == (float)want, "GA_Fgop %s [%d] = %g", ops[o], k, (double)f[k]);
      CHECK(i[k] == (int)want, "GA_Igop %s [%d] = %d", ops[o], k, i[k]);
      CHECK(l[k] == (long)want, "GA_Lgop %s [%d] = %ld", ops[o], k, l[k]);
      CHECK(ll[k] == (long long)want, "GA_Llgop %s [%d] = %lld", ops[o], k, ll[k]);
    }
    /* GA_Gop with a type code, and the NGA_ spellings, on the same data. */
    double d2[N];
    int i2[N];
    long l2[N];
    for (int k = 0; k < N; ++k) {
      d2[k] = contribution(me, k);
      i2[k] = (int)d2[k];
      l2[k] = (long)d2[k];
    }
    GA_Gop(C_DBL, d2, N, ops[o]);
    NGA_Igop(i2, N, ops[o]);
    NGA_Lgop(l2, N, ops[o]);
    for (int k = 0; k < N; ++k) {
      const double want = reference(ops[o], k);
      CHECK(d2[k] == want && i2[k] == (int)want && l2[k] == (long)want, "GA_Gop/NGA_ %s [%d]",
            ops[o], k);
    }
  }
  /* Complex sums and products: z_r = (r + 1) + i, so the sum is (n(n+1)/2, n). */
  DoubleComplex z[2];
  SingleComplex c[2];
  for (int k = 0; k < 2; ++k) {
    z[k].real = me + 1;
    z[k].imag = k == 0 ? 1.0 : 0.0;
    c[k].real = (float)(me + 1);
    c[k].imag = k == 0 ? 1.0f : 0.0f;
  }
  GA_Zgop(z, 1, "+");
  GA_Cgop(c, 1, "+");
  CHECK(z[0].real == nproc * (nproc + 1) / 2.0 && z[0].imag == nproc, "GA_Zgop + = (%g, %g)",
        z[0].real, z[0].imag);
  CHECK(c[0].real == nproc * (nproc + 1) / 2.0f && c[0].imag == (float)nproc, "GA_Cgop +");
  GA_Zgop(&z[1], 1, "*"); /* purely real factors: n! */
  double fact = 1;
  for (int r = 1; r <= nproc; ++r)
    fact *= r;
  CHECK(z[1].real == fact && z[1].imag == 0.0, "GA_Zgop * = (%g, %g)", z[1].real, z[1].imag);
  GA_Pgroup_cgop(GA_Pgroup_get_world(), &c[1], 1, "*");
  CHECK(c[1].real == (float)fact && c[1].imag == 0.0f, "GA_Pgroup_cgop *");
  /* The group forms on the world group. */
  const int w = GA_Pgroup_get_world();
  double pd[1] = {me};
  float pf[1] = {(float)me};
  int pi[1] = {me};
  long pl[1] = {me};
  long long pll[1] = {me};
  DoubleComplex pz[1] = {{me, -me}};
  GA_Pgroup_dgop(w, pd, 1, "max");
  GA_Pgroup_fgop(w, pf, 1, "min");
  GA_Pgroup_igop(w, pi, 1, "+");
  GA_Pgroup_lgop(w, pl, 1, "absmax");
  GA_Pgroup_llgop(w, pll, 1, "+");
  GA_Pgroup_zgop(w, pz, 1, "+");
  const long sum = (long)nproc * (nproc - 1) / 2;
  CHECK(pd[0] == nproc - 1 && pf[0] == 0.0f && pi[0] == sum && pl[0] == nproc - 1 &&
            pll[0] == sum && pz[0].real == sum && pz[0].imag == -sum,
        "GA_Pgroup_*gop");
  /* The NGA_ spellings: products of (me + 2), n! shifted. */
  double nd[1] = {me + 2};
  float nf[1] = {(float)(me + 2)};
  int ni[1] = {me + 2};
  long nl[1] = {me + 2};
  long long nll[1] = {me + 2};
  DoubleComplex nz[1] = {{me + 2, 0}};
  NGA_Pgroup_dgop(w, nd, 1, "*");
  NGA_Pgroup_fgop(w, nf, 1, "*");
  NGA_Pgroup_igop(w, ni, 1, "*");
  NGA_Pgroup_lgop(w, nl, 1, "*");
  NGA_Pgroup_llgop(w, nll, 1, "*");
  NGA_Pgroup_zgop(w, nz, 1, "*");
  const double shifted = fact * (nproc + 1); /* 2 * 3 * ... * (nproc + 1) */
  CHECK(nd[0] == shifted && nf[0] == (float)shifted && ni[0] == (int)shifted &&
            nl[0] == (long)shifted && nll[0] == (long long)shifted && nz[0].real == shifted &&
            nz[0].imag == 0.0,
        "NGA_Pgroup_*gop * = %g, expected %g", nd[0], shifted);
}

static void test_brdcst(void) {
  for (int root = 0; root < nproc; ++root) {
    char buf[37];
    for (int k = 0; k < 37; ++k)
      buf[k] = (char)(me == root ? 'a' + (k + root) % 26 : '?');
    GA_Brdcst(buf, 37, root);
    for (int k = 0; k < 37; ++k)
      CHECK(buf[k] == 'a' + (k + root) % 26, "GA_Brdcst root %d byte %d", root, k);
    double d[3] = {me, me, me};
    NGA_Brdcst(d, (int)sizeof d, root);
    CHECK(d[0] == root && d[2] == root, "NGA_Brdcst root %d", root);
    long l[2] = {me * 10L, -me};
    GA_Pgroup_brdcst(GA_Pgroup_get_world(), l, (int)sizeof l, root);
    CHECK(l[0] == root * 10L && l[1] == -root, "GA_Pgroup_brdcst root %d", root);
  }
}

static void test_groups_and_queries(void) {
  const int w = GA_Pgroup_get_world();
  CHECK(GA_Pgroup_get_default() == w, "default group is the world group");
  GA_Pgroup_set_default(w);
  CHECK(NGA_Pgroup_get_default() == NGA_Pgroup_get_world(), "NGA_ default");
  CHECK(GA_Pgroup_nodeid(w) == me && GA_Pgroup_nnodes(w) == nproc, "GA_Pgroup_nodeid/nnodes");
  CHECK(NGA_Pgroup_nodeid(w) == me && NGA_Pgroup_nnodes(w) == nproc, "NGA_Pgroup_nodeid/nnodes");
  CHECK(GA_Get_pgroup_size(w) == nproc, "GA_Get_pgroup_size");
  for (int p = 0; p < nproc; ++p)
    CHECK(GA_Pgroup_absolute_id(w, p) == p, "GA_Pgroup_absolute_id %d", p);
  int dims[1] = {4};
  int g = NGA_Create(C_INT, 1, dims, "grouped", NULL);
  CHECK(GA_Get_pgroup(g) == w && NGA_Get_pgroup(g) == w, "GA_Get_pgroup");
  GA_Destroy(g);
  GA_Pgroup_sync(w);
  NGA_Pgroup_sync(w);

  /* The communicators are the world's: same size and rank, usable for plain MPI. */
  MPI_Comm comms[3] = {GA_MPI_Comm(), GA_MPI_Comm_pgroup(w), GA_MPI_Comm_pgroup_default()};
  for (int k = 0; k < 3; ++k) {
    int r, s;
    MPI_Comm_rank(comms[k], &r);
    MPI_Comm_size(comms[k], &s);
    CHECK(r == me && s == nproc, "GA_MPI_Comm %d: rank %d of %d", k, r, s);
  }
  int mine = me + 1, total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, GA_MPI_Comm());
  CHECK(total == nproc * (nproc + 1) / 2, "MPI_Allreduce on GA_MPI_Comm");

  /* Cluster queries agree with MPI's shared-memory split and with each other. */
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
  int node_size, node_rank;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_free(&node);
  const int nnodes = GA_Cluster_nnodes(), myid = GA_Cluster_nodeid();
  CHECK(nnodes >= 1 && myid >= 0 && myid < nnodes, "GA_Cluster_nnodes %d nodeid %d", nnodes, myid);
  CHECK(GA_Cluster_nprocs(myid) == node_size, "GA_Cluster_nprocs(%d) = %d, MPI says %d", myid,
        GA_Cluster_nprocs(myid), node_size);
  CHECK(GA_Cluster_nprocs(-1) == node_size, "GA_Cluster_nprocs(-1): the caller's node");
  CHECK(GA_Cluster_procid(myid, node_rank) == me, "GA_Cluster_procid(%d, %d)", myid, node_rank);
  CHECK(GA_Cluster_proc_nodeid(me) == myid, "GA_Cluster_proc_nodeid(me)");
  int counted = 0;
  for (int n = 0; n < nnodes; ++n) {
    counted += GA_Cluster_nprocs(n);
    for (int k = 0; k < GA_Cluster_nprocs(n); ++k)
      CHECK(GA_Cluster_proc_nodeid(GA_Cluster_procid(n, k)) == n, "node %d proc %d", n, k);
  }
  CHECK(counted == nproc, "the nodes hold %d processes, not %d", counted, nproc);
}

/* Groups from GA_Pgroup_create: the even ranks, and every rank listed in reverse order (GA 5.8
 * orders a group's members by their ids whatever the list's order). */
static void test_created_groups(void) {
  int evens[4], nev = 0, reversed[4];
  for (int r = 0; r < nproc; r += 2)
    evens[nev++] = r;
  for (int r = 0; r < nproc; ++r)
    reversed[r] = nproc - 1 - r;
  const int ge = GA_Pgroup_create(evens, nev);
  const int gr = NGA_Pgroup_create(reversed, nproc);
  CHECK(ge != GA_Pgroup_get_world() && gr != ge, "new handles %d %d", ge, gr);
  /* Reversed list: member k is still world rank k. */
  CHECK(GA_Pgroup_nnodes(gr) == nproc && GA_Pgroup_nodeid(gr) == me, "reversed list: id %d of %d",
        GA_Pgroup_nodeid(gr), GA_Pgroup_nnodes(gr));
  for (int k = 0; k < nproc; ++k)
    CHECK(GA_Pgroup_absolute_id(gr, k) == k, "absolute id of %d", k);
  long who[1] = {me + 1};
  GA_Pgroup_brdcst(gr, who, (int)sizeof who, nproc - 1);
  CHECK(who[0] == nproc, "broadcast from the group's last member: %ld", who[0]);
  MPI_Comm cr = GA_MPI_Comm_pgroup(gr);
  int cr_rank;
  MPI_Comm_rank(cr, &cr_rank);
  CHECK(cr_rank == me, "the reversed list's communicator: rank %d", cr_rank);
  GA_Pgroup_sync(gr);
  /* Even ranks: a reduction among them only. */
  if (me % 2 == 0) {
    CHECK(GA_Pgroup_nodeid(ge) == me / 2 && GA_Get_pgroup_size(ge) == nev, "even group id");
    long s[1] = {me};
    GA_Pgroup_lgop(ge, s, 1, "+");
    long want = 0;
    for (int r = 0; r < nproc; r += 2)
      want += r;
    CHECK(s[0] == want, "sum over the even ranks = %ld, expected %ld", s[0], want);
    int sz;
    MPI_Comm_size(GA_MPI_Comm_pgroup(ge), &sz);
    CHECK(sz == nev, "even communicator size %d", sz);
    GA_Pgroup_sync(ge);
  } else {
    CHECK(GA_Pgroup_nodeid(ge) == -1, "an odd rank is not in the even group");
    CHECK(GA_MPI_Comm_pgroup(ge) == MPI_COMM_NULL, "an odd rank has no even communicator");
  }
  /* Split that group by parity of world rank; ids follow the parent's order. */
  const int gp = GA_Pgroup_split_irreg(gr, me % 2);
  int expect_id = 0, expect_n = 0;
  for (int r = 0; r < nproc; ++r)
    if (r % 2 == me % 2) {
      if (r < me) ++expect_id;
      ++expect_n;
    }
  CHECK(GA_Pgroup_nnodes(gp) == expect_n && GA_Pgroup_nodeid(gp) == expect_id,
        "split_irreg: id %d of %d, expected %d of %d", GA_Pgroup_nodeid(gp), GA_Pgroup_nnodes(gp),
        expect_id, expect_n);
  int one[1] = {1};
  GA_Pgroup_igop(gp, one, 1, "+");
  CHECK(one[0] == expect_n, "count over the split group = %d", one[0]);
  int psz;
  MPI_Comm_size(GA_MPI_Comm_pgroup(gp), &psz);
  CHECK(psz == expect_n, "split communicator size %d", psz);
  /* A duplicate of the world group: same members, a new handle. */
  const int gd = NGA_Pgroup_duplicate(GA_Pgroup_get_world());
  CHECK(gd != GA_Pgroup_get_world() && GA_Pgroup_nodeid(gd) == me && GA_Pgroup_nnodes(gd) == nproc,
        "GA_Pgroup_duplicate");
  double x[1] = {1.5};
  GA_Pgroup_dgop(gd, x, 1, "+");
  CHECK(x[0] == 1.5 * nproc, "sum over the duplicate = %g", x[0]);
  CHECK(GA_Pgroup_destroy(gp) == 1 && GA_Pgroup_destroy(gd) == 1, "destroy split/duplicate");
  CHECK(GA_Pgroup_destroy(ge) == 1 && NGA_Pgroup_destroy(gr) == 1, "GA_Pgroup_destroy");
  GA_Sync();
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  me = GA_Nodeid();
  nproc = GA_Nnodes();
  test_gops();
  test_brdcst();
  test_groups_and_queries();
  test_created_groups();
  GA_Sync();
  if (me == 0) printf("ga_compat collectives: all checks passed on %d ranks\n", nproc);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
