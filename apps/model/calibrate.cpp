// gaea-model calibrate: LogGP parameters per link class from timed gets ([PGAS-BGQ eq. 7-9]).
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>

#include "commands.hpp"
#include "gaea/base/error.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/coll/estimator.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/progress/engine.hpp"
#include "measure.hpp"

namespace gaea_model {

namespace {

// The sizes the contiguous get is calibrated at; validate measures between them.
constexpr std::int64_t calibration_sizes[] = {8, 64, 512, 4096, 32768, 262144, 1048576};

// Least squares of t = a + b m weighted by 1/t^2 (each point's relative error counts alike).
std::pair<double, double> fit_line(const std::vector<double>& m, const std::vector<double>& t) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < m.size(); ++i) {
    const double w = 1.0 / (t[i] * t[i]);
    sw += w;
    sx += w * m[i];
    sy += w * t[i];
    sxx += w * m[i] * m[i];
    sxy += w * m[i] * t[i];
  }
  const double det = sw * sxx - sx * sx;
  if (det <= 0) return {t.empty() ? 0 : t[0], 0};
  const double b = (sw * sxy - sx * sy) / det;
  return {(sy - b * sx) / sw, std::max(b, 0.0)};
}

// The two-member broadcast curve between rank 0 and `target` ([Bcast-Energy]'s and coll's
// message curve): collective over the runtime, the result on rank 0.
void measure_curve(gaea::runtime& rt, int target, int reps, gaea::model::link_params& l) {
  namespace coll = gaea::coll;
  const int members[] = {0, target};
  const coll::group pair = coll::world().subset(members, "model.pair");
  std::vector<coll::measure_case> cases;
  for (const std::int64_t s : calibration_sizes)
    cases.push_back(
        {coll::operation::broadcast, coll::algorithm::automatic, static_cast<std::size_t>(s)});
  if (pair.rank() >= 0) {
    const std::vector<coll::measurement> got = coll::measure(pair, cases, reps);
    if (rt.rank() == 0)
      for (std::size_t i = 0; i < cases.size(); ++i) {
        l.curve_bytes.push_back(static_cast<double>(cases[i].bytes));
        l.curve_s.push_back(got[i].seconds);
      }
  }
  coll::barrier(coll::world());
}

// `pack_s_per_chunk` gets the packing cost per chunk (both sides' share: half the difference);
// `copy_s_per_byte` is this rank's memcpy (taken out of the active messages' per-byte cost).
gaea::model::link_params measure_link(gaea::runtime& rt, probe& p, int target, int reps,
                                      double copy_s_per_byte, double& pack_s_per_chunk) {
  std::vector<op_case> cases;
  for (const std::int64_t s : calibration_sizes)
    cases.push_back({op_kind::get, target, s, 0});
  cases.push_back({op_kind::get_issue, target, 8, 0});
  // The gap: a zero-copy strided get of 1024 chunks of 8 B against one contiguous 8 KiB get.
  cases.push_back({op_kind::strided_zero, target, 8192, 8});
  cases.push_back({op_kind::get, target, 8192, 0});
  // One active-message round trip (a fetch-and-add served by the target's progress thread)
  // against an 8 B get.
  cases.push_back({op_kind::fetch_add, target, 8, 0});
  cases.push_back({op_kind::get, target, 8, 0});
  // Packing per chunk: packed strided gets of 1024 and of 2 chunks of 8 B.
  cases.push_back({op_kind::strided_packed, target, 8192, 8});
  cases.push_back({op_kind::strided_packed, target, 16, 8});
  // An active message's payload: a packed get of 16 chunks of 4 KiB.
  cases.push_back({op_kind::strided_packed, target, 65536, 4096});
  // One uncontended atomic fetch-and-add.
  cases.push_back({op_kind::fetch_add_atomic, target, 8, 0});
  const std::vector<double> t = p.time(cases, reps);
  gaea::model::link_params l;
  if (rt.rank() != 0) return l;
  const std::size_t n = std::size(calibration_sizes);
  std::vector<double> m(calibration_sizes, calibration_sizes + n), tg(t.begin(), t.begin() + n);
  const auto [a, G] = fit_line(m, tg);
  l.G = G;
  l.o = t[n];
  l.g = std::max((t[n + 1] - t[n + 2]) / 1023, 0.0);
  l.L = std::max((a - l.o) / 2, 0.0);
  l.o_r = std::max(t[n + 3] - t[n + 4], 0.0);
  pack_s_per_chunk = std::max((t[n + 5] - t[n + 6]) / (2 * 1022), 0.0);
  constexpr double payload = 65536 - 16;
  l.G_am = std::max(
      (t[n + 7] - t[n + 6] - 2 * 14 * pack_s_per_chunk) / payload - 2 * copy_s_per_byte, 0.0);
  l.atomic = t[n + 8];
  return l;
}

std::string host_name() {
  char h[256] = {};
  ::gethostname(h, sizeof h - 1);
  return h;
}

// Per node pair: rank 0's 8 B and 64 KiB gets to every rank, as latency and per-byte cost (the
// machine keeps one set per link class; this shows how far the pairs of a class differ, as
// [PGAS-BGQ Fig. 8] does per torus distance).
void print_pairs(gaea::runtime& rt, probe& p, int reps) {
  std::vector<op_case> cases;
  for (int r = 1; r < rt.size(); ++r) {
    cases.push_back({op_kind::get, r, 8, 0});
    cases.push_back({op_kind::get, r, 65536, 0});
  }
  const std::vector<double> t = p.time(cases, std::max(3, reps / 2));
  if (rt.rank() != 0) return;
  std::printf("# rank 0 to each rank: 8 B get, and per byte from 8 B to 64 KiB\n");
  std::printf("%6s %6s %12s %14s\n", "rank", "link", "get_8B_us", "G_ns_per_byte");
  for (int r = 1; r < rt.size(); ++r) {
    const double small = t[2 * static_cast<std::size_t>(r - 1)];
    const double large = t[2 * static_cast<std::size_t>(r - 1) + 1];
    std::printf("%6d %6s %12.2f %14.4f\n", r,
                rt.comm().node_of(r) == rt.comm().node_of(0) ? "intra" : "inter", small * 1e6,
                (large - small) / (65536 - 8) * 1e9);
  }
}

}  // namespace

gaea::model::machine calibrate(gaea::runtime& rt, int reps, bool collectives) {
  if (rt.size() < 2)
    throw gaea::error(
        "gaea-model calibrate: needs at least 2 ranks (it times one rank's "
        "operations against another), got " +
        std::to_string(rt.size()));
  gaea::model::machine m;
  const int intra = first_target(rt, true), inter = first_target(rt, false);
  const local_rates r = measure_local_rates(rt);
  probe p(rt, 1 << 20);
  // Packing is the CPU's: taken from the intra-node pair when there is one.
  double pack_intra = 0, pack_inter = 0;
  if (intra >= 0) m.intra = measure_link(rt, p, intra, reps, r.copy_s_per_byte, pack_intra);
  if (inter >= 0) m.inter = measure_link(rt, p, inter, reps, r.copy_s_per_byte, pack_inter);
  m.pack_s_per_chunk = intra >= 0 ? pack_intra : pack_inter;
  if (intra >= 0) measure_curve(rt, intra, reps, m.intra);
  if (inter >= 0) measure_curve(rt, inter, reps, m.inter);
  print_pairs(rt, p, reps);
  const long cpus = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
  m.name = "calibrated-" + host_name();
  m.nodes = rt.nodes();
  m.cores_per_node = cpus;
  m.threads_per_core = 1;
  m.ranks_per_node = std::min<std::int64_t>(rt.node_size(), cpus);
  m.copy_s_per_byte = r.copy_s_per_byte;
  m.add_s_per_byte = r.add_s_per_byte;
  m.dgemm_flops_per_core = r.dgemm_flops;
  m.memory_bytes_per_node = r.memory_bytes_per_node;
  m.progress_thread = rt.progress().asynchronous();
  const std::time_t now = std::time(nullptr);
  char when[32] = {};
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  m.source = "gaea-model calibrate on " + host_name() + ", " + when + ", " +
             std::to_string(rt.size()) + " ranks on " + std::to_string(rt.nodes()) + " nodes, " +
             std::to_string(reps) + " repetitions";
  if (intra < 0) {
    m.intra = m.inter;
    m.source += "; intra not measured (one rank per node): copied from inter";
  }
  if (inter < 0) {
    m.inter = m.intra;
    m.source += "; inter not measured (one node): copied from intra";
  }
  // Rank 0 measured the parameters: every rank gets its description.
  const std::string text = gaea::coll::broadcast(
      gaea::coll::world(), rt.rank() == 0 ? gaea::model::to_json_text(m) : std::string(), 0);
  gaea::model::machine all = gaea::model::machine_from_json_text(text, "(calibrated here)");
  // Every rank fits the same estimator (its measurements are reduced across ranks).
  if (collectives)
    all.collectives = std::make_shared<const gaea::coll::estimator>(
        gaea::coll::estimator::calibrate(gaea::coll::world(), reps));
  return all;
}

}  // namespace gaea_model
