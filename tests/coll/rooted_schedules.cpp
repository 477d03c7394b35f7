// The gather and scatter builders (the registry's entries) for group sizes the MPI tests do not
// reach (up to 17), every root, unequal and empty parts: every member's schedule is run in one
// process by a small serial executor (a round's sends are posted when it starts, it ends once its
// receives have arrived), and the result is compared with the serial reference.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "detail/registry.hpp"
#include "detail/shape.hpp"
#include "gaea/coll/estimator.hpp"

namespace d = gaea::coll::detail;
using gaea::coll::algorithm;
using gaea::coll::operation;

namespace {

using message = std::vector<std::byte>;

// Runs every member's schedule to the end; false when some member can never finish (a receive
// no send matches). Sizes of matched messages must agree.
bool run_all(std::vector<d::schedule>& s) {
  const std::size_t n = s.size();
  std::map<std::tuple<std::size_t, int, std::uint32_t>, message> box;  // (from, to, tag)
  std::vector<std::size_t> next(n, 0);
  std::vector<char> started(n, 0);
  for (bool moved = true; moved;) {
    moved = false;
    for (std::size_t m = 0; m < n; ++m) {
      while (next[m] < s[m].rounds.size()) {
        d::round& r = s[m].rounds[next[m]];
        if (!started[m]) {
          for (const d::transfer& t : r.sends) {
            const auto* p = t.buf;
            auto [it, fresh] = box.try_emplace({m, t.peer, t.tag}, message(p, p + t.bytes));
            REQUIRE(fresh);  // one message per (from, to, tag)
          }
          started[m] = 1;
        }
        bool ready = true;
        for (const d::transfer& t : r.recvs)
          ready =
              ready && box.contains({static_cast<std::size_t>(t.peer), static_cast<int>(m), t.tag});
        if (!ready) break;
        for (const d::transfer& t : r.recvs) {
          auto it = box.find({static_cast<std::size_t>(t.peer), static_cast<int>(m), t.tag});
          REQUIRE(it->second.size() == t.bytes);
          if (t.bytes) std::memcpy(t.buf, it->second.data(), t.bytes);
          box.erase(it);
        }
        for (auto& fn : r.after)
          fn();
        started[m] = 0;
        ++next[m];
        moved = true;
      }
    }
  }
  for (std::size_t m = 0; m < n; ++m)
    if (next[m] < s[m].rounds.size()) return false;
  return box.empty();
}

}  // namespace

TEST_CASE("gather and scatter schedules deliver every part for group sizes up to 17",
          "[coll][gather]") {
  for (int n = 1; n <= 17; ++n) {
    const auto un = static_cast<std::size_t>(n);
    const auto g = d::synthetic_group(n, 1, true);
    for (int pattern = 0; pattern < 3; ++pattern) {
      // Bytes per member: equal, unequal with empty parts, all empty.
      std::vector<std::size_t> sizes(un), offsets(un);
      for (std::size_t m = 0; m < un; ++m)
        sizes[m] = pattern == 0 ? 24 : pattern == 1 ? (m * 7 + 3) % 5 * 8 : 0;
      std::size_t total = 0;
      for (std::size_t m = 0; m < un; ++m) {
        offsets[m] = total;
        total += sizes[m];
      }
      for (operation op : {operation::gather, operation::scatter}) {
        for (algorithm a : {algorithm::binomial, algorithm::linear}) {
          for (int root = 0; root < n; ++root) {
            INFO(gaea::coll::to_string(op) << " " << gaea::coll::to_string(a) << " n " << n
                                           << " root " << root << " pattern " << pattern);
            // Byte b of member m's part is (m * 31 + b) mod 251 everywhere.
            auto byte_of = [](std::size_t m, std::size_t b) {
              return static_cast<std::byte>((m * 31 + b) % 251);
            };
            std::vector<std::vector<std::byte>> mine(un);
            std::vector<std::byte> all(total, std::byte{0xEE});
            for (std::size_t m = 0; m < un; ++m) {
              mine[m].assign(sizes[m], std::byte{0xEE});
              for (std::size_t b = 0; b < sizes[m]; ++b) {
                if (op == operation::gather) mine[m][b] = byte_of(m, b);
                if (op == operation::scatter) all[offsets[m] + b] = byte_of(m, b);
              }
            }
            const bool gather = op == operation::gather;
            const d::entry* e = d::find_entry(op, a);
            REQUIRE(e);
            std::vector<d::schedule> s(un);
            for (int m = 0; m < n; ++m) {
              const auto um = static_cast<std::size_t>(m);
              std::byte* root_buf = m == root ? all.data() : nullptr;
              e->build(s[um], {.g = g.get(),
                               .me = m,
                               .root = root,
                               .from = gather ? mine[um].data() : root_buf,
                               .to = gather ? root_buf : mine[um].data(),
                               .offsets = offsets,
                               .sizes = sizes});
            }
            REQUIRE(run_all(s));
            std::size_t bad = 0;
            for (std::size_t m = 0; m < un; ++m)
              for (std::size_t b = 0; b < sizes[m]; ++b)
                bad += (gather ? all[offsets[m] + b] : mine[m][b]) != byte_of(m, b);
            REQUIRE(bad == 0);
            // The root talks to ceil(log2 n) children in the tree, to everyone in the linear form.
            int depth = 0;
            while ((1 << depth) < n)
              ++depth;
            std::size_t root_peers = 0;
            for (const auto& r : s[static_cast<std::size_t>(root)].rounds)
              root_peers += r.sends.size() + r.recvs.size();
            CHECK(root_peers ==
                  (a == algorithm::binomial ? static_cast<std::size_t>(depth) : un - 1));
          }
        }
      }
    }
  }
}

TEST_CASE("the estimator predicts both gather and scatter algorithms on any placement",
          "[coll][gather]") {
  const gaea::coll::estimator e;
  for (operation op : {operation::gather, operation::scatter})
    for (int size : {2, 5, 24})
      for (bool block : {true, false}) {
        const auto p = e.predict(op, 4096, size, 3, block);
        REQUIRE(p.size() == 2);
        CHECK(p[0].algo == algorithm::binomial);
        CHECK(p[1].algo == algorithm::linear);
        for (const auto& x : p) {
          CHECK(std::isfinite(x.seconds));
          CHECK(x.seconds > 0);
        }
        CHECK(e.choose(op, 4096, size, 3, block) != algorithm::automatic);
      }
}
