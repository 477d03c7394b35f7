// gaea-coll-bench: OSU-style latency of gaea::coll's collectives (barrier, broadcast, reduce,
// allreduce, allgather, alltoall), every algorithm beside Open MPI's MPI_Barrier / MPI_Bcast /
// MPI_Reduce / MPI_Allreduce / MPI_Allgather / MPI_Alltoall, in the same process and on the same
// buffers.
//
// For every message size (--min .. --max, x --factor; --max is always the last size), each
// variant (a Gaea algorithm, Gaea's automatic choice, or MPI) first runs its warm-up calls, and
// then the repetitions are interleaved: repetition r runs every variant once, starting from
// variant r mod V so that no variant always comes first. One run of a variant is:
//   barrier; for i in 1..iters: { t0; call; t1; barrier }; one more call, checked
// with coll::barrier(world) around Gaea calls and MPI_Barrier around MPI calls, and only the call
// itself timed. A rank's figure is the mean of its calls; the table shows the average over the
// ranks (as OSU reports), and the JSON also keeps the minimum and maximum. Medians over the
// repetitions are reported.
//
// Sizes: alltoall, the block each rank sends to each other rank (the buffers hold ranks x size
// bytes), as OSU counts them; allgather, each member's part; broadcast, the buffer (root 0);
// reduce (root 0) and allreduce, the buffer of doubles summed (count = size / 8, so at least
// 8 B); barrier has the one size 0. Iterations: --iters up to 8 KiB, then scaled down as
// iters x 8 KiB / size (at least --min-iters); warm-up calls likewise.
// After the timed calls, one more call is checked on every rank against what it must deliver
// (its output overwritten just before it, the data changing from run to run; a barrier must not
// let a rank out before every rank went in); a mismatch is reported and the program exits 1.
//
// Gaea's collectives wait by the progress mode; MPI's wait does not serve Gaea peers, so run
// with a progress thread (GAEA_PROGRESS=auto, the default) — the program warns otherwise.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench_common.hpp"
#include "cli.hpp"
#include "gaea/base/version.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"

namespace {

namespace coll = gaea::coll;
using coll::algorithm;
using coll::operation;
using gaea_bench::size_label;
using gaea_bench::split_list;
using gaea_bench::write_json;

constexpr std::size_t large_message = 8 * 1024;  // above this, iterations are scaled down

/// One column of the table: a Gaea algorithm (or its automatic choice), or MPI.
struct variant {
  std::string name;
  bool mpi = false;
  algorithm algo = algorithm::automatic;
};

/// What a run of one variant at one size gave, already reduced over the ranks.
struct run_result {
  double avg_us = 0, min_us = 0, max_us = 0;  // per-call latency: average, min, max over ranks
  std::int64_t bad_bytes = 0;                 // verification mismatches, summed over ranks
};

/// The algorithms of `op` that can run on the world group here, in the header's order.
std::vector<algorithm> algorithms_of(operation op) {
  std::vector<algorithm> out;
  for (const auto& entry : coll::algorithm_names)
    if (entry.value != algorithm::automatic &&
        coll::cannot_run(coll::world(), entry.value, op).empty())
      out.push_back(entry.value);
  return out;
}

/// Parses --algos: "all" (every algorithm of the operation that runs here, auto and mpi), or a
/// list of algorithm names, "auto" (the estimator's choice) and "mpi".
std::vector<variant> parse_variants(const std::string& text, operation op) {
  std::vector<variant> out;
  auto add = [&](variant v) {
    for (const variant& w : out)
      if (w.name == v.name) return;
    out.push_back(std::move(v));
  };
  for (const std::string& item : split_list(text)) {
    if (item == "all") {
      for (algorithm a : algorithms_of(op))
        add({std::string(coll::to_string(a)), false, a});
      add({"auto", false, algorithm::automatic});
      add({"mpi", true, algorithm::automatic});
    } else if (item == "mpi") {
      add({"mpi", true, algorithm::automatic});
    } else if (item == "auto") {
      add({"auto", false, algorithm::automatic});
    } else {
      const auto a = coll::parse_algorithm(item);
      if (!a || *a == algorithm::automatic)
        throw std::invalid_argument("'" + item + "' is not an algorithm (nor auto, mpi, all)");
      if (const std::string why = coll::cannot_run(coll::world(), *a, op); !why.empty())
        throw std::invalid_argument("'" + item + "' cannot run " +
                                    std::string(coll::to_string(op)) + " here: " + why);
      add({item, false, *a});
    }
  }
  if (out.empty()) throw std::invalid_argument("--algos names no variant");
  return out;
}

/// The byte at offset k of the block that member `src` sends to member `dst` in run `salt`.
std::byte pattern(int src, int dst, unsigned salt, std::size_t k) {
  const auto v = static_cast<unsigned>(src) * 131u + static_cast<unsigned>(dst) * 29u + salt * 7u +
                 static_cast<unsigned>(k) * 13u + static_cast<unsigned>(k >> 8);
  return static_cast<std::byte>(v & 0xffu);
}

void fill(std::span<std::byte> block, int src, int dst, unsigned salt) {
  for (std::size_t k = 0; k < block.size(); ++k)
    block[k] = pattern(src, dst, salt, k);
}

std::int64_t mismatches(std::span<const std::byte> block, int src, int dst, unsigned salt) {
  std::int64_t bad = 0;
  for (std::size_t k = 0; k < block.size(); ++k)
    bad += block[k] != pattern(src, dst, salt, k);
  return bad;
}

/// Block i of `bytes` bytes of a buffer of blocks.
std::span<std::byte> block(std::vector<std::byte>& buf, int i, std::size_t bytes) {
  return std::span<std::byte>(buf).subspan(static_cast<std::size_t>(i) * bytes, bytes);
}

/// Element k of member `src`'s input to a sum in run `salt`: small non-negative integers, so
/// every summation order gives the exact same double.
double term(int src, unsigned salt, std::size_t k) {
  return static_cast<double>((static_cast<unsigned>(src) * 131u + salt * 7u +
                              static_cast<unsigned>(k) * 13u + static_cast<unsigned>(k >> 8)) %
                             1021u);
}

void fill_terms(std::span<double> v, int src, unsigned salt) {
  for (std::size_t k = 0; k < v.size(); ++k)
    v[k] = term(src, salt, k);
}

/// Wrong bytes of `v` against `want(k)` (8 per wrong double).
template <class Want>
std::int64_t wrong_doubles(std::span<const double> v, Want want) {
  std::int64_t bad = 0;
  for (std::size_t k = 0; k < v.size(); ++k)
    bad += v[k] != want(k) ? 8 : 0;
  return bad;
}

int mpi_count(std::size_t n) {
  return static_cast<int>(n);  // sizes are checked against INT_MAX in main
}

// The operations. Each holds its buffers and provides
//   prepare(bytes, salt)   the data of a run (before its warm-up and timed calls);
//   scramble(bytes, salt)  just before the checked call: overwrite what it must deliver;
//   call(mpi, opts, bytes) one call, MPI's or Gaea's;
//   check(bytes, salt)     after the checked call, on every rank: wrong bytes (barrier: ranks
//                          that went in after this rank came out).

class barrier_op {
 public:
  static constexpr const char* size_meaning = "none (one size, 0)";
  barrier_op(int me, int np, std::size_t) : me_(me), np_(np) {}
  void prepare(std::size_t, unsigned) {}
  /// One rank in turn comes late, so that a barrier letting ranks out early is seen.
  void scramble(std::size_t, unsigned salt) {
    if (me_ == static_cast<int>(salt % static_cast<unsigned>(np_)))
      std::this_thread::sleep_for(late_);
    entry_ns_ = now_ns();
  }
  void call(bool mpi, const coll::options& o, std::size_t) {
    if (mpi)
      MPI_Barrier(MPI_COMM_WORLD);
    else
      coll::barrier(coll::world(), o);
  }
  std::int64_t check(std::size_t, unsigned) {
    const std::int64_t exit_ns = now_ns();
    std::vector<std::int64_t> entries(static_cast<std::size_t>(np_));
    MPI_Allgather(&entry_ns_, 1, MPI_INT64_T, entries.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
    std::int64_t bad = 0;
    for (std::int64_t e : entries)
      bad += e > exit_ns + skew_.count();
    return bad;
  }

 private:
  // The system clock, shared by the ranks of a machine (emulated hosts too); across machines
  // their clocks must agree within skew_ (NTP), well below the late rank's delay.
  static std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  static constexpr std::chrono::milliseconds late_{20};
  static constexpr std::chrono::nanoseconds skew_{std::chrono::milliseconds(5)};
  int me_, np_;
  std::int64_t entry_ns_ = 0;
};

class broadcast_op {
 public:
  static constexpr const char* size_meaning = "bytes, root 0";
  broadcast_op(int me, int, std::size_t max) : me_(me), buf_(max) {}
  void prepare(std::size_t bytes, unsigned salt) {
    if (me_ == 0) fill(block(buf_, 0, bytes), 0, 0, salt);
  }
  void scramble(std::size_t bytes, unsigned) {
    if (me_ != 0) std::fill_n(buf_.begin(), bytes, std::byte{0xee});
  }
  void call(bool mpi, const coll::options& o, std::size_t bytes) {
    if (mpi)
      MPI_Bcast(buf_.data(), mpi_count(bytes), MPI_BYTE, 0, MPI_COMM_WORLD);
    else
      coll::broadcast(coll::world(), block(buf_, 0, bytes), 0, o);
  }
  std::int64_t check(std::size_t bytes, unsigned salt) {
    return mismatches(block(buf_, 0, bytes), 0, 0, salt);
  }

 private:
  int me_;
  std::vector<std::byte> buf_;
};

/// reduce (root 0) or allreduce: sum of doubles, count = bytes / 8.
template <bool all>
class sum_op {
 public:
  static constexpr const char* size_meaning =
      all ? "bytes of doubles summed (count = size / 8)" : "bytes of doubles summed to root 0";
  sum_op(int me, int np, std::size_t max)
      : me_(me), np_(np), in_(max / 8), out_(all ? 0 : max / 8) {}
  // allreduce works in place: the timed calls sum sums (values grow, harmlessly), and the
  // checked call starts from the run's data again.
  void prepare(std::size_t bytes, unsigned salt) { fill_terms(in(bytes), me_, salt); }
  void scramble(std::size_t bytes, unsigned salt) {
    if constexpr (all)
      fill_terms(in(bytes), me_, salt);
    else
      std::fill_n(out_.begin(), bytes / 8, -1.0);
  }
  void call(bool mpi, const coll::options& o, std::size_t bytes) {
    const std::span<double> v = in(bytes);
    if constexpr (all) {
      if (mpi)
        MPI_Allreduce(MPI_IN_PLACE, v.data(), mpi_count(v.size()), MPI_DOUBLE, MPI_SUM,
                      MPI_COMM_WORLD);
      else
        coll::allreduce(coll::world(), v, coll::reduce_op::sum, o);
    } else {
      if (mpi)
        MPI_Reduce(v.data(), out_.data(), mpi_count(v.size()), MPI_DOUBLE, MPI_SUM, 0,
                   MPI_COMM_WORLD);
      else
        coll::reduce(coll::world(), std::span<const double>(v),
                     std::span<double>(out_).first(v.size()), coll::reduce_op::sum, 0, o);
    }
  }
  /// The sum where it must be; reduce's input left alone on every rank.
  std::int64_t check(std::size_t bytes, unsigned salt) {
    auto sum = [&](std::size_t k) {
      double s = 0;
      for (int r = 0; r < np_; ++r)
        s += term(r, salt, k);
      return s;
    };
    if constexpr (all) {
      return wrong_doubles(in(bytes), sum);
    } else {
      std::int64_t bad =
          wrong_doubles(in(bytes), [&](std::size_t k) { return term(me_, salt, k); });
      if (me_ == 0) bad += wrong_doubles(std::span<const double>(out_).first(bytes / 8), sum);
      return bad;
    }
  }

 private:
  std::span<double> in(std::size_t bytes) { return std::span<double>(in_).first(bytes / 8); }
  int me_, np_;
  std::vector<double> in_, out_;
};

class allgather_op {
 public:
  static constexpr const char* size_meaning = "bytes per member";
  allgather_op(int me, int np, std::size_t max)
      : me_(me), np_(np), mine_(max), all_(max * static_cast<std::size_t>(np)) {}
  void prepare(std::size_t bytes, unsigned salt) { fill(block(mine_, 0, bytes), me_, 0, salt); }
  void scramble(std::size_t bytes, unsigned) {
    std::fill_n(all_.begin(), bytes * static_cast<std::size_t>(np_), std::byte{0xee});
  }
  void call(bool mpi, const coll::options& o, std::size_t bytes) {
    if (mpi)
      MPI_Allgather(mine_.data(), mpi_count(bytes), MPI_BYTE, all_.data(), mpi_count(bytes),
                    MPI_BYTE, MPI_COMM_WORLD);
    else
      coll::allgather(coll::world(), std::span<const std::byte>(block(mine_, 0, bytes)),
                      std::span<std::byte>(all_).first(bytes * static_cast<std::size_t>(np_)), o);
  }
  std::int64_t check(std::size_t bytes, unsigned salt) {
    std::int64_t bad = 0;
    for (int i = 0; i < np_; ++i)
      bad += mismatches(block(all_, i, bytes), i, 0, salt);
    return bad;
  }

 private:
  int me_, np_;
  std::vector<std::byte> mine_, all_;
};

class alltoall_op {
 public:
  static constexpr const char* size_meaning = "bytes per destination";
  alltoall_op(int me, int np, std::size_t max)
      : me_(me), np_(np), send_(max * static_cast<std::size_t>(np)), recv_(send_.size()) {}
  void prepare(std::size_t bytes, unsigned salt) {
    for (int j = 0; j < np_; ++j)
      fill(block(send_, j, bytes), me_, j, salt);  // block j goes to member j
  }
  void scramble(std::size_t bytes, unsigned) {
    std::fill_n(recv_.begin(), bytes * static_cast<std::size_t>(np_), std::byte{0xee});
  }
  void call(bool mpi, const coll::options& o, std::size_t bytes) {
    const std::size_t n = bytes * static_cast<std::size_t>(np_);
    if (mpi)
      MPI_Alltoall(send_.data(), mpi_count(bytes), MPI_BYTE, recv_.data(), mpi_count(bytes),
                   MPI_BYTE, MPI_COMM_WORLD);
    else
      coll::alltoall(coll::world(), std::span<const std::byte>(send_).first(n),
                     std::span<std::byte>(recv_).first(n), o);
  }
  std::int64_t check(std::size_t bytes, unsigned salt) {
    std::int64_t bad = 0;
    for (int i = 0; i < np_; ++i)
      bad += mismatches(block(recv_, i, bytes), i, me_, salt);
    return bad;
  }

 private:
  int me_, np_;
  std::vector<std::byte> send_, recv_;
};

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

/// Timed runs of one operation, whatever it is.
class runner {
 public:
  virtual ~runner() = default;
  /// `warmup` untimed calls, the timed run of `iters` calls, and the checked call; reduced over
  /// the ranks. Throws what a Gaea collective throws (on every member, by coll's contract).
  virtual run_result run(const variant& v, std::size_t bytes, int warmup, int iters,
                         unsigned salt) = 0;
  virtual const char* size_meaning() const = 0;
};

template <class Op>
class bench final : public runner {
 public:
  bench(int me, int np, std::size_t max_bytes, coll::options gaea_opts)
      : op_(me, np, max_bytes), opts_(gaea_opts), np_(np) {}

  run_result run(const variant& v, std::size_t bytes, int warmup, int iters,
                 unsigned salt) override {
    coll::options o = opts_;
    o.algo = v.algo;
    op_.prepare(bytes, salt);
    for (int i = 0; i < warmup; ++i) {
      op_.call(v.mpi, o, bytes);
      barrier(v);
    }
    barrier(v);
    double total_s = 0;
    for (int i = 0; i < iters; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      op_.call(v.mpi, o, bytes);
      const auto t1 = std::chrono::steady_clock::now();
      total_s += std::chrono::duration<double>(t1 - t0).count();
      barrier(v);
    }
    op_.scramble(bytes, salt);
    op_.call(v.mpi, o, bytes);
    const std::int64_t bad = op_.check(bytes, salt);
    const double mine_us = total_s / iters * 1e6;
    run_result r;
    MPI_Allreduce(&mine_us, &r.avg_us, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&mine_us, &r.min_us, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine_us, &r.max_us, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&bad, &r.bad_bytes, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    r.avg_us /= np_;
    return r;
  }
  const char* size_meaning() const override { return Op::size_meaning; }

 private:
  void barrier(const variant& v) {
    if (v.mpi)
      MPI_Barrier(MPI_COMM_WORLD);
    else
      coll::barrier(coll::world(), opts_);
  }

  Op op_;
  coll::options opts_;
  int np_;
};

std::unique_ptr<runner> make_runner(operation op, int me, int np, std::size_t max_bytes,
                                    const coll::options& o) {
  switch (op) {
    case operation::barrier:
      return std::make_unique<bench<barrier_op>>(me, np, max_bytes, o);
    case operation::broadcast:
      return std::make_unique<bench<broadcast_op>>(me, np, max_bytes, o);
    case operation::reduce:
      return std::make_unique<bench<sum_op<false>>>(me, np, max_bytes, o);
    case operation::allreduce:
      return std::make_unique<bench<sum_op<true>>>(me, np, max_bytes, o);
    case operation::allgather:
      return std::make_unique<bench<allgather_op>>(me, np, max_bytes, o);
    case operation::alltoall:
      return std::make_unique<bench<alltoall_op>>(me, np, max_bytes, o);
    default:
      throw gaea::error("gaea-coll-bench: no benchmark of " + std::string(coll::to_string(op)));
  }
}

/// Host names of all ranks (rank 0 gets them; others an empty vector).
std::vector<std::string> gather_hosts() {
  std::array<char, 64> mine{};
  gethostname(mine.data(), mine.size() - 1);
  std::vector<std::string> out;
  for (const auto& h : coll::gather(coll::world(), mine, 0))
    out.emplace_back(h.data());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gaea-coll-bench: OSU-style latency of gaea::coll's collectives beside MPI"};
  apps::conventions(app, "gaea-coll-bench");
  std::string op_text = "alltoall", algos_text = "all", energy_text = "off", json_path;
  std::uint64_t min_bytes = 8, max_bytes = 4u << 20, factor = 2, chunk = 0;
  int iters = 100, warmup = 10, min_iters = 4, reps = 5;
  app.add_option("--op", op_text, "barrier, broadcast, reduce, allreduce, allgather or alltoall")
      ->check(
          CLI::IsMember({"barrier", "broadcast", "reduce", "allreduce", "allgather", "alltoall"}))
      ->capture_default_str();
  app.add_option("--min", min_bytes,
                 "smallest message (alltoall: bytes per destination; reductions: at least 8)")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  app.add_option("--max", max_bytes, "largest message (always measured)")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  app.add_option("--factor", factor, "size step (multiplier)")
      ->check(CLI::Range(2, 1 << 20))
      ->capture_default_str();
  app.add_option("--iters", iters, "timed calls per run up to 8 KiB (scaled down above)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--warmup", warmup, "untimed calls per size and variant up to 8 KiB (scaled)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--min-iters", min_iters, "fewest timed calls per run at large sizes")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--reps", reps, "interleaved repetitions per size; medians are reported")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--algos", algos_text,
                 "variants: all, or a list of algorithms of --op, auto (Gaea's choice), mpi")
      ->capture_default_str();
  app.add_option("--chunk", chunk, "pipeline chunk of chain (0: GAEA_COLL_CHUNK)")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  app.add_option("--energy", energy_text,
                 "coll::options::energy of the Gaea calls (off keeps frequency changes out of "
                 "the latency)")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  app.add_option("--json", json_path, "write the results as JSON to this file (rank 0)");
  app.callback([&] {
    if (min_bytes < 1 || min_bytes > max_bytes) throw gaea::error("need 1 <= --min <= --max");
    if (max_bytes > static_cast<std::uint64_t>(INT_MAX))
      throw gaea::error("--max must fit an MPI count (int)");
    if ((op_text == "reduce" || op_text == "allreduce") && max_bytes < 8)
      throw gaea::error("--op " + op_text + " sums doubles: --max must be 8 or more");
  });
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;

  // An error on any rank ends the job with its message on every rank.
  return gaea::run_main("gaea-coll-bench", &argc, &argv, [&](gaea::runtime& rt) {
    const int me = rt.rank(), np = rt.size();

    const operation op = *coll::parse_operation(op_text);
    std::vector<variant> variants;
    try {
      variants = parse_variants(algos_text, op);
      int mpi_rank = -1;
      MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
      if (mpi_rank != me) throw std::runtime_error("Gaea rank differs from MPI_COMM_WORLD rank");
    } catch (const std::exception& e) {
      if (me == 0) std::fprintf(stderr, "gaea-coll-bench: %s\n", e.what());
      return 2;
    }
    std::vector<std::size_t> sizes;
    if (op == operation::barrier) {
      sizes = {0};
    } else {
      const bool sums = op == operation::reduce || op == operation::allreduce;
      for (std::uint64_t s = sums ? std::max<std::uint64_t>(min_bytes, 8) : min_bytes;
           s <= max_bytes; s *= factor)
        sizes.push_back(static_cast<std::size_t>(s));
      if (sizes.back() != max_bytes) sizes.push_back(static_cast<std::size_t>(max_bytes));
    }

    coll::options gaea_opts;
    gaea_opts.chunk_bytes = static_cast<std::size_t>(chunk);
    gaea_opts.energy = energy_text == "on"    ? coll::energy_mode::on
                       : energy_text == "off" ? coll::energy_mode::off
                                              : coll::energy_mode::automatic;
    const std::unique_ptr<runner> b = make_runner(op, me, np, sizes.back(), gaea_opts);

    // The run's description.
    const std::vector<std::string> hosts = gather_hosts();
    int node_size_min = rt.node_size(), node_size_max = rt.node_size();
    MPI_Allreduce(MPI_IN_PLACE, &node_size_min, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &node_size_max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    const std::string progress_mode(gaea::progress::to_string(rt.progress().current_mode()));
    nlohmann::json out;
    std::vector<std::string> names;
    for (const variant& v : variants)
      names.push_back(v.name);
    if (me == 0) {
      std::vector<std::string> distinct;
      for (const std::string& h : hosts)
        if (std::find(distinct.begin(), distinct.end(), h) == distinct.end()) distinct.push_back(h);
      out["bench"] = "coll";
      out["op"] = op_text;
      out["gaea_version"] = gaea::version_string;
      out["mpi_library"] = gaea_bench::mpi_library();
      out["ranks"] = np;
      out["nodes"] = rt.nodes();
      out["ranks_per_node"] =
          node_size_min == node_size_max
              ? nlohmann::json(node_size_min)
              : nlohmann::json({{"min", node_size_min}, {"max", node_size_max}});
      out["hosts"] = distinct;
      out["rank_hosts"] = hosts;
      out["host"] = hosts.front();
      out["ucx_tls"] = env_or("UCX_TLS", "default");
      out["gaea_progress"] = progress_mode;
      out["gaea_coll_algo_env"] = env_or("GAEA_COLL_ALGO", "");
      out["date"] = utc_now();
      out["load_start"] = gaea_bench::load_average();
      out["parameters"] = {{"sizes", sizes},
                           {"size_meaning", b->size_meaning()},
                           {"root", 0},
                           {"iters", iters},
                           {"warmup", warmup},
                           {"min_iters", min_iters},
                           {"large_message", large_message},
                           {"reps", reps},
                           {"variants", names},
                           {"chunk_bytes", chunk},
                           {"energy", energy_text},
                           {"latency",
                            "per call, each call timed alone between barriers; "
                            "mean over calls, average over ranks, median over reps"}};
      out["rows"] = nlohmann::json::array();
      out["complete"] = false;

      std::printf("# gaea-coll-bench %s: %d ranks on %d node(s) (%d-%d per node), hosts %s\n",
                  op_text.c_str(), np, rt.nodes(), node_size_min, node_size_max,
                  nlohmann::json(distinct).dump().c_str());
      std::printf("# UCX_TLS=%s, progress %s, %s, load %s\n", env_or("UCX_TLS", "default").c_str(),
                  progress_mode.c_str(), out["mpi_library"].get<std::string>().c_str(),
                  out["load_start"].get<std::string>().c_str());
      std::printf(
          "# per-call latency [us], each call timed alone between barriers, average over ranks, "
          "median of %d interleaved reps; %s\n",
          reps, (std::string("size = ") + b->size_meaning()).c_str());
      std::printf("%10s %6s", "size", "iters");
      for (const variant& v : variants)
        std::printf(" %11s", v.name.c_str());
      std::printf(" %18s %9s\n", "best gaea", "gaea/mpi");
      std::fflush(stdout);
    }
    if (rt.progress().current_mode() == gaea::progress::mode::off && me == 0)
      std::fprintf(stderr,
                   "gaea-coll-bench: warning: GAEA_PROGRESS=off: inside MPI calls nothing serves "
                   "Gaea peers\n");

    std::vector<bool> disabled(variants.size(), false);
    std::vector<std::string> failure(variants.size());
    std::int64_t total_bad = 0;
    int status = 0;
    const std::size_t nv = variants.size();
    for (std::size_t size : sizes) {
      const double scale = size <= large_message ? 1.0 : static_cast<double>(large_message) / size;
      const int n_iters = std::max(min_iters, static_cast<int>(iters * scale));
      const int n_warm = warmup == 0 ? 0 : std::max(1, static_cast<int>(warmup * scale));
      std::vector<std::vector<run_result>> runs(nv);
      std::vector<std::int64_t> bad(nv, 0);
      // A run that throws (on every member, by coll's contract) disables its variant.
      auto attempt = [&](std::size_t k, int warm, int timed, unsigned salt) {
        if (disabled[k]) return;
        std::string why;
        run_result r;
        try {
          r = b->run(variants[k], size, warm, timed, salt);
        } catch (const std::exception& e) {
          why = e.what();
        }
        int failed = why.empty() ? 0 : 1;
        MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (failed) {
          disabled[k] = true;
          failure[k] =
              "size " + std::to_string(size) + ": " + (why.empty() ? "on another rank" : why);
          if (!why.empty())
            std::fprintf(stderr, "gaea-coll-bench: rank %d: %s at %zu B failed: %s\n", me,
                         variants[k].name.c_str(), size, why.c_str());
          status = 1;
          return;
        }
        bad[k] += r.bad_bytes;
        if (timed > 0) runs[k].push_back(r);
      };
      for (std::size_t k = 0; k < nv; ++k)  // warm-up, each variant in turn
        attempt(k, n_warm, 1, 0x5a5au + static_cast<unsigned>(k));
      for (std::size_t k = 0; k < nv; ++k)
        runs[k].clear();
      for (int rep = 0; rep < reps; ++rep)
        for (std::size_t i = 0; i < nv; ++i) {
          const std::size_t k = (i + static_cast<std::size_t>(rep)) % nv;
          attempt(k, 0, n_iters,
                  static_cast<unsigned>(rep * static_cast<int>(nv) + static_cast<int>(k)));
        }

      if (me != 0) continue;
      nlohmann::json row = {{"bytes", size}, {"iters", n_iters}, {"warmup", n_warm}};
      std::vector<double> med(nv, -1);
      for (std::size_t k = 0; k < nv; ++k) {
        nlohmann::json v = {{"bad_bytes", bad[k]}};
        if (bad[k] > 0) {
          std::fprintf(stderr, "gaea-coll-bench: %s at %zu B: %lld %s\n", variants[k].name.c_str(),
                       size, static_cast<long long>(bad[k]),
                       op == operation::barrier ? "times a rank came out before another went in"
                                                : "wrong bytes delivered");
          total_bad += bad[k];
        }
        if (!runs[k].empty()) {
          std::vector<double> avg, mx, mn;
          for (const run_result& r : runs[k]) {
            avg.push_back(r.avg_us);
            mx.push_back(r.max_us);
            mn.push_back(r.min_us);
          }
          med[k] = gaea_bench::median(avg);
          v["avg_us"] = med[k];
          v["max_us"] = gaea_bench::median(mx);
          v["min_us"] = gaea_bench::median(mn);
          v["reps_avg_us"] = avg;
        } else {
          v["failed"] = failure[k];
        }
        row["variants"][variants[k].name] = v;
      }
      std::printf("%10s %6d", size_label(size).c_str(), n_iters);
      for (std::size_t k = 0; k < nv; ++k)
        if (med[k] >= 0)
          std::printf(" %11.2f", med[k]);
        else
          std::printf(" %11s", "failed");
      // The fastest explicit Gaea algorithm (auto is Gaea's choice among them) against MPI.
      std::optional<std::size_t> best, mpi_k;
      for (std::size_t k = 0; k < nv; ++k) {
        if (med[k] < 0) continue;
        if (variants[k].mpi)
          mpi_k = k;
        else if (variants[k].algo != algorithm::automatic && (!best || med[k] < med[*best]))
          best = k;
      }
      std::printf(" %18s", best ? variants[*best].name.c_str() : "-");
      if (best && mpi_k && med[*mpi_k] > 0) {
        const double ratio = med[*best] / med[*mpi_k];
        std::printf(" %8.2fx", ratio);
        row["best_gaea"] = variants[*best].name;
        row["best_gaea_over_mpi"] = ratio;
      } else {
        std::printf(" %9s", "-");
      }
      std::printf("\n");
      std::fflush(stdout);
      out["rows"].push_back(row);
      if (!json_path.empty() && !write_json(json_path, out)) status = 1;
    }

    MPI_Bcast(&total_bad, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (total_bad > 0) status = 1;
    if (me == 0) {
      out["load_end"] = gaea_bench::load_average();
      out["date_end"] = utc_now();
      out["wrong_bytes"] = total_bad;
      nlohmann::json failures = nlohmann::json::object();
      for (std::size_t k = 0; k < nv; ++k)
        if (!failure[k].empty()) failures[variants[k].name] = failure[k];
      out["failures"] = failures;
      out["complete"] = true;
      if (!json_path.empty() && !write_json(json_path, out)) status = 1;
      if (total_bad > 0 || !failures.empty())
        std::printf("# FAILED: %lld wrong bytes, failures %s\n", static_cast<long long>(total_bad),
                    failures.dump().c_str());
    }
    return status;
  });
}
