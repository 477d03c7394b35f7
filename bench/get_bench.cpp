// get_bench: get/put latency and bandwidth on a gaea::global_array, measured exactly like the
// Global Arrays references measure GA, so the two can be run side by side:
//
// Default mode (bench/compare_get.sh, against bench/reference/ga_get_bench.c):
//   rank 0 gets from a 1-D patch owned by rank 1; rank 1 only waits in sync().
//   latency: 1000 warm-up gets, then R repetitions of K gets of one double; per repetition the
//            mean time per get; reported: median and min over repetitions.
//   bandwidth: 10 warm-up gets, then R repetitions of K gets of 1 MiB into a page-aligned
//            buffer; per repetition bytes/time (1e9 B/s); reported: median and max.
//   Options: --reps R (7) --lat-iters K (10000) --bw-iters K (200)
//
// --sweep (bench/compare_rma_nodes.sh, against bench/reference/ga_rma_sweep.c): for every size
//   of --sizes (8 B .. 4 MiB), rank 0 measures against a patch owned by rank 1 (rank 1 waits in
//   sync(); with `mpirun --map-by node` the two are on different hosts):
//     get latency  blocking get;                        time per op
//     put latency  blocking put + fence() (the data is complete at rank 1); time per op
//     get bandwidth a window of D non-blocking gets kept in flight (each into its own slot of
//                  a page-aligned buffer); bytes / time
//     put bandwidth the same with non-blocking puts, and one fence() at the end of every
//                  repetition (inside the timing); bytes / time
//   After a warm-up of 8 B gets (max(100 ms, 5 repetitions)), each measurement: a warm-up that
//   also calibrates K so that one repetition lasts about --rep-ms, then R timed repetitions of
//   K ops. Reported: median and best over repetitions.
//   Options: --sweep --reps R (7) --rep-ms T (20) --depth D (8)
//            --sizes LIST (8,64,512,4KiB,32KiB,256KiB,1MiB,4MiB; multiples of 8 B)
//   Output (rank 0): a table, then one JSON line {"bench":"rma_sweep",...,"rows":[...]}.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli.hpp"
#include "gaea/base/error.hpp"
#include "gaea/base/version.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/ga/global_array.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"

using gaea::ga::index_t;
using gaea::ga::patch;

namespace {
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Options of both modes.
struct options {
  bool sweep = false;
  int reps = 7, lat_iters = 10000, bw_iters = 200;
  double rep_ms = 20;
  int depth = 8;
  std::vector<std::size_t> sizes = {8, 64, 512, 4 << 10, 32 << 10, 256 << 10, 1 << 20, 4 << 20};
};

/// Parses "4096", "4KiB", "4K", "1MiB", "1M" (binary units) into bytes; nullopt if malformed.
std::optional<std::size_t> parse_bytes(const std::string& text) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str()) return std::nullopt;
  const std::string unit(end);
  std::size_t mult = 1;
  if (unit == "K" || unit == "KiB")
    mult = std::size_t{1} << 10;
  else if (unit == "M" || unit == "MiB")
    mult = std::size_t{1} << 20;
  else if (!unit.empty() && unit != "B")
    return std::nullopt;
  return static_cast<std::size_t>(v) * mult;
}

/// Parses the command line (apps/common/cli.hpp): nullopt when the program should run, else
/// the exit status of main.
std::optional<int> parse_options(int argc, char** argv, options& o) {
  CLI::App app{
      "get_bench: get/put latency and bandwidth of a gaea::global_array, measured like "
      "the Global Arrays references"};
  apps::conventions(app, "get_bench");
  std::string sizes_text;
  app.add_flag("--sweep", o.sweep, "the size sweep (get/put latency and bandwidth per size)");
  app.add_option("--reps", o.reps, "repetitions (median reported)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--lat-iters", o.lat_iters, "gets per latency repetition (default mode)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--bw-iters", o.bw_iters, "gets per bandwidth repetition (default mode)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--rep-ms", o.rep_ms, "length of one repetition, ms (--sweep)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--depth", o.depth, "non-blocking operations in flight (--sweep)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--sizes", sizes_text,
                 "sizes of --sweep, multiples of 8 B, e.g. 8,64,4KiB,1MiB "
                 "(default: 8,64,512,4KiB,32KiB,256KiB,1MiB,4MiB)");
  app.callback([&] {
    if (sizes_text.empty()) return;
    o.sizes.clear();
    std::size_t from = 0;
    while (from <= sizes_text.size()) {
      const std::size_t comma = std::min(sizes_text.find(',', from), sizes_text.size());
      const std::string item = sizes_text.substr(from, comma - from);
      const auto b = parse_bytes(item);
      if (!b || *b == 0 || *b % sizeof(double) != 0)
        throw gaea::error("--sizes: '" + item + "' is not a positive multiple of 8 B");
      o.sizes.push_back(*b);
      from = comma + 1;
    }
  });
  return apps::parse(app, argc, argv);
}

/// A page-aligned buffer of `n` doubles.
std::unique_ptr<double, decltype(&std::free)> page_buffer(std::size_t n) {
  constexpr std::size_t page = 4096;
  const std::size_t bytes = (n * sizeof(double) + page - 1) / page * page;
  return {static_cast<double*>(std::aligned_alloc(page, bytes)), &std::free};
}

std::string system_name(gaea::runtime& rt) {
  const char* tls = std::getenv("UCX_TLS");
  const char* rp = std::getenv("GAEA_RKEY_PTR");
  return std::string("Gaea-") + gaea::version_string + "/UCX_TLS=" + (tls ? tls : "default") +
         "/RKEY_PTR=" + (rp ? rp : "1") +
         "/progress=" + std::string(gaea::progress::to_string(rt.progress().current_mode()));
}

int run_classic(gaea::runtime& rt, const options& o) {
  const int reps = o.reps, lat_iters = o.lat_iters, bw_iters = o.bw_iters;
  constexpr index_t block = (1 << 20) / sizeof(double);
  gaea::global_array<double> a("bench", {block * rt.size()});
  const patch b1 = a.distribution(1);
  {
    auto l = a.access();
    for (std::size_t i = 0; i < l.size(); ++i)
      l[i] = static_cast<double>(a.local_block().lo[0]) + static_cast<double>(i);
  }
  a.sync();
  std::vector<double> lat, nb_lat, bw, copy;
  if (rt.rank() == 0) {
    auto buf = page_buffer(static_cast<std::size_t>(block));
    std::span<double> whole(buf.get(), static_cast<std::size_t>(block));
    a.get(b1, whole);
    for (index_t i = 0; i < block; ++i)
      if (whole[static_cast<std::size_t>(i)] != static_cast<double>(b1.lo[0] + i)) {
        std::fprintf(stderr, "get_bench: wrong data at %lld\n", static_cast<long long>(i));
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    const patch one{{b1.lo[0] + 7}, {b1.lo[0] + 7}};
    for (int i = 0; i < 1000; ++i)
      a.get(one, whole.first(1));
    for (int r = 0; r < reps; ++r) {
      const double t = MPI_Wtime();
      for (int i = 0; i < lat_iters; ++i)
        a.get(one, whole.first(1));
      lat.push_back((MPI_Wtime() - t) / lat_iters * 1e6);
    }
    // The same through a request: what a binding's non-blocking get is measured against.
    for (int r = 0; r < reps; ++r) {
      const double t = MPI_Wtime();
      for (int i = 0; i < lat_iters; ++i)
        a.get(one, whole.first(1), gaea::ga::nonblocking).wait();
      nb_lat.push_back((MPI_Wtime() - t) / lat_iters * 1e6);
    }
    for (int i = 0; i < 10; ++i)
      a.get(b1, whole);
    // The ceiling: memcpy of the same 1 MiB between two local page-aligned buffers, timed
    // repetition by repetition between the gets' (same conditions).
    auto src = page_buffer(static_cast<std::size_t>(block));
    std::fill_n(src.get(), block, 1.0);
    for (int r = 0; r < reps; ++r) {
      double t = MPI_Wtime();
      for (int i = 0; i < bw_iters; ++i)
        a.get(b1, whole);
      bw.push_back(static_cast<double>(bw_iters) * (1 << 20) / (MPI_Wtime() - t) / 1e9);
      t = MPI_Wtime();
      for (int i = 0; i < bw_iters; ++i) {
        std::memcpy(whole.data(), src.get(), 1 << 20);
        asm volatile("" ::: "memory");  // every copy happens
      }
      copy.push_back(static_cast<double>(bw_iters) * (1 << 20) / (MPI_Wtime() - t) / 1e9);
    }
  }
  a.sync();
  if (rt.rank() == 0) {
    std::printf(
        "Gaea get latency 8 B : median %.3f us, min %.3f us (%d reps x %d gets, %d ranks)\n",
        median(lat), *std::min_element(lat.begin(), lat.end()), reps, lat_iters, rt.size());
    std::printf(
        "Gaea get latency 8 B nonblocking + wait : median %.3f us, min %.3f us (%d reps x %d)\n",
        median(nb_lat), *std::min_element(nb_lat.begin(), nb_lat.end()), reps, lat_iters);
    std::printf("Gaea get bandwidth 1 MiB : median %.3f GB/s, max %.3f GB/s (%d reps x %d gets)\n",
                median(bw), *std::max_element(bw.begin(), bw.end()), reps, bw_iters);
    std::printf("memcpy 1 MiB (local)     : median %.3f GB/s, max %.3f GB/s\n", median(copy),
                *std::max_element(copy.begin(), copy.end()));
    std::printf(
        "{\"system\":\"%s\",\"ranks\":%d,"
        "\"get_lat_8B_us_median\":%.4f,\"get_lat_8B_us_min\":%.4f,"
        "\"get_bw_1MiB_GBs_median\":%.4f,\"get_bw_1MiB_GBs_max\":%.4f,"
        "\"memcpy_1MiB_GBs_median\":%.4f,\"memcpy_1MiB_GBs_max\":%.4f,\"reps\":%d}\n",
        system_name(rt).c_str(), rt.size(), median(lat), *std::min_element(lat.begin(), lat.end()),
        median(bw), *std::max_element(bw.begin(), bw.end()), median(copy),
        *std::max_element(copy.begin(), copy.end()), reps);
  }
  return 0;
}

/// Seconds per op of `reps` repetitions of `batch(k)`, with k calibrated so that one repetition
/// lasts about `rep_s`. `batch(k)` runs k operations back to back (and completes them).
template <class Batch>
std::vector<double> time_per_op(Batch&& batch, int reps, double rep_s, long& k_out) {
  constexpr long max_k = 1000000;
  batch(2);  // first use: endpoints, keys, registrations
  long k = 1;
  for (;;) {  // warm-up that doubles k until a batch lasts a quarter of a repetition
    const double t = MPI_Wtime();
    batch(k);
    const double dt = MPI_Wtime() - t;
    if (dt >= rep_s / 4 || k >= max_k) {
      k = std::clamp(
          static_cast<long>(std::ceil(static_cast<double>(k) * rep_s / std::max(dt, 1e-9))), 1L,
          max_k);
      break;
    }
    k *= 2;
  }
  std::vector<double> out;
  for (int r = 0; r < reps; ++r) {
    const double t = MPI_Wtime();
    batch(k);
    out.push_back((MPI_Wtime() - t) / static_cast<double>(k));
  }
  k_out = k;
  return out;
}

/// One size of the sweep: medians and best values.
struct sweep_row {
  std::size_t bytes = 0;
  double get_lat = 0, get_lat_min = 0, put_lat = 0, put_lat_min = 0;  // us
  double get_bw = 0, get_bw_max = 0, put_bw = 0, put_bw_max = 0;      // GB/s (1e9 B/s)
  long get_lat_k = 0, put_lat_k = 0, get_bw_k = 0, put_bw_k = 0;      // ops per repetition
};

int run_sweep(gaea::runtime& rt, const options& o) {
  const std::size_t max_bytes = *std::max_element(o.sizes.begin(), o.sizes.end());
  const auto block = static_cast<index_t>(max_bytes / sizeof(double));
  gaea::global_array<double> a("rma_sweep", {block * rt.size()});
  const patch b1 = a.distribution(1);
  if (b1.elements() < block) {
    if (rt.rank() == 0) std::fprintf(stderr, "get_bench: rank 1 owns less than the largest size\n");
    return 2;
  }
  {
    auto l = a.access();
    for (std::size_t i = 0; i < l.size(); ++i)
      l[i] = static_cast<double>(a.local_block().lo[0]) + static_cast<double>(i);
  }
  // Where ranks 0 and 1 run (the script checks that --map-by node put them on two hosts).
  char host0[MPI_MAX_PROCESSOR_NAME] = {}, host1[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(rt.rank() == 1 ? host1 : host0, &len);
  const gaea::coll::group& world = gaea::coll::world();
  gaea::coll::broadcast(world, std::span<char>(host0), 0);
  gaea::coll::broadcast(world, std::span<char>(host1), 1);
  int node1 = rt.node_id();
  gaea::coll::broadcast(world, std::span<int>(&node1, 1), 1);
  a.sync();

  std::vector<sweep_row> rows;
  if (rt.rank() == 0) {
    const auto depth = static_cast<std::size_t>(o.depth);
    const auto slot_elems = static_cast<std::size_t>(block);
    auto raw = page_buffer(slot_elems * depth);
    std::span<double> buf(raw.get(), slot_elems * depth);
    // Correctness: one get of the whole patch, then a put of new values read back.
    const patch whole{{b1.lo[0]}, {b1.lo[0] + block - 1}};
    a.get(whole, buf.first(slot_elems));
    for (std::size_t i = 0; i < slot_elems; ++i)
      if (buf[i] != static_cast<double>(b1.lo[0]) + static_cast<double>(i)) {
        std::fprintf(stderr, "get_bench: wrong data from get at %zu\n", i);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    for (std::size_t i = 0; i < slot_elems; ++i)
      buf[i] = -static_cast<double>(i);
    a.put(whole, buf.first(slot_elems));
    a.fence();
    a.get(whole, buf.subspan(slot_elems, slot_elems));
    for (std::size_t i = 0; i < slot_elems; ++i)
      if (buf[slot_elems + i] != -static_cast<double>(i)) {
        std::fprintf(stderr, "get_bench: wrong data after put at %zu\n", i);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }

    const double rep_s = o.rep_ms * 1e-3;
    // Warm-up of the path as a whole (the target's wait mode settles, the caches fill): small
    // gets for max(100 ms, 5 repetitions), so the first size is not the one that pays for it.
    for (const double until = MPI_Wtime() + std::max(0.1, 5 * rep_s); MPI_Wtime() < until;)
      a.get(patch{{b1.lo[0]}, {b1.lo[0]}}, buf.first(1));
    std::vector<gaea::ga::request> window(depth);
    for (const std::size_t bytes : o.sizes) {
      const std::size_t n = bytes / sizeof(double);
      const patch p{{b1.lo[0]}, {b1.lo[0] + static_cast<index_t>(n) - 1}};
      auto slot = [&](long i) {
        return buf.subspan(static_cast<std::size_t>(i % o.depth) * slot_elems, n);
      };
      sweep_row row;
      row.bytes = bytes;
      const std::vector<double> gl = time_per_op(
          [&](long k) {
            for (long i = 0; i < k; ++i)
              a.get(p, slot(0));
          },
          o.reps, rep_s, row.get_lat_k);
      const std::vector<double> pl = time_per_op(
          [&](long k) {
            for (long i = 0; i < k; ++i) {
              a.put(p, std::span<const double>(slot(0)));
              a.fence();
            }
          },
          o.reps, rep_s, row.put_lat_k);
      const std::vector<double> gb = time_per_op(
          [&](long k) {
            for (long i = 0; i < k; ++i) {
              auto& w = window[static_cast<std::size_t>(i % o.depth)];
              if (w.pending()) w.wait();  // frees the slot before it is reused
              w = a.get(p, slot(i), gaea::ga::nonblocking);
            }
            for (auto& w : window)
              if (w.pending()) w.wait();
          },
          o.reps, rep_s, row.get_bw_k);
      const std::vector<double> pb = time_per_op(
          [&](long k) {
            for (long i = 0; i < k; ++i) {
              auto& w = window[static_cast<std::size_t>(i % o.depth)];
              if (w.pending()) w.wait();
              w = a.put(p, std::span<const double>(slot(i)), gaea::ga::nonblocking);
            }
            for (auto& w : window)
              if (w.pending()) w.wait();
            a.fence();
          },
          o.reps, rep_s, row.put_bw_k);
      const auto us = [](double s) { return s * 1e6; };
      const auto gbs = [bytes](double s) { return static_cast<double>(bytes) / s * 1e-9; };
      row.get_lat = us(median(gl));
      row.get_lat_min = us(*std::min_element(gl.begin(), gl.end()));
      row.put_lat = us(median(pl));
      row.put_lat_min = us(*std::min_element(pl.begin(), pl.end()));
      row.get_bw = gbs(median(gb));
      row.get_bw_max = gbs(*std::min_element(gb.begin(), gb.end()));
      row.put_bw = gbs(median(pb));
      row.put_bw_max = gbs(*std::min_element(pb.begin(), pb.end()));
      rows.push_back(row);
    }
  }
  a.sync();  // rank 1 (and any further rank) waits here while rank 0 measures
  if (rt.rank() != 0) return 0;

  const std::string sys = system_name(rt);
  std::printf(
      "\nGaea get/put sweep, rank 0 (%s) -> rank 1 (%s), %d ranks on %d node(s); median (best) "
      "of %d reps of ~%.0f ms; bandwidth: %d non-blocking ops in flight\n",
      host0, host1, rt.size(), rt.nodes(), o.reps, o.rep_ms, o.depth);
  std::printf("%10s %20s %20s %20s %20s\n", "bytes", "get lat [us]", "put+fence lat [us]",
              "get bw [GB/s]", "put bw [GB/s]");
  for (const sweep_row& r : rows)
    std::printf("%10zu %11.3f (%6.3f) %11.3f (%6.3f) %11.3f (%6.3f) %11.3f (%6.3f)\n", r.bytes,
                r.get_lat, r.get_lat_min, r.put_lat, r.put_lat_min, r.get_bw, r.get_bw_max,
                r.put_bw, r.put_bw_max);
  std::printf(
      "{\"bench\":\"rma_sweep\",\"system\":\"%s\",\"ranks\":%d,\"nodes\":%d,"
      "\"origin_host\":\"%s\",\"target_host\":\"%s\",\"same_node\":%s,\"reps\":%d,"
      "\"rep_ms\":%.1f,\"depth\":%d,\"lat_method\":\"blocking get; blocking put + fence\","
      "\"bw_method\":\"window of depth non-blocking ops; puts end with fence\",\"rows\":[",
      sys.c_str(), rt.size(), rt.nodes(), host0, host1, rt.node_id() == node1 ? "true" : "false",
      o.reps, o.rep_ms, o.depth);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const sweep_row& r = rows[i];
    std::printf(
        "%s{\"bytes\":%zu,\"get_lat_us\":%.4f,\"get_lat_us_min\":%.4f,\"put_lat_us\":%.4f,"
        "\"put_lat_us_min\":%.4f,\"get_bw_GBs\":%.5f,\"get_bw_GBs_max\":%.5f,"
        "\"put_bw_GBs\":%.5f,\"put_bw_GBs_max\":%.5f,\"ops_per_rep\":[%ld,%ld,%ld,%ld]}",
        i ? "," : "", r.bytes, r.get_lat, r.get_lat_min, r.put_lat, r.put_lat_min, r.get_bw,
        r.get_bw_max, r.put_bw, r.put_bw_max, r.get_lat_k, r.put_lat_k, r.get_bw_k, r.put_bw_k);
  }
  std::printf("]}\n");
  std::fflush(stdout);
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  options opts;
  if (const auto rc = parse_options(argc, argv, opts)) return *rc;
  const options* const o = &opts;
  // An error on any rank ends the job with its message on every rank.
  return gaea::run_main("get_bench", &argc, &argv, [&](gaea::runtime& rt) {
    if (rt.size() < 2) {
      if (rt.rank() == 0) std::fprintf(stderr, "get_bench: needs at least 2 ranks\n");
      return 2;
    }
    return o->sweep ? run_sweep(rt, *o) : run_classic(rt, *o);
  });
}
