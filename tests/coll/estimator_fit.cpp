// The estimator's fit recovers a known machine: "measurements" replayed from a known set of
// parameters (non-linear message curves, start-ups of either sign, factors, copy rate) are
// fitted, and the fitted estimator predicts sizes it was not fitted on as the known one does.
#include <catch2/catch.hpp>
#include <cmath>

#include "detail/fit.hpp"
#include "detail/shape.hpp"
#include "detail/simulate.hpp"
#include "gaea/coll/estimator.hpp"

namespace coll = gaea::coll;
namespace detail = gaea::coll::detail;

namespace {

coll::estimator known_machine() {
  coll::estimator e;
  // Shared memory with a slow fragmented range around 8 KiB; a slower link across nodes.
  e.message[0] = {{8, 4096, 8192, 16384, 1 << 20, 4 << 20},
                  {1.5e-6, 3e-6, 12e-6, 8e-6, 110e-6, 420e-6}};
  e.message[1] = {{8, 65536, 4 << 20}, {30e-6, 90e-6, 3.5e-3}};
  int i = 0;
  for (auto& op : e.ops) {
    op.call_overhead_s = 2e-6;
    op.copy_per_byte_s = 0.25e-9;
    for (auto& kind : op.steps)
      for (auto& c : kind) {
        // Deterministic spread of start-ups (some negative) and factors.
        c.start_s = (static_cast<double>(i % 5) - 1.0) * 1e-6;
        c.scale = 0.8 + 0.3 * static_cast<double>(i % 4);
        ++i;
      }
  }
  e.power_w[0] = 9.0;
  e.power_w[1] = 6.0;
  e.call_joules = 2e-6;
  return e;
}

}  // namespace

TEST_CASE("the fit recovers a known machine's predictions between the calibration sizes",
          "[coll][estimator]") {
  const coll::estimator truth = known_machine();
  struct layout {
    int size, nodes;
    bool block;
  };
  for (const layout l :
       {layout{2, 1, true}, layout{4, 2, true}, layout{3, 3, true}, layout{8, 2, false}}) {
    INFO(l.size << " members on " << l.nodes << " nodes");
    const auto g = detail::synthetic_group(l.size, l.nodes, l.block);
    const std::size_t chunk = 64 * 1024;
    std::vector<detail::calibration_point> pts;
    for (coll::operation op :
         {coll::operation::barrier, coll::operation::broadcast, coll::operation::allreduce,
          coll::operation::allgather, coll::operation::alltoall, coll::operation::gather,
          coll::operation::scatter})
      for (coll::algorithm a : coll::algorithms_of(op, l.size))
        for (std::size_t b : coll::estimator::calibration_sizes()) {
          if (op == coll::operation::barrier && b > 8) continue;
          const auto r = detail::simulate(truth, op, a, *g, b, chunk, false);
          coll::measurement m;
          m.seconds = r.seconds;
          m.member_seconds = r.class_seconds[0] + r.class_seconds[1];
          m.joules = r.joules;
          pts.push_back({op, a, b, m});
        }
    coll::estimator fitted;
    fitted.message[0] = truth.message[0];
    fitted.message[1] = truth.message[1];
    detail::fit(fitted, *g, pts);
    // Sizes between the calibration's: predictions, not fits.
    for (coll::operation op :
         {coll::operation::broadcast, coll::operation::allreduce, coll::operation::allgather,
          coll::operation::alltoall, coll::operation::gather, coll::operation::scatter})
      for (std::size_t b : {std::size_t{40}, std::size_t{1024}, std::size_t{11584},
                            std::size_t{92680}, std::size_t{524288}}) {
        const auto want = truth.predict(op, b, l.size, l.nodes, l.block);
        const auto got = fitted.predict(op, b, l.size, l.nodes, l.block);
        REQUIRE(got.size() == want.size());
        for (std::size_t k = 0; k < got.size(); ++k) {
          INFO(coll::to_string(op) << " " << coll::to_string(got[k].algo) << " " << b << " B");
          CHECK(got[k].seconds == Approx(want[k].seconds).epsilon(0.05));
          // Energy is charged on member-seconds split by link class, which the totals pin down
          // less tightly than the critical path: within 8 %.
          CHECK(got[k].joules == Approx(want[k].joules).epsilon(0.08));
        }
      }
  }
}
