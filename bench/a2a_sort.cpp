// gaea-a2a-sort-bench: an integer bucket sort in the manner of NAS IS, a workload that lives on
// all-to-all ([A2A-Energy] Fig. 4 measured NAS IS and FT), run three ways in one launch:
//   gaea         gaea::coll, default algorithms, energy strategy off (full power);
//   gaea+energy  the same calls with coll::options::energy = on (the per-call DVFS/throttle
//                strategy of framework/coll/README.md);
//   mpi          the same code on MPI_Allreduce / MPI_Alltoall / MPI_Alltoallv (MPI_COMM_WORLD).
//
// One iteration (one sort of every rank's keys, timed whole, local work included):
//   1. count the rank's keys per bucket (2^--bucket-bits buckets of equal key range) and group
//      them by bucket;
//   2. allreduce the bucket counts; give each rank a contiguous run of buckets holding about
//      N / P keys (the same walk on every rank);
//   3. alltoall the per-destination key counts, then alltoallv the keys;
//   4. counting-sort the received keys over the rank's key range.
// Keys: NAS IS's shape (the mean of four uniform numbers: keys crowd the middle of the range, so
// the buckets and the all-to-all blocks are uneven), drawn from a counter-based generator by
// global key number, so that the serial reference below needs no communication.
//
// Verification, after every batch of every variant (the output is cleared before the batch):
// every rank's output is non-decreasing and inside its key range, the ranges tile [0, max key)
// in rank order (globally sorted), and the output's histogram equals, key for key, the histogram
// of all N keys each rank computes serially from the generator (the same multiset). A failure
// is reported with the rank's first finding and the program exits 1.
//
// Measurement: repetition r runs one batch of --iters iterations of every variant, starting
// from variant r mod V (interleaved). Per batch: time per iteration (maximum over ranks), the
// part inside the three collectives (maximum over ranks), and runtime::energy() before the
// batch and after a closing barrier, summed over ranks (one rank per node for a hardware meter)
// — the meter gaea-coll-energy-bench uses. With the model meter every variant's CPU time is
// charged at the frequency and duty it ran at: the MPI calls and all local work at full power,
// the strategy's calls at f_min (and their throttled share at its duty). Medians over the
// repetitions are reported, with ratios to mpi and the strategy's cost and saving against gaea.
//
// On a machine without cpufreq or MSRs the actuators are simulated (GAEA_DVFS=simulated
// GAEA_THROTTLE=simulated): the saving is the model's, the CPU never really slows down (see the
// caveat printed). Run under GAEA_PROGRESS=spin, as gaea-coll-energy-bench: the sleeping modes'
// governor moves the same DVFS actuator.
//
//   GAEA_DVFS=simulated GAEA_THROTTLE=simulated GAEA_PROGRESS=spin mpirun -np 4
//       build/bench/gaea-a2a-sort-bench --keys 1Mi --reps 5 --json sort.json
#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <span>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench_common.hpp"
#include "cli.hpp"
#include "gaea/base/clock.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/energy/actuator.hpp"
#include "gaea/energy/model.hpp"
#include "gaea/energy/throttle.hpp"
#include "gaea/runtime/runtime.hpp"

namespace {

namespace coll = gaea::coll;
using gaea::monotonic_ns;
using nlohmann::json;

constexpr const char* program = "gaea-a2a-sort-bench";
constexpr const char* model_caveat =
    "the DVFS and throttle actuators are simulated: the energy is the model's, which charges the "
    "strategy's calls' CPU time at f_min and their throttled share at its duty, while the CPU "
    "really ran at full speed; a real CPU at f_min would also run the calls' copies and protocol "
    "work more slowly, which this run cannot show. The transitions' time cost is measured (each "
    "simulated transition busy-waits its configured cost).";

enum class kind : std::uint8_t { gaea, gaea_energy, mpi };
struct variant {
  kind k;
  const char* name;
};
constexpr std::array<variant, 3> all_variants{
    {{kind::gaea, "gaea"}, {kind::gaea_energy, "gaea+energy"}, {kind::mpi, "mpi"}}};

struct problem {
  std::uint64_t keys_per_rank = 1 << 20;
  int key_bits = 19;     // keys in [0, 2^key_bits)
  int bucket_bits = 10;  // 2^bucket_bits buckets
  std::uint64_t seed = 1;
};

// A 64-bit mix of a counter (the splitmix64 finaliser): consecutive inputs give independent
// looking outputs, so key g is computable alone.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Key number `g` of the job: the sum of four 16-bit uniform numbers (< 2^18), scaled to
// [0, 2^key_bits).
std::uint32_t key_at(const problem& p, std::uint64_t g) {
  const std::uint64_t r = mix(p.seed * 0x100000001b3ull + g);
  const std::uint64_t sum = (r & 0xffff) + ((r >> 16) & 0xffff) + ((r >> 32) & 0xffff) + (r >> 48);
  return static_cast<std::uint32_t>((sum << p.key_bits) >> 18);
}

// The buffers of one rank's sort and the sort itself, through any of the variants.
class bucket_sort {
 public:
  bucket_sort(const problem& p, int me, int np)
      : me_(me),
        np_(np),
        shift_(p.key_bits - p.bucket_bits),
        buckets_(std::size_t{1} << p.bucket_bits),
        total_(p.keys_per_rank * static_cast<std::uint64_t>(np)),
        keys_(p.keys_per_rank),
        grouped_(p.keys_per_rank),
        local_counts_(buckets_),
        global_counts_(buckets_),
        bucket_pos_(buckets_ + 1),
        first_bucket_(static_cast<std::size_t>(np) + 1),
        send_counts_(static_cast<std::size_t>(np)),
        send_displs_(static_cast<std::size_t>(np)),
        recv_counts_(static_cast<std::size_t>(np)),
        recv_displs_(static_cast<std::size_t>(np)),
        mpi_send_counts_(static_cast<std::size_t>(np)),
        mpi_send_displs_(static_cast<std::size_t>(np)),
        mpi_recv_counts_(static_cast<std::size_t>(np)),
        mpi_recv_displs_(static_cast<std::size_t>(np)) {
    const std::uint64_t first = p.keys_per_rank * static_cast<std::uint64_t>(me);
    for (std::size_t i = 0; i < keys_.size(); ++i)
      keys_[i] = key_at(p, first + i);
  }

  /// One sort through variant `v`; returns the seconds spent inside the collectives.
  double run(kind v) {
    // 1. Bucket counts and the keys grouped by bucket.
    std::fill(local_counts_.begin(), local_counts_.end(), 0);
    for (std::uint32_t k : keys_)
      ++local_counts_[k >> shift_];
    bucket_pos_[0] = 0;
    for (std::size_t b = 0; b < buckets_; ++b)
      bucket_pos_[b + 1] = bucket_pos_[b] + local_counts_[b];
    {
      std::vector<std::int64_t>& next = global_counts_;  // scratch until the allreduce
      std::copy(bucket_pos_.begin(), bucket_pos_.end() - 1, next.begin());
      for (std::uint32_t k : keys_)
        grouped_[static_cast<std::size_t>(next[k >> shift_]++)] = k;
    }

    // 2. Global bucket counts, then the buckets of every rank.
    std::copy(local_counts_.begin(), local_counts_.end(), global_counts_.begin());
    std::int64_t t0 = monotonic_ns();
    if (v == kind::mpi)
      MPI_Allreduce(MPI_IN_PLACE, global_counts_.data(), static_cast<int>(buckets_), MPI_INT64_T,
                    MPI_SUM, MPI_COMM_WORLD);
    else
      coll::allreduce(coll::world(), std::span<std::int64_t>(global_counts_), coll::reduce_op::sum,
                      options(v));
    std::int64_t comm_ns = monotonic_ns() - t0;
    assign_buckets();

    // 3. Counts, then keys, to every rank.
    for (std::size_t j = 0; j < static_cast<std::size_t>(np_); ++j) {
      send_displs_[j] = bucket_pos_[first_bucket_[j]];
      send_counts_[j] = bucket_pos_[first_bucket_[j + 1]] - send_displs_[j];
    }
    t0 = monotonic_ns();
    if (v == kind::mpi)
      MPI_Alltoall(send_counts_.data(), 1, MPI_INT64_T, recv_counts_.data(), 1, MPI_INT64_T,
                   MPI_COMM_WORLD);
    else
      coll::alltoall(coll::world(), std::span<const std::int64_t>(send_counts_),
                     std::span<std::int64_t>(recv_counts_), options(v));
    comm_ns += monotonic_ns() - t0;
    std::int64_t received = 0;
    for (std::size_t j = 0; j < static_cast<std::size_t>(np_); ++j) {
      recv_displs_[j] = received;
      received += recv_counts_[j];
    }
    recv_.resize(static_cast<std::size_t>(received));
    if (v == kind::mpi) {
      // Counts fit an int: the whole job's key count is checked against INT_MAX in main.
      for (std::size_t j = 0; j < static_cast<std::size_t>(np_); ++j) {
        mpi_send_counts_[j] = static_cast<int>(send_counts_[j]);
        mpi_send_displs_[j] = static_cast<int>(send_displs_[j]);
        mpi_recv_counts_[j] = static_cast<int>(recv_counts_[j]);
        mpi_recv_displs_[j] = static_cast<int>(recv_displs_[j]);
      }
    }
    t0 = monotonic_ns();
    if (v == kind::mpi)
      MPI_Alltoallv(grouped_.data(), mpi_send_counts_.data(), mpi_send_displs_.data(), MPI_UINT32_T,
                    recv_.data(), mpi_recv_counts_.data(), mpi_recv_displs_.data(), MPI_UINT32_T,
                    MPI_COMM_WORLD);
    else
      coll::alltoallv(coll::world(), std::span<const std::uint32_t>(grouped_),
                      std::span<const std::int64_t>(send_counts_),
                      std::span<const std::int64_t>(send_displs_), std::span<std::uint32_t>(recv_),
                      std::span<const std::int64_t>(recv_counts_),
                      std::span<const std::int64_t>(recv_displs_), options(v));
    comm_ns += monotonic_ns() - t0;

    // 4. Counting sort over this rank's key range.
    const std::uint32_t lo = lo_key(), hi = hi_key();
    hist_.assign(hi - lo, 0);
    for (std::uint32_t k : recv_)
      ++hist_[k - lo];
    out_.resize(recv_.size());
    std::size_t at = 0;
    for (std::size_t i = 0; i < hist_.size(); ++i)
      for (std::uint32_t c = 0; c < hist_[i]; ++c)
        out_[at++] = lo + static_cast<std::uint32_t>(i);
    return static_cast<double>(comm_ns) * 1e-9;
  }

  /// Fills the output with a value no sort produces in range order (so a stale one is seen).
  void clear_output() { out_.assign(out_.size(), UINT32_MAX); }
  /// Testing only: changes one key of the output (the verification must then fail).
  void corrupt_output() {
    if (!out_.empty()) out_.front() ^= 1u;
  }
  std::span<const std::uint32_t> sorted() const { return out_; }
  /// This rank's key range [lo_key, hi_key) after a sort.
  std::uint32_t lo_key() const {
    return static_cast<std::uint32_t>(first_bucket_[static_cast<std::size_t>(me_)] << shift_);
  }
  std::uint32_t hi_key() const {
    return static_cast<std::uint32_t>(first_bucket_[static_cast<std::size_t>(me_) + 1] << shift_);
  }
  std::uint64_t total() const { return total_; }
  /// Keys this rank sends to others per sort (for the caption).
  std::int64_t sent_elsewhere() const {
    return static_cast<std::int64_t>(keys_.size()) - send_counts_[static_cast<std::size_t>(me_)];
  }

 private:
  static coll::options options(kind v) {
    coll::options o;
    o.energy = v == kind::gaea_energy ? coll::energy_mode::on : coll::energy_mode::off;
    return o;
  }
  // Rank j gets buckets [first_bucket_[j], first_bucket_[j + 1]): a bucket goes to the current
  // rank, which is full once the keys so far reach (j + 1) N / P (NAS IS's rule).
  void assign_buckets() {
    std::size_t j = 0;
    std::uint64_t so_far = 0;
    first_bucket_[0] = 0;
    const auto ranks = static_cast<std::uint64_t>(np_);
    for (std::size_t b = 0; b < buckets_; ++b) {
      so_far += static_cast<std::uint64_t>(global_counts_[b]);
      while (j + 1 < static_cast<std::size_t>(np_) && so_far >= (j + 1) * total_ / ranks)
        first_bucket_[++j] = b + 1;
    }
    while (j + 1 < static_cast<std::size_t>(np_))
      first_bucket_[++j] = buckets_;
    first_bucket_[static_cast<std::size_t>(np_)] = buckets_;
  }

  int me_, np_;
  int shift_;
  std::size_t buckets_;
  std::uint64_t total_;
  std::vector<std::uint32_t> keys_, grouped_, recv_, out_, hist_;
  std::vector<std::int64_t> local_counts_, global_counts_, bucket_pos_;
  std::vector<std::size_t> first_bucket_;
  std::vector<std::int64_t> send_counts_, send_displs_, recv_counts_, recv_displs_;
  std::vector<int> mpi_send_counts_, mpi_send_displs_, mpi_recv_counts_, mpi_recv_displs_;
};

// The serial reference: how often each key occurs among all N keys, from the generator alone.
std::vector<std::uint32_t> reference_histogram(const problem& p, std::uint64_t total) {
  std::vector<std::uint32_t> h(std::size_t{1} << p.key_bits, 0);
  for (std::uint64_t g = 0; g < total; ++g)
    ++h[key_at(p, g)];
  return h;
}

// This rank's findings on its output (empty when right); the tiling of [0, max key) by the
// ranks' ranges and the total count are checked collectively (quiet collectives).
std::string verify(const bucket_sort& s, const std::vector<std::uint32_t>& ref, int me,
                   const char* name) {
  const std::string who = std::string(name) + ", rank " + std::to_string(me) + ": ";
  const std::span<const std::uint32_t> out = s.sorted();
  const std::uint32_t lo = s.lo_key(), hi = s.hi_key();
  std::string problem;
  for (std::size_t i = 0; i < out.size() && problem.empty(); ++i) {
    if (out[i] < lo || out[i] >= hi)
      problem = who + "key " + std::to_string(out[i]) + " at " + std::to_string(i) +
                " is outside the rank's range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                ")";
    else if (i > 0 && out[i] < out[i - 1])
      problem = who + "keys out of order at " + std::to_string(i);
  }
  if (problem.empty()) {
    std::vector<std::uint32_t> mine(hi - lo, 0);
    for (std::uint32_t k : out)
      ++mine[k - lo];
    for (std::uint32_t k = lo; k < hi && problem.empty(); ++k)
      if (mine[k - lo] != ref[k])
        problem = who + "key " + std::to_string(k) + " occurs " + std::to_string(mine[k - lo]) +
                  " times, the serial reference has it " + std::to_string(ref[k]) + " times";
  }
  struct range {
    std::uint64_t lo, hi, count;
  };
  const std::vector<range> all =
      coll::allgather(coll::world(), range{lo, hi, static_cast<std::uint64_t>(out.size())});
  std::uint64_t count = 0;
  for (std::size_t j = 0; j < all.size(); ++j) {
    count += all[j].count;
    const std::uint64_t want_lo = j == 0 ? 0 : all[j - 1].hi;
    if (problem.empty() && all[j].lo != want_lo)
      problem = who + "rank " + std::to_string(j) + "'s range starts at " +
                std::to_string(all[j].lo) + ", not at " + std::to_string(want_lo);
  }
  if (problem.empty() && all.back().hi != ref.size())
    problem = who + "the last range ends at " + std::to_string(all.back().hi) + ", not at " +
              std::to_string(ref.size());
  if (problem.empty() && count != s.total())
    problem = who + std::to_string(count) + " keys in the output, " + std::to_string(s.total()) +
              " generated";
  return problem;
}

// One batch's figures, reduced over ranks.
struct batch_result {
  double iter_ms = 0;   // time per iteration, max over ranks
  double comm_ms = 0;   // of which inside the collectives, max over ranks
  double joules = 0;    // per iteration, summed over ranks
  double dvfs = 0;      // DVFS transitions per iteration, summed over ranks
  double throttle = 0;  // throttle transitions per iteration, summed over ranks
};

batch_result run_batch(gaea::runtime& rt, bucket_sort& s, kind v, int iters) {
  const coll::group& w = coll::world();
  const bool counted = !rt.energy().measured || rt.node_rank() == 0;
  coll::barrier(w);
  const double e0 = rt.energy().joules;
  const std::uint64_t d0 = rt.dvfs().transition_count(), th0 = rt.throttle().transition_count();
  const std::int64_t t0 = monotonic_ns();
  double comm_s = 0;
  for (int i = 0; i < iters; ++i)
    comm_s += s.run(v);
  const std::int64_t t1 = monotonic_ns();
  coll::barrier(w);  // a rank done early is charged while it waits for the others
  const double e1 = rt.energy().joules;
  std::array<double, 3> sums{counted ? e1 - e0 : 0.0,
                             static_cast<double>(rt.dvfs().transition_count() - d0),
                             static_cast<double>(rt.throttle().transition_count() - th0)};
  std::array<double, 2> maxima{static_cast<double>(t1 - t0) * 1e-6, comm_s * 1e3};
  coll::allreduce(w, std::span<double>(sums), coll::reduce_op::sum);
  coll::allreduce(w, std::span<double>(maxima), coll::reduce_op::max);
  const double n = iters;
  return {maxima[0] / n, maxima[1] / n, sums[0] / n, sums[1] / n, sums[2] / n};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "gaea-a2a-sort-bench: an integer bucket sort (NAS IS's pattern) through gaea::coll, "
      "gaea::coll with the energy strategy, and MPI's all-to-all, verified against a serial "
      "reference"};
  apps::conventions(app, program);
  problem p;
  int iters = 10, reps = 5, warmup = 2, corrupt_rank = -1;
  std::string variants_text = "gaea,gaea+energy,mpi", json_path;
  app.add_option("--keys", p.keys_per_rank, "keys per rank (suffixes K, M: powers of 1024)")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  app.add_option("--key-bits", p.key_bits,
                 "keys lie in [0, 2^key-bits) (each rank holds a 4-byte count per key value)")
      ->check(CLI::Range(4, 24))
      ->capture_default_str();
  app.add_option("--bucket-bits", p.bucket_bits, "2^bucket-bits buckets (at most 2^key-bits)")
      ->check(CLI::Range(1, 20))
      ->capture_default_str();
  app.add_option("--seed", p.seed, "generator seed (the same keys for the same seed and N)")
      ->capture_default_str();
  app.add_option("--iters", iters, "sorts per batch")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--reps", reps, "interleaved repetitions (one batch per variant each)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--warmup", warmup, "untimed sorts per variant before the repetitions")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  app.add_option("--variants", variants_text, "any of gaea, gaea+energy, mpi")
      ->capture_default_str();
  app.add_option("--corrupt-rank", corrupt_rank,
                 "testing: this rank changes one key of its output after every batch (the "
                 "verification must fail)")
      ->check(CLI::Range(0, INT_MAX));
  apps::add_json_option(app, json_path);
  std::vector<variant> chosen;
  app.callback([&] {
    if (p.keys_per_rank < 1) throw gaea::error("--keys must be at least 1");
    if (p.bucket_bits > p.key_bits)
      throw gaea::error("--bucket-bits " + std::to_string(p.bucket_bits) + " exceeds --key-bits " +
                        std::to_string(p.key_bits));
    for (const std::string& name : gaea_bench::split_list(variants_text)) {
      const auto it = std::find_if(all_variants.begin(), all_variants.end(),
                                   [&](const variant& v) { return name == v.name; });
      if (it == all_variants.end())
        throw gaea::error("unknown variant '" + name + "' (gaea, gaea+energy, mpi)");
      if (std::none_of(chosen.begin(), chosen.end(),
                       [&](const variant& v) { return v.k == it->k; }))
        chosen.push_back(*it);
    }
    if (chosen.empty()) throw gaea::error("--variants names no variant");
  });
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;

  // An error on any rank ends the job with its message on every rank.
  return gaea::run_main(program, &argc, &argv, [&](gaea::runtime& rt) {
    const coll::group& w = coll::world();               // collective on first use
    coll::scoped_energy quiet(coll::energy_mode::off);  // the bench's own collectives
    const int me = rt.rank(), np = rt.size();
    const bool root = me == 0;
    apps::check_json_target(json_path, program);
    int mpi_rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
    if (mpi_rank != me)
      throw gaea::error("Gaea rank " + std::to_string(me) + " is MPI_COMM_WORLD rank " +
                        std::to_string(mpi_rank));
    const std::uint64_t total = p.keys_per_rank * static_cast<std::uint64_t>(np);
    if (total > static_cast<std::uint64_t>(INT_MAX))
      throw gaea::error("--keys " + std::to_string(p.keys_per_rank) + " x " + std::to_string(np) +
                        " ranks = " + std::to_string(total) +
                        " keys: more than an MPI count (int) holds");
    if (corrupt_rank >= np)
      throw gaea::error("--corrupt-rank " + std::to_string(corrupt_rank) + " but only " +
                        std::to_string(np) + " ranks");
    const bool with_strategy = std::any_of(
        chosen.begin(), chosen.end(), [](const variant& v) { return v.k == kind::gaea_energy; });
    if (with_strategy && !rt.dvfs().active() && !rt.throttle().active())
      throw gaea::error(
          "variant gaea+energy: no DVFS actuator or throttle is active (" + rt.dvfs_reason() +
          "; " + rt.throttle_reason() +
          "): the strategy would change nothing. Set GAEA_DVFS=simulated GAEA_THROTTLE=simulated "
          "on a machine without cpufreq and MSRs.");
    const std::string mode(gaea::progress::to_string(rt.progress().current_mode()));
    if (root && mode != "spin")
      std::fprintf(stderr,
                   "%s: warning: GAEA_PROGRESS=%s: the progress governor may move the DVFS "
                   "actuator too; run under GAEA_PROGRESS=spin for the collectives' transitions "
                   "alone\n",
                   program, mode.c_str());

    bucket_sort sorter(p, me, np);
    const std::vector<std::uint32_t> ref = reference_histogram(p, total);
    const bool simulated = !rt.dvfs().hardware() && !rt.throttle().hardware();
    const gaea::energy_reading e_start = rt.energy();

    json out = gaea_bench::run_info(rt, "a2a_sort");
    out["mpi_library"] = gaea_bench::mpi_library();
    out["progress_mode"] = mode;
    out["node_size"] = rt.node_size();
    const gaea::energy::model_params& mp = rt.model();
    out["model"] = {{"source", mp.source},
                    {"p_static_w", mp.p_static_w},
                    {"p_dyn_w", mp.p_dyn_w},
                    {"p_dyn_other_w", mp.p_dyn_other_w},
                    {"f_max_khz", mp.f_max_khz},
                    {"f_min_khz", mp.f_min_khz},
                    {"transition_ns", mp.transition_ns}};
    out["simulated_actuators"] = simulated;
    if (simulated) out["caveat"] = model_caveat;
    out["args"] = {{"keys_per_rank", p.keys_per_rank},
                   {"total_keys", total},
                   {"key_bits", p.key_bits},
                   {"bucket_bits", p.bucket_bits},
                   {"seed", p.seed},
                   {"iters", iters},
                   {"reps", reps},
                   {"warmup", warmup}};
    out["load_start"] = gaea_bench::load_average();
    out["complete"] = false;

    if (root) {
      std::printf(
          "%s: %d ranks on %d node(s), %llu keys per rank (%llu in all) in [0, 2^%d), "
          "2^%d buckets; GAEA_PROGRESS=%s, UCX_TLS=%s\n",
          program, np, rt.nodes(), static_cast<unsigned long long>(p.keys_per_rank),
          static_cast<unsigned long long>(total), p.key_bits, p.bucket_bits, mode.c_str(),
          out["ucx_tls"].get<std::string>().c_str());
      std::printf("MPI: %s\nDVFS: %s\nthrottle: %s\nenergy: %s\n",
                  out["mpi_library"].get<std::string>().c_str(), rt.dvfs_reason().c_str(),
                  rt.throttle_reason().c_str(), gaea_bench::energy_label(e_start).c_str());
      if (simulated) std::printf("NOTE: %s\n", model_caveat);
      std::fflush(stdout);
    }

    int status = 0;
    std::vector<std::string> failures;
    // Verification of the batch just run, on every rank; the lowest failing rank's finding wins.
    const auto check = [&](const variant& v) {
      if (me == corrupt_rank) sorter.corrupt_output();
      std::string finding = verify(sorter, ref, me, v.name);
      try {
        coll::agree(w, finding);
      } catch (const gaea::error& e) {
        status = 1;
        if (failures.size() < 20) failures.emplace_back(e.what());
      }
    };
    for (const variant& v : chosen) {
      for (int i = 0; i < warmup; ++i)
        sorter.run(v.k);
    }
    std::vector<std::vector<batch_result>> by_variant(chosen.size());
    for (int r = 0; r < reps; ++r)
      for (std::size_t i = 0; i < chosen.size(); ++i) {
        const std::size_t vi = (i + static_cast<std::size_t>(r)) % chosen.size();
        sorter.clear_output();
        by_variant[vi].push_back(run_batch(rt, sorter, chosen[vi].k, iters));
        check(chosen[vi]);
      }
    const double sent_mib =
        gaea_bench::sum_over_ranks(static_cast<double>(sorter.sent_elsewhere())) * 4.0 /
        static_cast<double>(1 << 20);

    // Medians over the repetitions.
    const auto med = [&](std::size_t vi, double batch_result::*f) {
      std::vector<double> v;
      for (const batch_result& b : by_variant[vi])
        v.push_back(b.*f);
      return gaea_bench::median(v);
    };
    const auto index_of = [&](kind k) -> std::ptrdiff_t {
      for (std::size_t i = 0; i < chosen.size(); ++i)
        if (chosen[i].k == k) return static_cast<std::ptrdiff_t>(i);
      return -1;
    };
    const std::ptrdiff_t i_mpi = index_of(kind::mpi), i_gaea = index_of(kind::gaea),
                         i_energy = index_of(kind::gaea_energy);
    out["keys_sent_to_other_ranks_mib_per_sort"] = sent_mib;
    out["variants"] = json::object();
    for (std::size_t vi = 0; vi < chosen.size(); ++vi) {
      json reps_json = json::array();
      for (const batch_result& b : by_variant[vi])
        reps_json.push_back({{"iter_ms", b.iter_ms},
                             {"comm_ms", b.comm_ms},
                             {"joules_per_iter", b.joules},
                             {"dvfs_per_iter", b.dvfs},
                             {"throttle_per_iter", b.throttle}});
      json row = {{"iter_ms", med(vi, &batch_result::iter_ms)},
                  {"comm_ms", med(vi, &batch_result::comm_ms)},
                  {"joules_per_iter", med(vi, &batch_result::joules)},
                  {"dvfs_per_iter_per_rank", med(vi, &batch_result::dvfs) / np},
                  {"throttle_per_iter_per_rank", med(vi, &batch_result::throttle) / np},
                  {"reps", std::move(reps_json)}};
      if (i_mpi >= 0) {
        const auto m = static_cast<std::size_t>(i_mpi);
        row["time_vs_mpi"] = med(vi, &batch_result::iter_ms) / med(m, &batch_result::iter_ms);
        row["energy_vs_mpi"] = med(vi, &batch_result::joules) / med(m, &batch_result::joules);
      }
      out["variants"][chosen[vi].name] = std::move(row);
    }
    if (i_gaea >= 0 && i_energy >= 0) {
      const auto g = static_cast<std::size_t>(i_gaea), e = static_cast<std::size_t>(i_energy);
      out["strategy_time_cost_pct"] =
          100.0 * (med(e, &batch_result::iter_ms) / med(g, &batch_result::iter_ms) - 1);
      out["strategy_energy_saving_pct"] =
          100.0 * (1 - med(e, &batch_result::joules) / med(g, &batch_result::joules));
    }
    out["verified"] = status == 0;
    out["failures"] = failures;

    if (root) {
      std::printf(
          "\nper sort: time = max over ranks, median of %d interleaved batches of %d "
          "sorts; comm = inside allreduce + alltoall + alltoallv; energy summed over "
          "ranks; %.2f MiB of keys cross ranks per sort\n",
          reps, iters, sent_mib);
      std::printf("%-12s %10s %10s %6s %10s %9s %9s %8s\n", "variant", "sort ms", "comm ms",
                  "comm%", "mJ", "time/mpi", "mJ/mpi", "dvfs/it");
      for (std::size_t vi = 0; vi < chosen.size(); ++vi) {
        const json& row = out["variants"][chosen[vi].name];
        const double t = row["iter_ms"], c = row["comm_ms"], j = row["joules_per_iter"];
        std::printf("%-12s %10.3f %10.3f %6.1f %10.3f", chosen[vi].name, t, c,
                    t > 0 ? 100.0 * c / t : 0.0, j * 1e3);
        if (i_mpi >= 0)
          std::printf(" %9.3f %9.3f", row["time_vs_mpi"].get<double>(),
                      row["energy_vs_mpi"].get<double>());
        else
          std::printf(" %9s %9s", "-", "-");
        std::printf(" %8.2f\n", row["dvfs_per_iter_per_rank"].get<double>());
      }
      if (out.contains("strategy_time_cost_pct"))
        std::printf("strategy against gaea: time %+.2f %%, energy saving %.2f %% (model)\n",
                    out["strategy_time_cost_pct"].get<double>(),
                    out["strategy_energy_saving_pct"].get<double>());
      std::printf("verification: %s\n",
                  status == 0 ? "passed (every batch of every variant)" : "FAILED");
      for (const std::string& f : failures)
        std::fprintf(stderr, "%s: wrong result: %s\n", program, f.c_str());
      if (simulated) std::printf("NOTE: %s\n", model_caveat);
      out["load_end"] = gaea_bench::load_average();
      out["complete"] = true;
      apps::write_json(json_path, out.dump(json_path == "-" ? -1 : 2), program);
    }
    return status;
  });
}
