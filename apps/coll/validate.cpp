// gaea-coll validate: [Bcast-Energy]'s check of the estimator, predicted vs measured per
// algorithm and size, with each point's own noise beside the error.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/coll/collectives.hpp"

namespace gaea_coll {

namespace coll = gaea::coll;

std::vector<coll::measure_case> validation_cases(const coll::group& w,
                                                 const std::vector<coll::operation>& ops,
                                                 const std::vector<std::size_t>& sizes) {
  // In predict()'s order: operation, size, then algorithm.
  std::vector<coll::measure_case> out;
  for (coll::operation op : ops)
    for (std::size_t b : sizes) {
      if (op == coll::operation::alltoall && b > 65536) continue;
      for (coll::algorithm a : coll::algorithms_of(op, w.size()))
        out.push_back({op, a, b});
    }
  return out;
}

std::vector<std::size_t> validation_sizes() {
  const auto cal = coll::estimator::calibration_sizes();
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i + 1 < cal.size(); ++i) {
    const double mid = std::sqrt(static_cast<double>(cal[i]) * static_cast<double>(cal[i + 1]));
    out.push_back(std::max<std::size_t>(8, static_cast<std::size_t>(mid / 8) * 8));
  }
  return out;
}

int validate(gaea::runtime& rt, const coll::group& w, const coll::estimator& e,
             const std::vector<coll::operation>& ops, const std::vector<std::size_t>& sizes,
             int reps, const std::string& json_out,
             const std::vector<coll::measurement>* same_run) {
  struct row {
    coll::operation op;
    std::size_t bytes;
    coll::prediction pred;
    bool chosen = false;
    bool best = false;
    coll::measurement meas;
    coll::measurement same;  // measured in the calibration's own run (--fresh), else zeros
  };
  std::vector<row> rows;
  for (coll::operation op : ops) {
    for (std::size_t b : sizes) {
      if (op == coll::operation::alltoall && b > 65536) continue;
      const coll::algorithm pick = e.choose(op, b, w.size(), w.nodes(), w.block_placement());
      for (const coll::prediction& p : e.predict(op, b, w.size(), w.nodes(), w.block_placement()))
        rows.push_back({op, b, p, p.algo == pick, false, {}, {}});
    }
  }
  const std::vector<coll::measure_case> cases = validation_cases(w, ops, sizes);
  const std::vector<coll::measurement> ms = coll::measure(w, cases, reps);
  if (cases.size() != rows.size() || (same_run && same_run->size() != rows.size()))
    throw gaea::error("gaea-coll validate: the predictions and the cases measured differ");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].meas = ms[i];
    if (same_run) rows[i].same = (*same_run)[i];
  }
  // The measured cheapest of each (op, size), by choose()'s rule applied to the measurements.
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i;
    std::vector<coll::prediction> measured;
    for (; j < rows.size() && rows[j].op == rows[i].op && rows[j].bytes == rows[i].bytes; ++j)
      measured.push_back({rows[j].pred.algo, rows[j].meas.seconds, rows[j].meas.joules});
    const coll::algorithm best = coll::cheapest(measured);
    for (std::size_t k = i; k < j; ++k)
      rows[k].best = rows[k].pred.algo == best;
    i = j;
  }
  if (w.rank() != 0) return 0;
  auto rel = [](double pred, double meas) { return meas > 0 ? pred / meas - 1 : 0.0; };
  std::printf("%-10s %-18s %9s %10s %10s %7s %7s %7s %10s %10s %7s %s\n", "op", "algorithm",
              "bytes", "pred_us", "meas_us", "err_%", "noise_%", "same_%", "pred_mJ", "meas_mJ",
              "err_%", "pick");
  nlohmann::json jrows = nlohmann::json::array();
  for (const row& r : rows) {
    const char* pick = r.chosen ? (r.best ? "chosen=best" : "chosen") : (r.best ? "best" : "");
    std::printf("%-10s %-18s %9zu %10.2f %10.2f %7.1f %7.1f %7.1f %10.4f %10.4f %7.1f %s\n",
                std::string(coll::to_string(r.op)).c_str(),
                std::string(coll::to_string(r.pred.algo)).c_str(), r.bytes, r.pred.seconds * 1e6,
                r.meas.seconds * 1e6, 100 * rel(r.pred.seconds, r.meas.seconds),
                100 * r.meas.spread, 100 * rel(r.pred.seconds, r.same.seconds), r.pred.joules * 1e3,
                r.meas.joules * 1e3, 100 * rel(r.pred.joules, r.meas.joules), pick);
    jrows.push_back({{"op", coll::to_string(r.op)},
                     {"algorithm", coll::to_string(r.pred.algo)},
                     {"bytes", r.bytes},
                     {"pred_s", r.pred.seconds},
                     {"meas_s", r.meas.seconds},
                     {"noise", r.meas.spread},
                     {"late", r.meas.late},
                     {"pred_j", r.pred.joules},
                     {"meas_j", r.meas.joules},
                     {"same_run_s", r.same.seconds},
                     {"same_run_j", r.same.joules},
                     {"chosen", r.chosen},
                     {"measured_best", r.best}});
  }
  // Per algorithm: mean and worst |error| of time and energy, and the mean noise of its points.
  struct acc {
    double tm = 0, tw = 0, em = 0, ew = 0, noise = 0, sm = 0, se = 0;
    int n = 0;
  };
  std::vector<std::pair<std::string, acc>> per;
  acc all;
  int picks = 0, right = 0;
  for (const row& r : rows) {
    const std::string key =
        std::string(coll::to_string(r.op)) + " " + std::string(coll::to_string(r.pred.algo));
    auto it = std::find_if(per.begin(), per.end(), [&](const auto& p) { return p.first == key; });
    if (it == per.end()) it = per.insert(per.end(), {key, acc{}});
    const double et = std::abs(rel(r.pred.seconds, r.meas.seconds));
    const double ee = std::abs(rel(r.pred.joules, r.meas.joules));
    for (acc* a : {&it->second, &all}) {
      a->tm += et;
      a->em += ee;
      a->tw = std::max(a->tw, et);
      a->ew = std::max(a->ew, ee);
      a->noise += r.meas.spread;
      a->sm += std::abs(rel(r.pred.seconds, r.same.seconds));
      a->se += std::abs(rel(r.pred.joules, r.same.joules));
      ++a->n;
    }
    if (r.chosen) {
      ++picks;
      right += r.best;
    }
  }
  // same_*: against the measurements taken in the calibration's own run (--fresh): the model's
  // error without what changes between runs.
  std::printf("\n%-29s %11s %11s %11s %11s %8s %10s %10s\n", "op algorithm", "time_mean%",
              "time_worst%", "energy_mean%", "energy_worst%", "noise%", "same_time%",
              "same_energy%");
  nlohmann::json summary = nlohmann::json::array();
  per.emplace_back("all", all);
  for (const auto& [key, a] : per) {
    std::printf("%-29s %11.1f %11.1f %11.1f %11.1f %8.1f %10.1f %10.1f\n", key.c_str(),
                100 * a.tm / a.n, 100 * a.tw, 100 * a.em / a.n, 100 * a.ew, 100 * a.noise / a.n,
                100 * a.sm / a.n, 100 * a.se / a.n);
    summary.push_back({{"what", key},
                       {"time_mean_abs_err", a.tm / a.n},
                       {"time_worst_abs_err", a.tw},
                       {"energy_mean_abs_err", a.em / a.n},
                       {"energy_worst_abs_err", a.ew},
                       {"mean_noise", a.noise / a.n},
                       {"same_run_time_mean_abs_err", a.sm / a.n},
                       {"same_run_energy_mean_abs_err", a.se / a.n}});
  }
  std::printf("the estimator picked the measured cheapest in %d of %d cases\n", right, picks);
  if (!json_out.empty()) {
    const nlohmann::json j{
        {"ranks", w.size()},           {"nodes", w.nodes()},   {"estimator", e.source()},
        {"meter", rt.energy().source}, {"reps", reps},         {"rows", jrows},
        {"summary", summary},          {"picked_best", right}, {"picks", picks}};
    gaea::output_file file(json_out, "gaea-coll validate --json");
    file.write(j.dump(2) + "\n");
    file.commit();
  }
  return 0;
}

}  // namespace gaea_coll
