// Calibration of the estimator ([Bcast-Energy]): measure every algorithm at a few sizes, then fit
// the step costs to the measured totals.
#include <unistd.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "detail/shape.hpp"
#include "detail/simulate.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/coll/estimator.hpp"
#include "gaea/progress/clock.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::coll {

namespace {

double now_s() {
  return static_cast<double>(progress::monotonic_ns()) * 1e-9;
}

// One call of `a` on buffers sized as predict() reads `bytes`.
struct call_runner {
  const group& g;
  operation op;
  options o;
  std::size_t elems;
  std::vector<double> x, y;
  call_runner(const group& grp, operation op_, algorithm a, std::size_t bytes)
      : g(grp), op(op_), elems(std::max<std::size_t>(1, bytes / 8)) {
    o.algo = a;
    o.energy = energy_mode::off;
    const std::size_t n = elems * static_cast<std::size_t>(g.size());
    x.assign(n, 1.0);
    y.assign(n, 0.0);
  }
  void operator()() {
    switch (op) {
      case operation::barrier:
        barrier(g, o);
        break;
      case operation::broadcast:
        broadcast(g, std::span<double>(x.data(), elems), 0, o);
        break;
      case operation::reduce:
        reduce(g, std::span<const double>(x.data(), elems), std::span<double>(y.data(), elems),
               reduce_op::sum, 0, o);
        break;
      case operation::allreduce:
        allreduce(g, std::span<double>(x.data(), elems), reduce_op::sum, o);
        break;
      case operation::allgather:
        allgather(g, std::span<const double>(x.data(), elems), std::span<double>(y), o);
        break;
      case operation::alltoall:
        alltoall(g, std::span<const double>(x), std::span<double>(y), o);
        break;
      case operation::gather:
        gather(g, std::span<const double>(x.data(), elems), std::span<double>(y), 0, o);
        break;
      case operation::scatter:
        scatter(g, std::span<const double>(x), std::span<double>(y.data(), elems), 0, o);
        break;
    }
  }
};

}  // namespace

measurement measure(const group& g, operation op, algorithm a, std::size_t bytes, int reps) {
  runtime& rt = runtime::current();
  call_runner run(g, op, a, bytes);
  options plain;
  plain.algo = algorithm::dissemination;
  plain.energy = energy_mode::off;
  run();  // warm-up: first-touch of the buffers, endpoints
  std::vector<double> dt(static_cast<std::size_t>(reps));
  barrier(g, plain);
  const double j0 = rt.energy().joules, w0 = now_s();
  for (int r = 0; r < reps; ++r) {
    barrier(g, plain);
    const double t0 = now_s();
    run();
    dt[static_cast<std::size_t>(r)] = now_s() - t0;
  }
  const double call_j = rt.energy().joules - j0, call_w = now_s() - w0;
  // The same loop with barriers only: what the calls add is the difference.
  const double j1 = rt.energy().joules, w1 = now_s();
  for (int r = 0; r < reps; ++r)
    barrier(g, plain);
  const double base_j = rt.energy().joules - j1, base_w = now_s() - w1;
  (void)call_w;
  (void)base_w;
  allreduce(g, std::span<double>(dt), reduce_op::max);
  std::nth_element(dt.begin(), dt.begin() + static_cast<long>(dt.size() / 2), dt.end());
  measurement m;
  m.seconds = dt[dt.size() / 2];
  m.joules = allreduce(g, (call_j - base_j) / reps, reduce_op::sum);
  return m;
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
  std::vector<point> pts;
  for (operation op : {operation::barrier, operation::broadcast, operation::allreduce,
                       operation::allgather, operation::alltoall}) {
    for (algorithm a : detail::candidates(op, n)) {
      for (std::size_t bytes : {std::size_t{8}, std::size_t{256}, std::size_t{4096},
                                std::size_t{32768}, std::size_t{262144}, std::size_t{1} << 20}) {
        if (op == operation::barrier && bytes > 8) continue;
        if (op == operation::alltoall && bytes > 65536) continue;
        pts.push_back({op, a, bytes, measure(g, op, a, bytes, reps)});
      }
    }
  }
  estimator e;
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
      return (i - 1) % 2 == 0 ? sc.start_s : sc.per_byte_s;
    };
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
          if (v < worst_v) {
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
