// The collectives' registry walked whole: every algorithm of every operation has one entry with
// a builder and a shape, names round-trip, the default rules pick runnable algorithms and keep
// their documented thresholds, and choose() refuses what cannot run with the same words.
#include <catch2/catch.hpp>
#include <iterator>
#include <set>
#include <string>
#include <utility>

#include "detail/registry.hpp"
#include "detail/shape.hpp"
#include "detail/shm_region.hpp"
#include "gaea/base/env.hpp"
#include "gaea/base/error.hpp"
#include "gaea/coll/estimator.hpp"

namespace d = gaea::coll::detail;
namespace coll = gaea::coll;
using coll::algorithm;
using coll::operation;

namespace {

std::vector<operation> all_operations() {
  std::vector<operation> out;
  for (const auto& n : coll::operation_names)
    out.push_back(n.value);
  return out;
}

std::vector<algorithm> all_algorithms() {
  std::vector<algorithm> out;
  for (const auto& n : coll::algorithm_names)
    out.push_back(n.value);
  return out;
}

// The default rule's choice for `size` members on `nodes` nodes (block placement).
algorithm rule(operation op, std::size_t bytes, int size, int nodes = 1, bool uniform = true) {
  const auto g = d::synthetic_group(size, nodes, true);
  return d::default_rule(*g, {op, bytes, uniform});
}

}  // namespace

TEST_CASE("every algorithm that implements an operation has one registry entry with a builder",
          "[coll][registry]") {
  std::set<std::pair<operation, algorithm>> seen;
  for (const d::entry& e : d::registry()) {
    INFO(coll::to_string(e.op) << " " << e.name());
    CHECK(seen.insert({e.op, e.algo}).second);  // no duplicate
    CHECK(e.algo != algorithm::automatic);
    CHECK(e.build != nullptr);
    CHECK(coll::implements(e.algo, e.op));
    CHECK(d::find_entry(e.op, e.algo) == &e);
    // The region's entries are the ones with an inline form, and only they need the region.
    if (e.run_inline) CHECK(e.region);
  }
  for (operation op : all_operations())
    for (algorithm a : all_algorithms()) {
      INFO(coll::to_string(op) << " " << coll::to_string(a));
      if (a == algorithm::automatic) {
        CHECK(coll::implements(a, op));
        CHECK(d::find_entry(op, a) == nullptr);
        continue;
      }
      CHECK(coll::implements(a, op) == (d::find_entry(op, a) != nullptr));
    }
  // Every operation runs on shared memory inside a node.
  for (operation op : all_operations())
    CHECK(coll::implements(algorithm::shared_memory, op));
}

TEST_CASE("registry entries are ordered by operation then algorithm", "[coll][registry]") {
  const auto entries = d::registry();
  REQUIRE_FALSE(entries.empty());
  for (std::size_t i = 1; i < entries.size(); ++i) {
    const auto prev = std::make_pair(entries[i - 1].op, entries[i - 1].algo);
    const auto cur = std::make_pair(entries[i].op, entries[i].algo);
    CHECK(prev < cur);
  }
  const auto rows = d::operation_registry();
  REQUIRE(rows.size() == std::size(coll::operation_names));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CHECK(static_cast<std::size_t>(rows[i].op) == i);
    CHECK(rows[i].default_rule != nullptr);
  }
}

TEST_CASE("every entry has an estimator shape on one node and across nodes", "[coll][registry]") {
  for (const d::entry& e : d::registry())
    for (int nodes : {1, 2}) {
      INFO(coll::to_string(e.op) << " " << e.name() << " on " << nodes << " node(s)");
      const auto g = d::synthetic_group(4, nodes, true);
      for (int me = 0; me < g->size(); ++me) {
        const d::schedule s = d::shape_schedule(e.op, e.algo, *g, me, 64, 4096);
        CHECK(s.shape_only);
        CHECK_FALSE(s.rounds.empty());
      }
    }
}

TEST_CASE("algorithm names round-trip and name one algorithm each", "[coll][registry]") {
  std::set<std::string_view> names;
  for (algorithm a : all_algorithms()) {
    const std::string_view name = coll::to_string(a);
    CHECK_FALSE(name.empty());
    CHECK(names.insert(name).second);
    CHECK(coll::parse_algorithm(name) == a);
  }
  for (const d::entry& e : d::registry()) {
    CHECK(e.name() == coll::to_string(e.algo));
    CHECK(coll::parse_algorithm(e.name()) == e.algo);
  }
  CHECK_FALSE(coll::parse_algorithm("no_such_algorithm").has_value());
}

TEST_CASE("the estimator compares every runnable message algorithm of an operation",
          "[coll][registry]") {
  for (operation op : all_operations())
    for (int size : {1, 2, 3, 4, 6, 8, 17}) {
      INFO(coll::to_string(op) << " on " << size);
      const auto c = d::candidates(op, size);
      CHECK(c == coll::algorithms_of(op, size));
      CHECK_FALSE(c.empty());
      std::size_t expected = 0;
      for (const d::entry& e : d::registry())
        if (e.op == op && !e.region && d::why_not(e, {op, size, true, nullptr, nullptr}).empty())
          ++expected;
      CHECK(c.size() == expected);
      for (algorithm a : c) {
        CHECK(a != algorithm::shared_memory);
        CHECK(coll::implements(a, op));
      }
    }
  // Pairwise only for powers of two.
  CHECK(d::candidates(operation::alltoall, 4) ==
        std::vector<algorithm>{algorithm::bruck, algorithm::pairwise, algorithm::send_recv});
  CHECK(d::candidates(operation::alltoall, 6) ==
        std::vector<algorithm>{algorithm::bruck, algorithm::send_recv});
}

TEST_CASE("default rules choose an algorithm of the operation that can run the call",
          "[coll][registry]") {
  d::settings s;
  for (operation op : all_operations())
    for (int size = 1; size <= 17; ++size)
      for (int nodes : {1, 2, 3})
        for (std::size_t bytes :
             {std::size_t{0}, std::size_t{256}, std::size_t{257}, std::size_t{8192},
              std::size_t{8193}, std::size_t{256} << 10, std::size_t{512} << 10})
          for (bool uniform : {true, false}) {
            INFO(coll::to_string(op) << " size " << size << " nodes " << nodes << " bytes " << bytes
                                     << " uniform " << uniform);
            const auto g = d::synthetic_group(size, nodes, true);
            const algorithm a = d::default_rule(*g, {op, bytes, uniform});
            const d::entry* e = d::find_entry(op, a);
            REQUIRE(e);
            CHECK_FALSE(e->region);
            CHECK(d::why_not(*e, {op, size, uniform, g.get(), &s}).empty());
          }
}

TEST_CASE("default rules keep their documented thresholds", "[coll][registry]") {
  // barrier, reduce: hierarchical when several nodes hold several members each.
  CHECK(rule(operation::barrier, 0, 8) == algorithm::dissemination);
  CHECK(rule(operation::barrier, 0, 8, 2) == algorithm::hierarchical);
  CHECK(rule(operation::barrier, 0, 4, 4) == algorithm::dissemination);
  CHECK(rule(operation::reduce, 64, 8) == algorithm::binomial);
  CHECK(rule(operation::reduce, 64, 8, 2) == algorithm::hierarchical);
  // broadcast: scatter-allgather from 512 KiB on more than 8 members.
  const std::size_t kib512 = std::size_t{512} << 10;
  CHECK(rule(operation::broadcast, kib512, 9) == algorithm::scatter_allgather);
  CHECK(rule(operation::broadcast, kib512 - 1, 9) == algorithm::binomial);
  CHECK(rule(operation::broadcast, kib512, 8) == algorithm::binomial);
  // Across at most 8 nodes from 128 KiB: the chain (hybrid_chain when nodes hold several
  // members and a node-mate may read its leader's memory).
  const bool hybrid = d::process_copy_refusal().empty();
  CHECK(rule(operation::broadcast, kib512, 16, 2) ==
        (hybrid ? algorithm::hybrid_chain : algorithm::hierarchical));
  CHECK(rule(operation::broadcast, 8192, 16, 2) == algorithm::hierarchical);
  const std::size_t kib128 = std::size_t{128} << 10;
  CHECK(rule(operation::broadcast, kib128, 4, 4) == algorithm::chain);
  CHECK(rule(operation::broadcast, kib128 - 1, 4, 4) == algorithm::binomial);
  CHECK(rule(operation::broadcast, kib128, 4, 1) == algorithm::binomial);
  CHECK(rule(operation::broadcast, kib512, 9, 9) == algorithm::scatter_allgather);
  // allreduce: ring from 256 KiB on more than 2 members, else hierarchical across nodes.
  const std::size_t kib256 = std::size_t{256} << 10;
  CHECK(rule(operation::allreduce, kib256, 3) == algorithm::ring);
  CHECK(rule(operation::allreduce, kib256, 2) == algorithm::recursive_doubling);
  CHECK(rule(operation::allreduce, kib256 - 1, 3) == algorithm::recursive_doubling);
  CHECK(rule(operation::allreduce, kib256 - 1, 8, 2) == algorithm::hierarchical);
  CHECK(rule(operation::allreduce, kib256, 8, 2) == algorithm::ring);
  CHECK(rule(operation::allgather, kib256, 8, 2) == algorithm::ring);
  // allgather: Bruck up to 8 KiB parts on more than 2 members.
  CHECK(rule(operation::allgather, 8192, 3) == algorithm::bruck);
  CHECK(rule(operation::allgather, 8193, 3) == algorithm::ring);
  CHECK(rule(operation::allgather, 8, 2) == algorithm::ring);
  CHECK(rule(operation::allgather, 8, 4, 2) == algorithm::bruck);
  // gather, scatter: linear up to 8 members.
  for (operation op : {operation::gather, operation::scatter}) {
    CHECK(rule(op, 64, 8) == algorithm::linear);
    CHECK(rule(op, 64, 9) == algorithm::binomial);
  }
  // alltoall: Bruck on more than 2 members up to 256 B blocks on one node, 8 KiB across nodes.
  CHECK(rule(operation::alltoall, 256, 3) == algorithm::bruck);
  CHECK(rule(operation::alltoall, 257, 3) == algorithm::send_recv);
  CHECK(rule(operation::alltoall, 257, 4) == algorithm::pairwise);
  CHECK(rule(operation::alltoall, 256, 2) == algorithm::pairwise);
  CHECK(rule(operation::alltoall, 8192, 4, 2) == algorithm::bruck);
  CHECK(rule(operation::alltoall, 8193, 4, 2) == algorithm::pairwise);
  CHECK(rule(operation::alltoall, 8, 4, 1, false) == algorithm::pairwise);
  CHECK(rule(operation::alltoall, 8, 3, 1, false) == algorithm::send_recv);
}

TEST_CASE("choose() follows option, then settings, then shared memory, then the rules",
          "[coll][registry]") {
  const auto g = d::synthetic_group(4, 1, true);
  d::settings s;
  const d::call_shape small{operation::alltoall, 64, true};
  // A group within one node: shared memory first.
  CHECK(d::choose(*g, small, algorithm::automatic, s) == algorithm::shared_memory);
  s.shm_bytes = 0;
  CHECK(d::choose(*g, small, algorithm::automatic, s) == algorithm::bruck);
  s.algo[static_cast<std::size_t>(operation::alltoall)] = algorithm::send_recv;
  CHECK(d::choose(*g, small, algorithm::automatic, s) == algorithm::send_recv);
  CHECK(d::choose(*g, small, algorithm::pairwise, s) == algorithm::pairwise);
  // Across nodes, no shared memory even when it is on.
  d::settings on;
  const auto two = d::synthetic_group(4, 2, true);
  CHECK(d::choose(*two, small, algorithm::automatic, on) == algorithm::bruck);
}

TEST_CASE("choose() refuses an algorithm that cannot run, naming the reason", "[coll][registry]") {
  d::settings s;
  const auto three = d::synthetic_group(3, 1, true);
  const auto four = d::synthetic_group(4, 1, true);
  const auto two_nodes = d::synthetic_group(4, 2, true);
  CHECK_THROWS_WITH(d::choose(*three, {operation::alltoall, 8, true}, algorithm::pairwise, s),
                    "gaea::coll: options::algo = pairwise for alltoall on group 'model' (3 "
                    "members): pairwise exchange needs a power-of-two number of members");
  CHECK_THROWS_WITH(d::choose(*four, {operation::alltoall, 8, false}, algorithm::bruck, s),
                    "gaea::coll: options::algo = bruck for alltoall on group 'model' (4 "
                    "members): Bruck needs equal blocks (alltoall, not alltoallv)");
  CHECK_THROWS_WITH(d::choose(*four, {operation::broadcast, 8, true}, algorithm::linear, s),
                    "gaea::coll: options::algo = linear for broadcast on group 'model' (4 "
                    "members): not an algorithm of this operation");
  CHECK_THROWS_WITH(d::choose(*four, {operation::alltoall, 8, false}, algorithm::shared_memory, s),
                    Catch::EndsWith("): alltoallv needs equal blocks"));
  CHECK_THROWS_WITH(
      d::choose(*two_nodes, {operation::barrier, 0, true}, algorithm::shared_memory, s),
      Catch::EndsWith("): the members are on 2 nodes, not one"));
  d::settings off;
  off.shm_bytes = 0;
  off.algo[static_cast<std::size_t>(operation::reduce)] = algorithm::shared_memory;
  CHECK_THROWS_WITH(d::choose(*four, {operation::reduce, 8, true}, algorithm::automatic, off),
                    "gaea::coll: GAEA_COLL_ALGO = shm for reduce on group 'model' (4 members): "
                    "GAEA_COLL_SHM_BYTES=0");
}

TEST_CASE("GAEA_COLL_ALGO's help names every operation and algorithm", "[coll][registry]") {
  std::string ops = "operations ", algos = "algorithms ";
  for (const auto& n : coll::operation_names)
    ops += std::string(n.name) + "|";
  for (const auto& n : coll::algorithm_names)
    if (n.value != algorithm::automatic) algos += std::string(n.name) + "|";
  ops.pop_back();
  algos.pop_back();
  const gaea::env::variable* v = nullptr;
  for (const auto& x : gaea::env::table())
    if (x.name == "GAEA_COLL_ALGO") v = &x;
  REQUIRE(v);
  // Both lists whole and in value order (the help text is written out in coll's settings.cpp).
  CHECK(v->help.find(ops) != std::string_view::npos);
  CHECK(v->help.find(algos) != std::string_view::npos);
}
