// Timed one-sided operations, the fetch-and-add experiment and local rates (measure.hpp).
#include "measure.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>

#include "gaea/base/clock.hpp"
#include "gaea/base/detail/median.hpp"
#include "gaea/base/nonblocking.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/ga/protocol.hpp"
#include "gaea/progress/engine.hpp"

namespace gaea_model {

namespace {

using gaea::monotonic_s;
namespace ga = gaea::ga;
namespace coll = gaea::coll;

constexpr std::int64_t strided_rows = 1024;  // chunks of a strided case: up to 1024
constexpr std::int64_t strided_cols = 512;   // doubles per row: chunks up to 4 KiB (4 MiB
                                             // in all: under an 8 MiB locked-memory limit)
constexpr int burst = 64;                    // messages of get_issue

// Seconds per call aimed at for one timed batch: long enough for the clock, short enough to
// interleave many cases.
constexpr double batch_s = 2e-3;

}  // namespace

const char* to_string(op_kind k) {
  switch (k) {
    case op_kind::get:
      return "get";
    case op_kind::put:
      return "put";
    case op_kind::get_issue:
      return "get_issue";
    case op_kind::fetch_add:
      return "fetch_add";
    case op_kind::fetch_add_atomic:
      return "fetch_add_atomic";
    case op_kind::strided_zero:
      return "strided_zero_copy";
    case op_kind::strided_packed:
      return "strided_packed";
    case op_kind::acc_target:
      return "acc_target";
    case op_kind::acc_source:
      return "acc_source";
  }
  return "?";
}

probe::probe(gaea::runtime& rt, std::int64_t max_bytes)
    : rt_(rt),
      max_bytes_(std::max<std::int64_t>(max_bytes, 8)),
      rows_(strided_rows),
      cols_(strided_cols),
      flat_("model.probe.flat", {rt.size() * (max_bytes_ / 8)}, ga::index{max_bytes_ / 8}),
      grid_("model.probe.grid", {rt.size() * strided_rows, strided_cols},
            ga::index{strided_rows, strided_cols}),
      buf_(static_cast<std::size_t>(std::max(max_bytes_ / 8, strided_rows * strided_cols)), 1.0) {
  flat_.fill(1.0);
  grid_.fill(1.0);
  for (int r = 0; r < rt.size(); ++r) {
    counters_.emplace_back("model.probe.counter", r, 0, gaea::counters::counter_mode::progress);
    atomics_.emplace_back("model.probe.atomic", r, 0, gaea::counters::counter_mode::atomic);
  }
}

double probe::run(const op_case& c, int calls) {
  const std::int64_t n = std::max<std::int64_t>(c.bytes / 8, 1);
  const std::int64_t base = c.target * (max_bytes_ / 8);
  const ga::patch flat{{base}, {base + n - 1}};
  std::span<double> buf(buf_.data(), static_cast<std::size_t>(n));
  const double t0 = monotonic_s();
  switch (c.kind) {
    case op_kind::get:
      for (int i = 0; i < calls; ++i)
        flat_.get(flat, buf);
      break;
    case op_kind::put:
      for (int i = 0; i < calls; ++i) {
        flat_.put(flat, buf);
        flat_.fence();
      }
      break;
    case op_kind::get_issue: {
      // Only the issuing of a burst of non-blocking gets is timed; they complete afterwards.
      std::vector<ga::request> reqs;
      reqs.reserve(burst);
      double issue = 0;
      for (int i = 0; i < calls; ++i) {
        const double b = monotonic_s();
        for (int k = 0; k < burst; ++k)
          reqs.push_back(flat_.get({{base + k}, {base + k}}, std::span<double>(buf_.data() + k, 1),
                                   gaea::nonblocking));
        issue += monotonic_s() - b;
        for (auto& r : reqs)
          r.wait();
        reqs.clear();
      }
      return issue / calls / burst;
    }
    case op_kind::fetch_add:
      for (int i = 0; i < calls; ++i)
        counters_[static_cast<std::size_t>(c.target)].fetch_add(1);
      break;
    case op_kind::fetch_add_atomic:
      for (int i = 0; i < calls; ++i)
        atomics_[static_cast<std::size_t>(c.target)].fetch_add(1);
      break;
    case op_kind::strided_zero:
    case op_kind::strided_packed: {
      const std::int64_t w = std::max<std::int64_t>(c.chunk / 8, 1);
      const std::int64_t k = std::max<std::int64_t>(n / w, 1);
      const ga::patch p{{c.target * rows_, 0}, {c.target * rows_ + k - 1, w - 1}};
      ga::scoped_strided_protocol scope(c.kind == op_kind::strided_zero
                                            ? ga::strided_protocol::zero_copy
                                            : ga::strided_protocol::packed);
      for (int i = 0; i < calls; ++i)
        grid_.get(p, std::span<double>(buf_.data(), static_cast<std::size_t>(k * w)));
      break;
    }
    case op_kind::acc_target:
    case op_kind::acc_source: {
      ga::scoped_acc_protocol scope(c.kind == op_kind::acc_target
                                        ? ga::acc_protocol::target_driven
                                        : ga::acc_protocol::source_driven);
      for (int i = 0; i < calls; ++i) {
        flat_.acc(flat, std::span<const double>(buf.data(), buf.size()), 1e-12);
        flat_.fence();
      }
      break;
    }
  }
  return (monotonic_s() - t0) / calls;
}

std::vector<double> probe::time(const std::vector<op_case>& cases, int reps) {
  const coll::group& w = coll::world();
  const bool origin = rt_.rank() == 0;
  // Calls per batch from one warm-up call per case (rank 0 only runs operations).
  std::vector<int> calls(cases.size(), 1);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    coll::barrier(w);
    if (origin) {
      const double t = run(cases[i], 1);
      calls[i] = static_cast<int>(std::clamp(batch_s / std::max(t, 1e-7), 10.0, 2000.0));
    }
  }
  std::vector<std::vector<double>> samples(cases.size());
  std::vector<std::size_t> order(cases.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 shuffle(12345);  // the same order on every rank
  for (int r = 0; r < reps; ++r) {
    std::shuffle(order.begin(), order.end(), shuffle);
    for (const std::size_t i : order) {
      coll::barrier(w);
      if (!origin) continue;
      // One untimed call first: after the barrier the target's progress thread may be asleep
      // (auto, interrupt), and waking it is not the operation's cost.
      run(cases[i], 1);
      samples[i].push_back(run(cases[i], calls[i]));
    }
  }
  coll::barrier(w);
  std::vector<double> out(cases.size(), 0);
  if (origin)
    for (std::size_t i = 0; i < cases.size(); ++i)
      out[i] = gaea::detail::median(samples[i]);
  return out;
}

int first_target(gaea::runtime& rt, bool same_node) {
  for (int r = 1; r < rt.size(); ++r)
    if ((rt.comm().node_of(r) == rt.comm().node_of(0)) == same_node) return r;
  return -1;
}

double compute_kernel(double seconds) {
  const double until = monotonic_s() + seconds;
  double x = 1.0;
  do {
    for (int i = 0; i < 64; ++i)
      x = x * 1.0000001 + 1e-9;
  } while (monotonic_s() < until);
  return x;
}

double fetch_add_latency(gaea::runtime& rt, gaea::counters::counter_mode mode,
                         double owner_compute_s, int calls, int reps) {
  const coll::group& w = coll::world();
  gaea::counters::shared_counter c("model.fetch_add", 0, 0, mode);
  const std::int64_t total = static_cast<std::int64_t>(calls) * (rt.size() - 1);
  std::vector<double> runs;
  volatile double sink = 0;
  for (int r = 0; r < reps; ++r) {
    c.reset(0);
    coll::barrier(w);
    double mine = 0;
    if (rt.rank() == 0) {
      if (owner_compute_s > 0)
        while (c.read() < total) {
          sink = sink + compute_kernel(owner_compute_s);
          gaea::poll();
        }
    } else {
      const double t0 = monotonic_s();
      for (int i = 0; i < calls; ++i)
        c.fetch_add(1);
      mine = (monotonic_s() - t0) / calls;
    }
    const double sum = coll::allreduce(w, mine, coll::reduce_op::sum);
    runs.push_back(rt.size() > 1 ? sum / (rt.size() - 1) : 0);
  }
  return gaea::detail::median(runs);
}

local_rates measure_local_rates(gaea::runtime& rt) {
  local_rates out;
  constexpr std::size_t n = 256 * 1024 / sizeof(double);
  std::vector<double> a(n, 1.0), b(n, 2.0);
  std::vector<double> copy, add;
  for (int i = 0; i < 9; ++i) {
    double t0 = monotonic_s();
    std::memcpy(b.data(), a.data(), n * sizeof(double));
    copy.push_back((monotonic_s() - t0) / (n * sizeof(double)));
    t0 = monotonic_s();
    for (std::size_t k = 0; k < n; ++k)
      b[k] += 1e-9 * a[k];
    add.push_back((monotonic_s() - t0) / (n * sizeof(double)));
    a[static_cast<std::size_t>(i)] = b[n - 1 - static_cast<std::size_t>(i)];
  }
  out.copy_s_per_byte = gaea::detail::median(copy);
  out.add_s_per_byte = gaea::detail::median(add);
  {
    constexpr int m = 256;
    Eigen::MatrixXd x = Eigen::MatrixXd::Random(m, m), y = Eigen::MatrixXd::Random(m, m),
                    z = Eigen::MatrixXd::Zero(m, m);
    std::vector<double> rate;
    for (int i = 0; i < 5; ++i) {
      const double t0 = monotonic_s();
      z.noalias() += x * y;
      rate.push_back(2.0 * m * m * m / (monotonic_s() - t0));
    }
    out.dgemm_flops = gaea::detail::median(rate) + 0 * z(0, 0);
  }
  {
    // Every rank of the node streams at once; the node's bandwidth is their sum (read + write).
    constexpr std::size_t big = 8u << 20;  // doubles: 64 MiB per array
    std::vector<double> s(big, 1.0), d(big, 0.0);
    std::vector<double> bw;
    for (int i = 0; i < 3; ++i) {
      coll::barrier(coll::world());
      const double t0 = monotonic_s();
      std::memcpy(d.data(), s.data(), big * sizeof(double));
      bw.push_back(2.0 * big * sizeof(double) / (monotonic_s() - t0));
    }
    const double mine = gaea::detail::median(bw);
    // Sum over the ranks of each node, then the mean over nodes.
    const double all = coll::allreduce(coll::world(), mine, coll::reduce_op::sum);
    out.memory_bytes_per_node = all / rt.nodes();
  }
  return out;
}

}  // namespace gaea_model
