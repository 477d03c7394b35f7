// gaea-coll sweep: the measured time of every algorithm over a range of sizes (interleaved),
// to see where an algorithm's cost bends before fitting a model to it.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/coll/collectives.hpp"

namespace gaea_coll {

namespace coll = gaea::coll;

int sweep(gaea::runtime& rt, const coll::group& w, const std::vector<coll::operation>& ops,
          std::size_t min_bytes, std::size_t max_bytes, int reps, const std::string& json_out) {
  std::vector<coll::measure_case> cases;
  for (coll::operation op : ops)
    for (coll::algorithm a : coll::algorithms_of(op, w.size()))
      for (std::size_t b = min_bytes; b <= max_bytes; b *= 2)
        cases.push_back({op, a, b});
  const std::vector<coll::measurement> ms = coll::measure(w, cases, reps);
  if (w.rank() != 0) return 0;
  std::printf("# %d ranks on %d nodes, %d repetitions, meter %s\n", w.size(), w.nodes(), reps,
              rt.energy().source.c_str());
  std::printf("%-10s %-18s %10s %12s %8s %12s\n", "op", "algorithm", "bytes", "time_us", "noise_%",
              "energy_mJ");
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    std::printf("%-10s %-18s %10zu %12.2f %8.1f %12.4f\n",
                std::string(coll::to_string(c.op)).c_str(),
                std::string(coll::to_string(c.algo)).c_str(), c.bytes, ms[i].seconds * 1e6,
                100 * ms[i].spread, ms[i].joules * 1e3);
    rows.push_back({{"op", coll::to_string(c.op)},
                    {"algorithm", coll::to_string(c.algo)},
                    {"bytes", c.bytes},
                    {"seconds", ms[i].seconds},
                    {"noise", ms[i].spread},
                    {"late", ms[i].late},
                    {"joules", ms[i].joules}});
  }
  if (!json_out.empty()) {
    const nlohmann::json j{
        {"ranks", w.size()}, {"nodes", w.nodes()}, {"reps", reps}, {"rows", rows}};
    gaea::output_file file(json_out, "gaea-coll sweep --json");
    file.write(j.dump(2) + "\n");
    file.commit();
  }
  return 0;
}

}  // namespace gaea_coll
