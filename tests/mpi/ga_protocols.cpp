// Strided protocols (zero-copy, packed, and the calibrated choice between them) and the
// two accumulate protocols, checked against a serial reference on shapes around the crossover.
#include <catch2/catch.hpp>

#include <random>

#include "gaea/ga/global_array.hpp"
#include "gaea/ga/protocol.hpp"
#include "test_support.hpp"

using namespace gaea;
using gaea::ga::index_t;
using gaea::ga::patch;
using gaea::test::rt;

namespace {

// Columns split into one block of `width` per rank, rows not split.
ga::layout_spec column_blocks(int ranks, index_t width) {
  std::vector<index_t> starts;
  for (int r = 0; r < ranks; ++r)
    starts.push_back(r * width);
  return ga::layout_spec::irregular({{0}, starts});
}

double value(index_t i, index_t j, int round) {
  return static_cast<double>(i * 1000 + j) + 0.25 * round;
}

// Each rank in turn puts random patches (tall-skinny, wide, single rows and columns) and every
// rank reads random patches back, comparing with a replicated reference.
void random_round_trips(ga::strided_protocol proto, std::uint64_t seed) {
  const ga::scoped_strided_protocol use(proto);
  const int me = rt().rank(), n = rt().size();
  const index_t rows = 96, cols = 70;
  global_array<double> a("protocols", {rows, cols});
  a.zero();
  std::vector<double> ref(static_cast<std::size_t>(rows * cols), 0.0);
  std::mt19937_64 rng(seed);
  auto pick = [&](index_t ext) {
    index_t lo = static_cast<index_t>(rng() % static_cast<std::uint64_t>(ext));
    index_t hi = static_cast<index_t>(rng() % static_cast<std::uint64_t>(ext));
    if (lo > hi) std::swap(lo, hi);
    return std::pair{lo, hi};
  };
  const ga::stats before = ga::current_stats();
  for (int round = 0; round < 12; ++round) {
    const int writer = round % n;
    auto [r0, r1] = pick(rows);
    auto [c0, c1] = pick(cols);
    if (round % 3 == 0) c1 = c0;  // a column: one element per row, the packed protocol's case
    const patch p{{r0, c0}, {r1, c1}};
    const index_t w = c1 - c0 + 1;
    std::vector<double> buf(static_cast<std::size_t>(p.elements()));
    for (index_t i = r0; i <= r1; ++i)
      for (index_t j = c0; j <= c1; ++j) {
        buf[static_cast<std::size_t>((i - r0) * w + (j - c0))] = value(i, j, round);
        ref[static_cast<std::size_t>(i * cols + j)] = value(i, j, round);
      }
    if (me == writer) a.put(p, buf);
    a.sync();
    // Every rank reads a random patch, into a buffer with a larger leading extent.
    auto [g0, g1] = pick(rows);
    auto [h0, h1] = pick(cols);
    const index_t gw = h1 - h0 + 1, ld = gw + 3;
    std::vector<double> got(static_cast<std::size_t>((g1 - g0 + 1) * ld), -1.0);
    const std::array<index_t, 1> lds{ld};
    a.get({{g0, h0}, {g1, h1}}, got, lds);
    std::int64_t bad = 0;
    for (index_t i = g0; i <= g1; ++i)
      for (index_t j = h0; j <= h1; ++j)
        if (got[static_cast<std::size_t>((i - g0) * ld + (j - h0))] !=
                ref[static_cast<std::size_t>(i * cols + j)] &&
            bad++ == 0)
          UNSCOPED_INFO(ga::to_string(proto)
                        << " round " << round << ": (" << i << ", " << j << ") wrong");
    CHECK(bad == 0);
    a.sync();
  }
  const ga::stats after = ga::current_stats();
  const auto packed = after.packed_transfers - before.packed_transfers;
  const auto zero_copy = after.zero_copy_transfers - before.zero_copy_transfers;
  if (n > 1 && proto == ga::strided_protocol::zero_copy) CHECK(packed == 0);
  if (n > 1 && proto == ga::strided_protocol::packed) CHECK(packed > 0);
  CHECK(packed + zero_copy > 0);
}

}  // namespace

TEST_CASE("ga: strided get/put give the same results under every protocol", "[ga][strided]") {
  for (auto proto : {ga::strided_protocol::zero_copy, ga::strided_protocol::packed,
                     ga::strided_protocol::automatic}) {
    SECTION(std::string(ga::to_string(proto))) {
      random_round_trips(proto, 42 + static_cast<int>(proto));
    }
  }
}

TEST_CASE("ga: the automatic choice follows the calibrated model at the crossover",
          "[ga][strided]") {
  const int me = rt().rank(), n = rt().size();
  if (n < 2) return;  // local pieces never go packed
  const int peer = (me + 1) % n;
  // Rows of 1..64 KiB chunks: the model's crossover lies somewhere in between on any transport.
  const index_t rows = 8, cols = n * 8192;
  global_array<double> a("crossover", {rows, cols}, column_blocks(n, 8192));
  const ga::strided_model m = a.cost_model(peer);
  REQUIRE(m.calibrated);
  CHECK(m.rma_first_s > 0);
  CHECK(m.message_s > 0);
  CHECK(m.copy_s_per_byte > 0);
  CHECK(m.rma_chunk_s >= 0);
  INFO("model to rank " << peer << ": rma " << m.rma_first_s * 1e6 << " us + "
                        << m.rma_chunk_s * 1e6 << " us/chunk, message " << m.message_s * 1e6
                        << " us, copy " << m.copy_s_per_byte * 1e9 << " ns/B, crossover "
                        << m.crossover_bytes() << " B");
  a.zero();
  const ga::scoped_strided_protocol use(ga::strided_protocol::automatic);
  for (index_t w : {1, 4, 16, 64, 256, 1024, 8192}) {
    // The peer's block, `rows` rows of `w` elements: rows chunks of w * 8 bytes.
    const index_t c0 = static_cast<index_t>(peer) * 8192;
    const patch p{{0, c0}, {rows - 1, c0 + w - 1}};
    std::vector<double> buf(static_cast<std::size_t>(p.elements()), 1.0);
    const bool expect_packed =
        m.prefer_packed(static_cast<std::size_t>(rows), static_cast<std::size_t>(rows * w) * 8);
    const ga::stats before = ga::current_stats();
    a.get(p, buf);
    const ga::stats after = ga::current_stats();
    INFO("chunk " << w * 8 << " B");
    CHECK((after.packed_transfers - before.packed_transfers == 1) == expect_packed);
    CHECK((after.zero_copy_transfers - before.zero_copy_transfers == 1) == !expect_packed);
    CHECK(buf[0] == 0.0);
  }
  CHECK_THROWS_AS(a.cost_model(n), error);
  a.sync();
}

TEST_CASE("ga: a packed put is seen by a later zero-copy get and the reverse (fences)",
          "[ga][strided][fence]") {
  const int me = rt().rank(), n = rt().size();
  const index_t rows = 40, cols = 8 * n;
  global_array<double> a("fence_mix", {rows, cols}, column_blocks(n, 8));
  a.zero();
  const int peer = (me + 1) % n;
  const index_t c = static_cast<index_t>(peer) * 8 + static_cast<index_t>(me % 8);
  // Rank me owns column c of its peer's block; no two ranks write the same column.
  const patch col{{0, c}, {rows - 1, c}};
  std::vector<double> v(static_cast<std::size_t>(rows)), back(v.size());
  for (int round = 0; round < 6; ++round) {
    for (index_t i = 0; i < rows; ++i)
      v[static_cast<std::size_t>(i)] = value(i, c, round);
    {
      const ga::scoped_strided_protocol put_as(round % 2 ? ga::strided_protocol::packed
                                                         : ga::strided_protocol::zero_copy);
      a.put(col, v);
    }
    const ga::scoped_strided_protocol get_as(round % 2 ? ga::strided_protocol::zero_copy
                                                       : ga::strided_protocol::packed);
    a.get(col, back);  // no fence in between: conflict tracking must order it
    CHECK(back == v);
  }
  a.sync();
}

TEST_CASE("ga: automatic, target- and source-driven accumulates give the same sums", "[ga][acc]") {
  const int n = rt().size();
  const index_t rows = 30, cols = 26;
  for (auto proto : {ga::acc_protocol::automatic, ga::acc_protocol::target_driven,
                     ga::acc_protocol::source_driven}) {
    const ga::scoped_acc_protocol use(proto);
    global_array<double> a("acc_protocols", {rows, cols});
    a.zero();
    // Every rank adds into the same overlapping patch many times: the sums are exact only if
    // each read-modify-write is atomic.
    const patch p{{3, 2}, {rows - 2, cols - 5}};
    std::vector<double> ones(static_cast<std::size_t>(p.elements()), 1.0);
    constexpr int reps = 20;
    for (int k = 0; k < reps; ++k)
      a.acc(p, ones, 0.5);
    a.sync();
    std::vector<double> whole(static_cast<std::size_t>(rows * cols));
    a.get({{0, 0}, {rows - 1, cols - 1}}, whole);
    std::int64_t bad = 0;
    for (index_t i = 0; i < rows; ++i)
      for (index_t j = 0; j < cols; ++j) {
        const bool inside = i >= 3 && i <= rows - 2 && j >= 2 && j <= cols - 5;
        const double want = inside ? 0.5 * reps * n : 0.0;
        if (whole[static_cast<std::size_t>(i * cols + j)] != want && bad++ == 0)
          UNSCOPED_INFO(ga::to_string(proto)
                        << ": (" << i << ", " << j << ") = "
                        << whole[static_cast<std::size_t>(i * cols + j)] << ", want " << want);
      }
    CHECK(bad == 0);
    a.sync();
  }
}
