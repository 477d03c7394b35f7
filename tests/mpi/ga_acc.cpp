// Accumulate under contention: every rank adds overlapping patches into the same owners at once,
// mixing the protocols (straight into a mapped owner on a node, target-driven through the
// owner's progress thread) and the element operations that share their atomicity (scatter_acc,
// read_inc). Values are integer-valued doubles, so the exact sum does not depend on the order;
// a lost update (a read-modify-write that was not atomic) shows as a wrong element.
// Registered with GAEA_RKEY_PTR=1 and 0, on sm and tcp, 2/3/4 ranks, spin and interrupt
// progress, and across emulated hosts (direct adds on one host, messages from the other).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>

#include "gaea/coll/collectives.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/ga/global_array.hpp"
#include "gaea/ga/protocol.hpp"
#include "gaea/ga/stats.hpp"
#include "test_support.hpp"

using namespace gaea;
using gaea::ga::index;
using gaea::ga::index_t;
using gaea::ga::patch;
using gaea::test::rt;

namespace {

bool env_is(const char* var, const char* value) {
  const char* v = std::getenv(var);
  return v != nullptr && std::string(v) == value;
}

// Rank `r`'s k-th accumulate: a random patch of dims, its values and its alpha, the same on
// every rank (each rank replays every other's to build the reference).
struct contribution {
  patch p;
  std::vector<double> values;
  double alpha;
  ga::acc_protocol proto;
};
contribution contribution_of(int r, int k, const index& dims) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(r) * 7919 + static_cast<std::uint64_t>(k));
  contribution c;
  const auto n = dims.size();
  c.p.lo.resize(n);
  c.p.hi.resize(n);
  for (std::size_t d = 0; d < n; ++d) {
    std::uniform_int_distribution<index_t> at(0, dims[d] - 1);
    index_t a = at(rng), b = at(rng);
    // Every third patch covers most of the array: many owners, long overlapping rows.
    if (k % 3 == 0) a = std::min<index_t>(a, dims[d] / 8), b = std::max(b, dims[d] - 1 - a);
    c.p.lo[d] = std::min(a, b);
    c.p.hi[d] = std::max(a, b);
  }
  c.values.resize(static_cast<std::size_t>(c.p.elements()));
  for (std::size_t e = 0; e < c.values.size(); ++e)
    c.values[e] = static_cast<double>((e + static_cast<std::size_t>(r)) % 7);
  c.alpha = static_cast<double>(1 + (k + r) % 3);
  // Odd ranks send every other accumulate through the owner's progress thread, so direct adds
  // and handler adds hit the same elements at the same time.
  c.proto =
      (r % 2 == 1 && k % 2 == 1) ? ga::acc_protocol::target_driven : ga::acc_protocol::automatic;
  return c;
}

// Adds contribution c into the row-major reference of an array of `dims`.
void add_to_reference(std::vector<double>& ref, const index& dims, const contribution& c) {
  const std::size_t n = dims.size();
  index at = c.p.lo;
  for (std::size_t e = 0; e < c.values.size(); ++e) {
    std::size_t flat = 0;
    for (std::size_t d = 0; d < n; ++d)
      flat = flat * static_cast<std::size_t>(dims[d]) + static_cast<std::size_t>(at[d]);
    ref[flat] += c.alpha * c.values[e];
    for (std::size_t d = n; d-- > 0;) {
      if (++at[d] <= c.p.hi[d]) break;
      at[d] = c.p.lo[d];
    }
  }
}

// Every rank issues `reps` accumulates at once (no synchronisation in between), then every
// rank compares the whole array with the exact reference.
void concurrent_overlapping_accumulates(const index& dims, const ga::layout_spec& spec, int reps) {
  const int me = rt().rank(), n = rt().size();
  global_array<double> a("acc_contention", dims, spec);
  a.zero();
  a.sync();
  const ga::stats before = ga::current_stats();
  for (int k = 0; k < reps; ++k) {
    const contribution c = contribution_of(me, k, dims);
    const ga::scoped_acc_protocol use(c.proto);
    a.acc(c.p, std::span<const double>(c.values), c.alpha);
  }
  a.sync();
  const ga::stats after = ga::current_stats();

  std::size_t total = 1;
  for (index_t d : dims)
    total *= static_cast<std::size_t>(d);
  std::vector<double> ref(total, 0.0), got(total);
  for (int r = 0; r < n; ++r)
    for (int k = 0; k < reps; ++k)
      add_to_reference(ref, dims, contribution_of(r, k, dims));
  patch whole;
  for (index_t d : dims) {
    whole.lo.push_back(0);
    whole.hi.push_back(d - 1);
  }
  a.get(whole, std::span<double>(got));
  std::size_t bad = 0;
  for (std::size_t i = 0; i < total; ++i)
    if (got[i] != ref[i] && bad++ == 0)
      UNSCOPED_INFO("element " << i << " = " << got[i] << ", want " << ref[i]);
  CHECK(bad == 0);

  // The path taken: never straight in without rkey_ptr; straight in on shared memory with it
  // (every rank's large patches reach other owners); by message to owners on other hosts.
  const std::uint64_t direct = after.accs_direct - before.accs_direct;
  if (env_is("GAEA_RKEY_PTR", "0")) CHECK(direct == 0);
  if (n > 1 && env_is("UCX_TLS", "sm") && !env_is("GAEA_RKEY_PTR", "0")) CHECK(direct > 0);
  bool off_node_peer = false, on_node_peer = false;
  for (int r = 0; r < n; ++r) {
    off_node_peer = off_node_peer || !rt().comm().same_node(r);
    on_node_peer = on_node_peer || (r != me && rt().comm().same_node(r));
  }
  // Across emulated hosts on UCX's default transports: direct adds inside a host too, so
  // direct adds and handler adds met on the same elements.
  const bool shm = std::getenv("UCX_TLS") == nullptr || env_is("UCX_TLS", "sm");
  const bool any_on_node =
      coll::allreduce(coll::world(), on_node_peer ? 1 : 0, coll::reduce_op::max) == 1;
  if (shm && any_on_node && !env_is("GAEA_RKEY_PTR", "0"))
    CHECK(coll::allreduce(coll::world(), direct, coll::reduce_op::sum) > 0);
  if (off_node_peer) {
    const std::uint64_t served = coll::allreduce(
        coll::world(), after.accs_served - before.accs_served, coll::reduce_op::sum);
    CHECK(served > 0);
  }
  a.sync();
}

}  // namespace

TEST_CASE(
    "ga acc: concurrent overlapping accumulates from every rank sum exactly (2-D, rows "
    "longer than a lock stripe)",
    "[ga][acc]") {
  // 1100 doubles per row: rows cross 4 KiB stripes inside one owner's tile.
  concurrent_overlapping_accumulates({37, 1100}, ga::layout_spec{}, 40);
}

TEST_CASE(
    "ga acc: concurrent overlapping accumulates from every rank sum exactly (3-D, short "
    "rows, ghost cells)",
    "[ga][acc]") {
  ga::layout_spec spec;
  spec.ghosts = {1, 0, 2};
  concurrent_overlapping_accumulates({9, 14, 23}, spec, 60);
}

TEST_CASE(
    "ga acc: no update is lost on elements every rank hits (acc, scatter_acc, both "
    "protocols, across a stripe boundary)",
    "[ga][acc][atomic]") {
  const int me = rt().rank(), n = rt().size();
  // One owner's part spans several 4 KiB stripes; elements 511/512 sit on the boundary.
  const index_t len = 2048 * n;
  global_array<double> a("acc_hot", {len});
  a.zero();
  a.sync();
  constexpr int reps = 2000;
  const patch pair{{511}, {512}};
  const std::vector<double> ones{1.0, 1.0};
  const std::vector<index> subs{{511}, {512}};
  for (int k = 0; k < reps; ++k) {
    const ga::scoped_acc_protocol use(k % 2 ? ga::acc_protocol::target_driven
                                            : ga::acc_protocol::automatic);
    if (k % 4 == 3)
      a.scatter_acc(subs, std::span<const double>(ones), 1.0);
    else
      a.acc(pair, std::span<const double>(ones), 1.0);
  }
  a.sync();
  std::vector<double> got(2);
  a.get(pair, std::span<double>(got));
  CHECK(got[0] == static_cast<double>(reps) * n);
  CHECK(got[1] == static_cast<double>(reps) * n);
  (void)me;
  a.sync();
}

TEST_CASE(
    "ga acc: read_inc hands out every ticket exactly once while accumulates hit its "
    "stripe",
    "[ga][acc][atomic]") {
  const int n = rt().size();
  global_array<std::int64_t> c("acc_tickets", {64});
  c.zero();
  c.sync();
  constexpr int reps = 200;
  std::vector<std::int64_t> mine;
  const std::vector<std::int64_t> one{1};
  for (int k = 0; k < reps; ++k) {
    mine.push_back(c.read_inc({0}));
    c.acc({{1}, {1}}, std::span<const std::int64_t>(one));  // the same stripe as the counter
  }
  c.sync();
  std::vector<std::int64_t> all(static_cast<std::size_t>(reps) * static_cast<std::size_t>(n));
  coll::allgather(coll::world(), std::span<const std::int64_t>(mine), std::span<std::int64_t>(all));
  std::sort(all.begin(), all.end());
  std::vector<std::int64_t> want(all.size());
  std::iota(want.begin(), want.end(), 0);
  CHECK(all == want);
  std::vector<std::int64_t> end(2);
  c.get({{0}, {1}}, std::span<std::int64_t>(end));
  CHECK(end[0] == static_cast<std::int64_t>(reps) * n);
  CHECK(end[1] == static_cast<std::int64_t>(reps) * n);
  c.sync();
}

TEST_CASE("ga acc: chunked target- and source-driven accumulates (pipelined parts) sum exactly",
          "[ga][acc][chunks]") {
  const int n = rt().size();
  const index_t rows = 40, cols = 90;  // rows of 720 B: chunks of 256 B cut inside rows
  for (auto proto : {ga::acc_protocol::target_driven, ga::acc_protocol::source_driven}) {
    for (std::size_t chunk : {std::size_t{256}, std::size_t{4096}, std::size_t{0}}) {
      const ga::scoped_acc_protocol use(proto);
      ga::set_acc_chunk_bytes(chunk);
      global_array<double> a("acc_chunks", {rows, cols});
      a.zero();
      const patch p{{1, 3}, {rows - 3, cols - 2}};
      std::vector<double> v(static_cast<std::size_t>(p.elements()));
      for (std::size_t e = 0; e < v.size(); ++e)
        v[e] = static_cast<double>(e % 11);
      constexpr int reps = 5;
      for (int k = 0; k < reps; ++k)
        a.acc(p, std::span<const double>(v), 2.0);
      a.sync();
      ga::set_acc_chunk_bytes(0);
      std::vector<double> got(static_cast<std::size_t>(p.elements()));
      a.get(p, std::span<double>(got));
      std::size_t bad = 0;
      for (std::size_t e = 0; e < got.size(); ++e)
        if (got[e] != 2.0 * reps * n * v[e] && bad++ == 0)
          UNSCOPED_INFO(ga::to_string(proto) << ", chunk " << chunk << ": element " << e << " = "
                                             << got[e] << ", want " << 2.0 * reps * n * v[e]);
      CHECK(bad == 0);
      a.sync();
    }
  }
}

TEST_CASE(
    "ga acc: a packed put then an accumulate of the same patch from one rank: the sum "
    "includes the put",
    "[ga][acc][order]") {
  const int me = rt().rank(), n = rt().size();
  const index_t rows = 16, w = 12;  // one rows x w block per rank
  std::vector<index_t> starts;
  for (int r = 0; r < n; ++r)
    starts.push_back(r * w);
  global_array<double> a("acc_after_put", {rows, w * n}, ga::layout_spec::irregular({{0}, starts}));
  a.zero();
  a.sync();
  const index_t c0 = ((me + 1) % n) * w;  // the next rank's block, a strided sub-patch of it
  const patch p{{2, c0 + 1}, {rows - 3, c0 + w - 3}};
  const std::vector<double> base(static_cast<std::size_t>(p.elements()), 5.0);
  const std::vector<double> ones(static_cast<std::size_t>(p.elements()), 1.0);
  constexpr int rounds = 50;
  for (int k = 0; k < rounds; ++k) {
    {
      const ga::scoped_strided_protocol packed(ga::strided_protocol::packed);
      a.put(p, std::span<const double>(base));
    }
    a.acc(p, std::span<const double>(ones), 2.0);  // no fence in between
  }
  a.sync();
  std::vector<double> got(static_cast<std::size_t>(p.elements()));
  a.get(p, std::span<double>(got));
  std::size_t bad = 0;
  for (double x : got)
    bad += x != 7.0 ? 1 : 0;  // the last put (5) plus the last accumulate (2)
  CHECK(bad == 0);
  a.sync();
}
