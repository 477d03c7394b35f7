// coll::measure: the time of one collective call as the estimator predicts it — every member
// starting together — measured with a common start time instead of from each member's barrier
// exit. A barrier lets its members go at different moments; a member that leaves late finds an
// early root's message already there, and timing from its own exit would see a fraction of the
// call. So member 0 names a start a little ahead on its clock, each member waits for that moment
// on its own clock (corrected by its offset from member 0's), and a call lasts from the start to
// the last member's end. Samples in which a member reached the start late are dropped, as
// window-based benchmarks do.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "detail/clock_offset.hpp"
#include "gaea/base/clock.hpp"
#include "gaea/base/detail/median.hpp"
#include "gaea/base/error.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/coll/estimator.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::coll {

namespace {

using gaea::detail::median;

options plain() {
  options o;
  o.energy = energy_mode::off;
  return o;
}

// Calls of any measured case on two buffers shared by all cases (sized for the largest), as an
// application reuses its buffers.
struct call_runner {
  const group& g;
  std::vector<double> x, y;
  call_runner(const group& grp, const std::vector<measure_case>& cases) : g(grp) {
    std::size_t n = 1;
    for (const measure_case& c : cases)
      n = std::max(n, elements(c) * static_cast<std::size_t>(g.size()));
    x.assign(n, 1.0);
    y.assign(n, 0.0);
  }
  static std::size_t elements(const measure_case& c) {
    return std::max<std::size_t>(1, c.bytes / sizeof(double));
  }
  void operator()(const measure_case& c) {
    options o = plain();
    o.algo = c.algo;
    const std::size_t elems = elements(c);
    const std::size_t all = elems * static_cast<std::size_t>(g.size());
    switch (c.op) {
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
        allgather(g, std::span<const double>(x.data(), elems), std::span<double>(y.data(), all), o);
        break;
      case operation::alltoall:
        alltoall(g, std::span<const double>(x.data(), all), std::span<double>(y.data(), all), o);
        break;
      case operation::gather:
        gather(g, std::span<const double>(x.data(), elems), std::span<double>(y.data(), all), 0, o);
        break;
      case operation::scatter:
        scatter(g, std::span<const double>(x.data(), all), std::span<double>(y.data(), elems), 0,
                o);
        break;
    }
  }
};

}  // namespace

std::vector<measurement> measure(const group& g, const std::vector<measure_case>& cases, int reps) {
  if (reps < 1)
    throw error("gaea::coll::measure: reps must be at least 1 (got " + std::to_string(reps) + ")");
  runtime& rt = runtime::current();
  call_runner run(g, cases);
  const std::size_t nc = cases.size(), nr = static_cast<std::size_t>(reps);
  for (const measure_case& c : cases)
    run(c);  // warm-up: first touch of the buffers, endpoints, the schedule's memo
  const double offset = detail::offset_from_member0(g, false).offset;
  // The lead of each start: enough for the start's broadcast to reach every member. It grows
  // when a member comes late (a loaded machine deschedules it) and shrinks back after a run of
  // punctual starts.
  double lead = 0;
  {
    std::vector<double> t(16);
    for (double& x : t) {
      barrier(g, plain());
      const double t0 = gaea::monotonic_s();
      double s[1] = {0};
      broadcast(g, std::span<double>(s), 0, plain());
      x = gaea::monotonic_s() - t0;
    }
    allreduce(g, std::span<double>(t), reduce_op::max, plain());
    lead = 20e-6 + 3 * median(t);
  }
  const double min_lead = lead;
  int punctual = 0;
  // Per case: the slowest member's time of each punctual repetition, in order; late ones; the
  // members' times summed; the meter's joules from before the wait for the start to the call's
  // end, and the wait's length. Windows without a call: the wait's joules and length.
  std::vector<std::vector<double>> times(nc), late_times(nc), sums(nc);
  std::vector<double> call_j(nc, 0.0), call_wait_s(nc, 0.0);
  std::vector<std::size_t> windows(nc, 0);
  double wait_j = 0, wait_s = 0;
  // Each round visits the cases still short of `reps` punctual repetitions, in its own order, the
  // same on every member (a fixed seed): a case always run right after the same one would carry
  // that one's after-effects (a large call's cold caches, a thread still spinning down). Every
  // decision below rests on reduced values, so all members take the same path.
  std::mt19937_64 shuffle_rng(0x6761656163ULL);
  for (std::size_t round = 0; round < 4 * nr; ++round) {
    std::vector<std::size_t> order;
    for (std::size_t c = 0; c < nc; ++c)
      if (times[c].size() < nr) order.push_back(c);
    if (order.empty()) break;
    order.push_back(nc);  // the window without a call
    std::shuffle(order.begin(), order.end(), shuffle_rng);
    for (const std::size_t c : order) {
      barrier(g, plain());
      double start[1] = {g.rank() == 0 ? gaea::monotonic_s() + lead : 0};
      broadcast(g, std::span<double>(start), 0, plain());
      const double local_start = start[0] + offset;
      // The meter is read before the wait for the start (a read after it would delay the call);
      // the wait's share is taken out at the power measured over windows without a call.
      const double j0 = rt.energy().joules, t_j0 = gaea::monotonic_s();
      const bool late = t_j0 > local_start + 1e-6;
      while (gaea::monotonic_s() < local_start) {
      }
      if (c == nc) {
        wait_j += rt.energy().joules - j0;
        wait_s += gaea::monotonic_s() - t_j0;
        continue;
      }
      run(cases[c]);
      const double mine = gaea::monotonic_s() - local_start;
      double v[2] = {late ? 1.0 : 0.0, mine};
      call_j[c] += rt.energy().joules - j0;
      call_wait_s[c] += std::max(0.0, local_start - t_j0);
      ++windows[c];
      allreduce(g, std::span<double>(v), reduce_op::max, plain());
      const double sum = allreduce(g, mine, reduce_op::sum, plain());
      if (v[0] == 0) {
        times[c].push_back(v[1]);
        sums[c].push_back(sum);
        if (++punctual >= 32) {
          lead = std::max(min_lead, 0.8 * lead);
          punctual = 0;
        }
      } else {
        late_times[c].push_back(v[1]);
        lead = std::min(2 * lead, 20e-3);
        punctual = 0;
      }
    }
  }
  const double wait_w = wait_s > 0 ? wait_j / wait_s : 0.0;
  double idle_w = wait_w;
  allreduce(g, std::span<double>(&idle_w, 1), reduce_op::sum, plain());
  idle_w /= static_cast<double>(g.size());
  for (std::size_t c = 0; c < nc; ++c)
    call_j[c] =
        windows[c] ? (call_j[c] - wait_w * call_wait_s[c]) / static_cast<double>(windows[c]) : 0.0;
  allreduce(g, std::span<double>(call_j), reduce_op::sum, plain());
  std::vector<measurement> out(nc);
  for (std::size_t c = 0; c < nc; ++c) {
    measurement& m = out[c];
    std::vector<double> use = times[c];
    // Too few punctual repetitions: the late ones too (each is from the named start, so it
    // includes the late member's delay: an upper bound).
    if (use.size() < 3) use.insert(use.end(), late_times[c].begin(), late_times[c].end());
    std::vector<double> even, odd;
    for (std::size_t r = 0; r < use.size(); ++r)
      (r % 2 ? odd : even).push_back(use[r]);
    m.seconds = median(use);
    // With no punctual repetition, every member is taken to have run as long as the slowest.
    m.member_seconds =
        sums[c].empty() ? m.seconds * static_cast<double>(g.size()) : median(sums[c]);
    m.joules = call_j[c];
    m.idle_w = idle_w;
    m.spread = !even.empty() && !odd.empty() && m.seconds > 0
                   ? std::abs(median(even) - median(odd)) / m.seconds
                   : 0;
    const double tried = static_cast<double>(times[c].size() + late_times[c].size());
    m.late = tried > 0 ? static_cast<double>(late_times[c].size()) / tried : 0;
  }
  return out;
}

}  // namespace gaea::coll
