// Calibration of the estimator ([Bcast-Energy]): measure every algorithm at a few sizes, then fit
// the step costs to the measured totals.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "detail/fit.hpp"
#include "detail/shape.hpp"
#include "gaea/base/error.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/coll/estimator.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::coll {

namespace {

constexpr std::size_t op_sizes[] = {8, 256, 4096, 32768, 262144, std::size_t{1} << 20};

// Sizes of the message curves: powers of two and one and a half times them, 8 B to 4 MiB, so
// that a transport's protocol switches (eager, fragmented, rendezvous) fall between close points.
std::vector<std::size_t> curve_sizes() {
  std::vector<std::size_t> out;
  for (std::size_t b = 8; b <= (std::size_t{4} << 20); b *= 2) {
    out.push_back(b);
    if (b < (std::size_t{4} << 20)) out.push_back(b + b / 2);
  }
  return out;
}

// Collective over `g`: the message curve of each link class the group has, measured as a
// two-member broadcast between member 0 and its first node-mate / first member on another node
// (the others wait); every member gets the result. A class the group lacks keeps the default.
void measure_curves(const group& g, estimator& e, int reps) {
  const std::vector<std::size_t> sizes = curve_sizes();
  for (int c = 0; c < 2; ++c) {
    int peer = -1;
    for (int i = 1; i < g.size() && peer < 0; ++i)
      if ((g.node_of(i) == g.node_of(0)) == (c == 0)) peer = i;
    if (peer < 0) continue;
    const int members[] = {0, peer};
    const group pair = g.subset(members);
    std::vector<double> t(sizes.size(), 0.0);
    if (pair.rank() >= 0) {
      std::vector<measure_case> cases;
      for (std::size_t b : sizes)
        cases.push_back({operation::broadcast, algorithm::binomial, b});
      const std::vector<measurement> ms = measure(pair, cases, reps);
      for (std::size_t i = 0; i < ms.size(); ++i)
        t[i] = ms[i].seconds;
    }
    broadcast(g, std::span<double>(t), 0);
    e.message[c].bytes.assign(sizes.begin(), sizes.end());
    e.message[c].seconds = t;
  }
}

}  // namespace

std::span<const std::size_t> estimator::calibration_sizes() noexcept {
  return op_sizes;
}

estimator estimator::calibrate(const group& g, int reps, const std::vector<measure_case>& extra,
                               std::vector<measurement>* extra_out) {
  runtime& rt = runtime::current();
  const int n = g.size();
  std::vector<measure_case> cases;
  for (operation op :
       {operation::barrier, operation::broadcast, operation::allreduce, operation::allgather,
        operation::alltoall, operation::gather, operation::scatter}) {
    for (algorithm a : algorithms_of(op, n)) {
      for (std::size_t bytes : calibration_sizes()) {
        if (op == operation::barrier && bytes > 8) continue;
        if (op == operation::alltoall && bytes > 65536) continue;
        cases.push_back({op, a, bytes});
      }
    }
  }
  const std::size_t own = cases.size();
  cases.insert(cases.end(), extra.begin(), extra.end());
  estimator e;
  measure_curves(g, e, reps);
  const std::vector<measurement> ms = measure(g, cases, reps);
  if (extra_out) extra_out->assign(ms.begin() + static_cast<long>(own), ms.end());
  std::vector<detail::calibration_point> pts;
  for (std::size_t i = 0; i < own; ++i)
    pts.push_back({cases[i].op, cases[i].algo, cases[i].bytes, ms[i]});
  const auto shape = detail::synthetic_group(n, g.nodes(), g.block_placement());
  detail::group_state model = *shape;
  // Members' real nodes (the synthetic layout is only for the counts).
  for (int i = 0; i < n; ++i)
    model.node[static_cast<std::size_t>(i)] = g.node_of(i);
  model.node_members.assign(static_cast<std::size_t>(g.nodes()), {});
  for (int i = 0; i < n; ++i)
    model.node_members[static_cast<std::size_t>(g.node_of(i))].push_back(i);
  // How well the fit reproduces its own measurements (in the source line).
  const double in_sample = detail::fit(e, model, pts);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  e.source_ = "calibrated on " + std::string(host) + " (" + std::to_string(n) + " ranks, " +
              std::to_string(g.nodes()) + " nodes, " + std::to_string(pts.size()) +
              " measurements, meter " + rt.energy().source + ", fit within " +
              std::to_string(static_cast<int>(std::lround(100 * in_sample))) + " % on them)";
  return e;
}

}  // namespace gaea::coll
