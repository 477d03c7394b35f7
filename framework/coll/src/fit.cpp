// The estimator's fit: see detail/fit.hpp.
#include "detail/fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "detail/simulate.hpp"

namespace gaea::coll::detail {

namespace {

// [Bcast-Energy]'s power model: idle power on every member-second (measured between calls) plus
// an extra power per step kind and link class while a member works in such a round, fitted by
// least squares on the relative error of each point's energy; a kind fitted negative is refitted
// at 0, a kind no point runs keeps power_w.
// `sims`: each point's replay with the fitted time parameters.
void fit_step_power(estimator& e, const std::vector<calibration_point>& pts,
                    const std::vector<sim_result>& sims, std::size_t members) {
  constexpr std::size_t nk = static_cast<std::size_t>(step_kind::count_);
  e.step_power_w.assign(nk, {-1.0, -1.0});
  std::vector<double> idle;
  for (const calibration_point& p : pts)
    if (p.m.idle_w > 0) idle.push_back(p.m.idle_w);
  if (idle.empty() || pts.empty()) return;
  std::nth_element(idle.begin(), idle.begin() + static_cast<std::ptrdiff_t>(idle.size() / 2),
                   idle.end());
  e.idle_w = idle[idle.size() / 2];
  std::vector<double> used(nk * 2, 0.0);
  for (const sim_result& sim : sims)
    for (std::size_t k = 0; k < nk; ++k)
      for (std::size_t c = 0; c < 2; ++c)
        used[k * 2 + c] += sim.kind_busy_seconds[k][c];
  std::vector<std::size_t> cols;  // (kind, class) columns some point runs
  for (std::size_t i = 0; i < used.size(); ++i)
    if (used[i] > 0) cols.push_back(i);
  while (!cols.empty()) {
    const auto nc = static_cast<Eigen::Index>(cols.size());
    Eigen::MatrixXd A(static_cast<Eigen::Index>(pts.size()), nc + 1);
    Eigen::VectorXd b(static_cast<Eigen::Index>(pts.size()));
    for (std::size_t r = 0; r < pts.size(); ++r) {
      const auto row = static_cast<Eigen::Index>(r);
      const sim_result& sim = sims[r];
      const double w = pts[r].m.joules > 0 ? 1.0 / pts[r].m.joules : 0.0;
      double target = pts[r].m.joules;
      for (std::size_t c = 0; c < 2; ++c) {
        double in_kinds = 0;
        for (std::size_t k = 0; k < nk; ++k)
          in_kinds += sim.kind_seconds[k][c];
        target -= e.idle_w * in_kinds;
        target -= std::max(0.0, sim.class_seconds[c] - in_kinds) * e.power_w[c];  // set-up
      }
      for (Eigen::Index j = 0; j < nc; ++j) {
        const std::size_t i = cols[static_cast<std::size_t>(j)];
        A(row, j) = sim.kind_busy_seconds[i / 2][i % 2] * w;
      }
      A(row, nc) = static_cast<double>(members) * w;
      b(row) = target * w;
    }
    const Eigen::VectorXd x = A.completeOrthogonalDecomposition().solve(b);
    Eigen::Index worst = -1;
    for (Eigen::Index j = 0; j < nc; ++j)
      if (x(j) < 0 && (worst < 0 || x(j) < x(worst))) worst = j;
    if (worst >= 0) {  // no negative extra power: that kind runs at idle power, refit the rest
      const std::size_t i = cols[static_cast<std::size_t>(worst)];
      e.step_power_w[i / 2][i % 2] = 0;
      cols.erase(cols.begin() + worst);
      continue;
    }
    for (Eigen::Index j = 0; j < nc; ++j) {
      const std::size_t i = cols[static_cast<std::size_t>(j)];
      e.step_power_w[i / 2][i % 2] = x(j);
    }
    e.call_joules = std::max(0.0, x(nc));
    break;
  }
}

}  // namespace

double fit(estimator& e, const group_state& model, const std::vector<calibration_point>& pts) {
  using op_params = estimator::op_params;
  const std::size_t chunk = 64 * 1024;
  // Time: weighted least squares on the relative error of the totals — the slowest member's time
  // and the member-seconds. The regressors are the critical path's (or every member's path's)
  // message counts and curve times, which depend on the parameters: refit until they settle.
  // The member-seconds tell apart what the critical path alone cannot (a call's set-up on every
  // member from a start-up on the path), and they are what the energy is charged on.
  constexpr std::size_t nf = feature_count;
  // Each operation gets its own parameters, fitted on its own algorithms ([Bcast-Energy]
  // calibrates per operation too): one set for all would trade one family's error for another's.
  for (std::size_t op = 0; op < e.ops.size(); ++op) {
    std::vector<const calibration_point*> mine;
    for (const calibration_point& p : pts)
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
    // 40 rounds: 6 left the critical paths of an 8-member cyclic layout unsettled in the
    // known-machine test (tests/coll/estimator_fit.cpp); each round is a replay per point.
    for (int iter = 0; iter < 40; ++iter) {
      const auto rows = static_cast<Eigen::Index>(2 * mine.size());
      Eigen::MatrixXd A = Eigen::MatrixXd::Zero(rows, static_cast<Eigen::Index>(nf));
      Eigen::VectorXd b = Eigen::VectorXd::Zero(rows);
      for (std::size_t r = 0; r < mine.size(); ++r) {
        const sim_result sim =
            simulate(e, mine[r]->op, mine[r]->algo, model, mine[r]->bytes, chunk, true);
        const measurement& m = mine[r]->m;
        for (int which = 0; which < 2; ++which) {
          const double y = which == 0 ? m.seconds : m.member_seconds;
          if (!(y > 0)) continue;  // not measured: the row stays empty
          const auto row = static_cast<Eigen::Index>(2 * r + static_cast<std::size_t>(which));
          const std::vector<double>& f = which == 0 ? sim.features : sim.member_features;
          for (std::size_t c = 0; c < nf; ++c)
            A(row, static_cast<Eigen::Index>(c)) = f[c] / y;
          b(row) = 1;
        }
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
        Eigen::VectorXd scale = As.colwise().norm().transpose();
        for (Eigen::Index q = 0; q < scale.size(); ++q)
          if (scale(q) == 0) scale(q) = 1;
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
  // The power fits and the in-sample error replay every point with the time parameters as
  // fitted; power does not change a replay's times.
  std::vector<sim_result> sims;
  sims.reserve(pts.size());
  for (const calibration_point& q : pts)
    sims.push_back(simulate(e, q.op, q.algo, model, q.bytes, chunk, false));
  // Power: joules = p_intra * intra member-seconds + p_inter * inter member-seconds
  //                 + e_call * members (what every member spends on a call whatever its length:
  //                 the meter's own reading, setting the call up).
  {
    const bool two = model.nodes() > 1;
    const Eigen::Index cols = two ? 3 : 2, last = cols - 1;
    Eigen::MatrixXd A(static_cast<Eigen::Index>(pts.size()), cols);
    Eigen::VectorXd b(static_cast<Eigen::Index>(pts.size()));
    for (std::size_t r = 0; r < pts.size(); ++r) {
      const auto row = static_cast<Eigen::Index>(r);
      const sim_result& sim = sims[r];
      const double w = pts[r].m.joules > 0 ? 1.0 / pts[r].m.joules : 0.0;
      A(row, 0) = (two ? sim.class_seconds[0] : sim.class_seconds[0] + sim.class_seconds[1]) * w;
      if (two) A(row, 1) = sim.class_seconds[1] * w;
      A(row, last) = static_cast<double>(model.size()) * w;
      b(row) = w > 0 ? 1.0 : 0.0;
    }
    Eigen::VectorXd p = A.completeOrthogonalDecomposition().solve(b);
    if (p(last) < 0) {  // no negative energy per call: refit the powers alone
      p = A.leftCols(last).completeOrthogonalDecomposition().solve(b);
      p.conservativeResize(cols);
      p(last) = 0;
    }
    e.power_w[0] = std::max(0.0, p(0));
    e.power_w[1] = two ? std::max(0.0, p(1)) : e.power_w[0];
    e.call_joules = p(last);
  }
  fit_step_power(e, pts, sims, static_cast<std::size_t>(model.size()));
  double in_sample = 0;
  for (std::size_t r = 0; r < pts.size(); ++r)
    in_sample += std::abs(sims[r].seconds / pts[r].m.seconds - 1);
  return in_sample / static_cast<double>(std::max<std::size_t>(1, pts.size()));
}

}  // namespace gaea::coll::detail
