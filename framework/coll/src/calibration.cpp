// Calibration of the estimator ([Bcast-Energy]): measure every algorithm at a few sizes, then fit
// the step costs to the measured totals.
#include <unistd.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "detail/shape.hpp"
#include "detail/simulate.hpp"
#include "gaea/base/error.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/coll/estimator.hpp"
#include "gaea/progress/clock.hpp"
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

estimator estimator::calibrate(const group& g, int reps) {
  runtime& rt = runtime::current();
  const int n = g.size();
  struct point {
    operation op;
    algorithm a;
    std::size_t bytes;
    measurement m;
  };
  std::vector<measure_case> cases;
  for (operation op : {operation::barrier, operation::broadcast, operation::allreduce,
                       operation::allgather, operation::alltoall}) {
    for (algorithm a : detail::candidates(op, n)) {
      for (std::size_t bytes : calibration_sizes()) {
        if (op == operation::barrier && bytes > 8) continue;
        if (op == operation::alltoall && bytes > 65536) continue;
        cases.push_back({op, a, bytes});
      }
    }
  }
  estimator e;
  measure_curves(g, e, reps);
  const std::vector<measurement> ms = measure(g, cases, reps);
  std::vector<point> pts;
  for (std::size_t i = 0; i < cases.size(); ++i)
    pts.push_back({cases[i].op, cases[i].algo, cases[i].bytes, ms[i]});
  const auto shape = detail::synthetic_group(n, g.nodes(), g.block_placement());
  detail::group_state model = *shape;
  // Members' real nodes (the synthetic layout is only for the counts).
  for (int i = 0; i < n; ++i)
    model.node[static_cast<std::size_t>(i)] = g.node_of(i);
  model.node_members.assign(static_cast<std::size_t>(g.nodes()), {});
  for (int i = 0; i < n; ++i)
    model.node_members[static_cast<std::size_t>(g.node_of(i))].push_back(i);
  const std::size_t chunk = 64 * 1024;
  // Time: weighted least squares on the relative error of the totals. The regressors are the
  // critical path's counts and bytes, which depend on the parameters: refit until they settle.
  constexpr std::size_t nf = detail::feature_count;
  // Each operation gets its own parameters, fitted on its own algorithms ([Bcast-Energy]
  // calibrates per operation too): one set for all would trade one family's error for another's.
  for (std::size_t op = 0; op < e.ops.size(); ++op) {
    std::vector<const point*> mine;
    for (const point& p : pts)
      if (static_cast<std::size_t>(p.op) == op) mine.push_back(&p);
    if (mine.empty()) continue;
    op_params& prm = e.ops[op];
    auto get = [&](std::size_t i) -> double& {
      if (i == 0) return prm.call_overhead_s;
      if (i == nf - 1) return prm.copy_per_byte_s;
      const std::size_t k = (i - 1) / 4, c = ((i - 1) / 2) % 2;
      step_cost& sc = prm.steps[k][c];
      return (i - 1) % 2 == 0 ? sc.start_s : sc.scale;
    };
    // The call overhead and the start-ups are relative to the curves (which hold one call's
    // set-up) and may come out negative; the factors on the curves and the copy rate may not.
    auto constrained = [&](std::size_t i) { return i == nf - 1 || (i != 0 && (i - 1) % 2 == 1); };
    for (int iter = 0; iter < 6; ++iter) {
      const auto rows = static_cast<Eigen::Index>(mine.size());
      Eigen::MatrixXd A(rows, static_cast<Eigen::Index>(nf));
      Eigen::VectorXd b = Eigen::VectorXd::Ones(rows);
      for (std::size_t r = 0; r < mine.size(); ++r) {
        const auto f =
            detail::simulate(e, mine[r]->op, mine[r]->a, model, mine[r]->bytes, chunk, true)
                .features;
        const double w = 1.0 / mine[r]->m.seconds;
        for (std::size_t c = 0; c < nf; ++c)
          A(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = f[c] * w;
      }
      // Columns no measurement exercises keep their values; negative fits are pinned to 0 and
      // the rest refitted (non-negative least squares, active-set style).
      std::vector<std::size_t> active;
      for (std::size_t c = 0; c < nf; ++c)
        if (A.col(static_cast<Eigen::Index>(c)).cwiseAbs().maxCoeff() > 0) active.push_back(c);
      while (!active.empty()) {
        Eigen::MatrixXd As(rows, static_cast<Eigen::Index>(active.size()));
        for (std::size_t q = 0; q < active.size(); ++q)
          As.col(static_cast<Eigen::Index>(q)) = A.col(static_cast<Eigen::Index>(active[q]));
        const Eigen::VectorXd scale = As.colwise().norm().transpose();
        for (Eigen::Index q = 0; q < scale.size(); ++q)
          As.col(q) /= scale(q);
        const Eigen::VectorXd x = As.completeOrthogonalDecomposition().solve(b);
        std::size_t worst = active.size();
        double worst_v = 0;
        for (std::size_t q = 0; q < active.size(); ++q) {
          const double v = x(static_cast<Eigen::Index>(q)) / scale(static_cast<Eigen::Index>(q));
          if (constrained(active[q]) && v < worst_v) {
            worst_v = v;
            worst = q;
          }
        }
        if (worst == active.size()) {
          for (std::size_t q = 0; q < active.size(); ++q)
            get(active[q]) = x(static_cast<Eigen::Index>(q)) / scale(static_cast<Eigen::Index>(q));
          break;
        }
        get(active[worst]) = 0;
        active.erase(active.begin() + static_cast<long>(worst));
      }
    }
    for (auto& k : prm.steps)
      for (auto& c : k)
        c.samples = mine.size();
  }
  // Reduce is not measured on its own: its tree steps behave as allreduce's.
  e.ops[static_cast<std::size_t>(operation::reduce)] =
      e.ops[static_cast<std::size_t>(operation::allreduce)];
  // Power: joules = p_intra * intra member-seconds + p_inter * inter member-seconds.
  {
    const bool two = g.nodes() > 1;
    Eigen::MatrixXd A(static_cast<Eigen::Index>(pts.size()), two ? 2 : 1);
    Eigen::VectorXd b(static_cast<Eigen::Index>(pts.size()));
    for (std::size_t r = 0; r < pts.size(); ++r) {
      const auto sim = detail::simulate(e, pts[r].op, pts[r].a, model, pts[r].bytes, chunk, false);
      const double w = pts[r].m.joules > 0 ? 1.0 / pts[r].m.joules : 0.0;
      A(static_cast<Eigen::Index>(r), 0) =
          (two ? sim.class_seconds[0] : sim.class_seconds[0] + sim.class_seconds[1]) * w;
      if (two) A(static_cast<Eigen::Index>(r), 1) = sim.class_seconds[1] * w;
      b(static_cast<Eigen::Index>(r)) = w > 0 ? 1.0 : 0.0;
    }
    const Eigen::VectorXd p = A.completeOrthogonalDecomposition().solve(b);
    e.power_w[0] = std::max(0.0, p(0));
    e.power_w[1] = two ? std::max(0.0, p(1)) : e.power_w[0];
  }
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  e.source_ = "calibrated on " + std::string(host) + " (" + std::to_string(n) + " ranks, " +
              std::to_string(g.nodes()) + " nodes, " + std::to_string(pts.size()) +
              " measurements, meter " + rt.energy().source + ")";
  return e;
}

}  // namespace gaea::coll
