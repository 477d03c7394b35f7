// gaea-model validate: every operation model against measurements at sizes the calibration did
// not use (between its sizes), on this job's placement.
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/coll/estimator.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/counters/counter_mode.hpp"
#include "gaea/model/operations.hpp"
#include "measure.hpp"

namespace gaea_model {

namespace {

namespace model = gaea::model;

struct row {
  std::string family;  // the model: "get", "strided zero-copy", "fetch-add progress", ...
  std::string what;    // the case
  double predicted = 0, measured = 0;
};

// Geometric means of the calibration's sizes 8, 64, ..., 1 MiB.
constexpr std::int64_t between_sizes[] = {24, 184, 1448, 11584, 92680, 741456};

model::link_class class_of(gaea::runtime& rt, int target) {
  return rt.comm().node_of(target) == rt.comm().node_of(0) ? model::link_class::intra
                                                           : model::link_class::inter;
}

void one_sided(gaea::runtime& rt, probe& p, const model::machine& m, int target, int reps,
               std::vector<row>& rows) {
  const model::link_class c = class_of(rt, target);
  const std::string where = c == model::link_class::intra ? " intra" : " inter";
  std::vector<op_case> cases;
  for (const std::int64_t s : between_sizes) {
    cases.push_back({op_kind::get, target, s, 0});
    cases.push_back({op_kind::put, target, s, 0});
  }
  constexpr std::int64_t strided_total = 64 * 1024;
  for (const std::int64_t chunk : {64, 512, 4096}) {
    cases.push_back({op_kind::strided_zero, target, strided_total, chunk});
    cases.push_back({op_kind::strided_packed, target, strided_total, chunk});
  }
  for (const std::int64_t s : {64, 4096, 65536, 1 << 20}) {
    cases.push_back({op_kind::acc_target, target, s, 0});
    cases.push_back({op_kind::acc_source, target, s, 0});
  }
  const std::vector<double> t = p.time(cases, reps);
  if (rt.rank() != 0) return;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const op_case& k = cases[i];
    const double b = static_cast<double>(k.bytes);
    row r;
    r.measured = t[i];
    r.what = std::to_string(k.bytes) + " B";
    switch (k.kind) {
      case op_kind::get:
      case op_kind::put:
        r.family = std::string(to_string(k.kind)) + where;
        r.predicted = k.kind == op_kind::get ? model::contiguous_s(m, c, b) : model::put_s(m, c, b);
        break;
      case op_kind::strided_zero:
      case op_kind::strided_packed: {
        const std::int64_t chunks = k.bytes / k.chunk;
        const double cb = static_cast<double>(k.chunk);
        r.family = std::string(to_string(k.kind)) + where;
        r.what = std::to_string(chunks) + " x " + std::to_string(k.chunk) + " B";
        r.predicted = k.kind == op_kind::strided_zero ? model::strided_zero_copy_s(m, c, chunks, cb)
                                                      : model::strided_packed_s(m, c, chunks, cb);
        break;
      }
      case op_kind::acc_target:
        r.family = "acc target-driven" + where;
        r.predicted = model::acc_target_driven_s(m, c, b);
        break;
      case op_kind::acc_source:
        r.family = "acc source-driven" + where;
        r.predicted = model::acc_source_driven_s(m, c, b, b);  // Gaea does not pipeline it
        break;
      default:
        continue;
    }
    rows.push_back(r);
  }
}

void counters(gaea::runtime& rt, const model::machine& m, int reps, std::vector<row>& rows) {
  for (const auto& [mode, name] : gaea::counters::counter_mode_names)
    for (const double compute : {0.0, 100e-6}) {
      const int calls = compute > 0 ? 20 : 200;
      const double t = fetch_add_latency(rt, mode, compute, calls, reps);
      if (rt.rank() != 0) continue;
      model::counter_load load;
      load.clients = rt.size() - 1;
      load.ranks_per_node = rt.node_size();
      load.service = mode;
      load.owner_compute_s = compute;
      rows.push_back({"fetch-add " + std::string(name),
                      std::to_string(rt.size()) + " ranks, owner " +
                          (compute > 0 ? "computing 100 us" : "idle"),
                      model::fetch_add_s(m, load), t});
    }
}

// The model predicts the fastest algorithm of each call; so is each measured: every algorithm
// that can run, the fastest one's median kept.
void collectives(gaea::runtime& rt, const model::machine& m, int reps, std::vector<row>& rows) {
  using gaea::coll::operation;
  struct point {
    operation op;
    std::size_t bytes;
  };
  std::vector<point> points{{operation::barrier, 0}};
  for (const operation op : {operation::broadcast, operation::allreduce})
    for (const std::size_t b : {8u, 4096u, 65536u})
      points.push_back({op, b});
  std::vector<gaea::coll::measure_case> cases;
  std::vector<std::size_t> point_of;
  for (std::size_t i = 0; i < points.size(); ++i)
    for (const auto algo : gaea::coll::algorithms_of(points[i].op, rt.size())) {
      cases.push_back({points[i].op, algo, points[i].bytes});
      point_of.push_back(i);
    }
  const auto got = gaea::coll::measure(gaea::coll::world(), cases, reps);
  if (rt.rank() != 0) return;
  std::vector<double> fastest(points.size(), -1);
  for (std::size_t k = 0; k < cases.size(); ++k) {
    double& f = fastest[point_of[k]];
    if (f < 0 || got[k].seconds < f) f = got[k].seconds;
  }
  model::machine here = m;
  here.ranks_per_node = rt.node_size();
  const std::string how = m.collectives ? " (estimator)" : " (links)";
  for (std::size_t i = 0; i < points.size(); ++i)
    rows.push_back(
        {std::string(gaea::coll::to_string(points[i].op)) + how,
         std::to_string(points[i].bytes) + " B, " + std::to_string(rt.size()) + " ranks",
         model::collective_s(here, points[i].op, static_cast<double>(points[i].bytes), rt.size()),
         fastest[i]});
}

}  // namespace

int validate(gaea::runtime& rt, const model::machine& m, int reps, const std::string& json_out) {
  std::vector<row> rows;
  // Rank 0 against the first rank on its node and the first on another node, as calibrated.
  probe p(rt, 1 << 20);
  for (const int target : {first_target(rt, true), first_target(rt, false)})
    if (target >= 0) one_sided(rt, p, m, target, reps, rows);
  if (rt.size() > 1) counters(rt, m, std::max(3, reps / 4), rows);
  collectives(rt, m, reps, rows);
  if (rt.rank() != 0) return 0;

  std::printf("# gaea-model validate: %d ranks on %d nodes, machine '%s' (%s)\n", rt.size(),
              rt.nodes(), m.name.c_str(), m.source.c_str());
  std::printf("%-28s %-34s %12s %12s %8s\n", "model", "case", "predicted_us", "measured_us",
              "error_%");
  std::map<std::string, std::pair<double, int>> per_family;
  nlohmann::json cases = nlohmann::json::array();
  for (const row& r : rows) {
    const double err = r.measured > 0 ? 100 * (r.predicted - r.measured) / r.measured : 0;
    std::printf("%-28s %-34s %12.2f %12.2f %8.1f\n", r.family.c_str(), r.what.c_str(),
                r.predicted * 1e6, r.measured * 1e6, err);
    auto& f = per_family[r.family];
    f.first += std::fabs(err);
    f.second += 1;
    cases.push_back({{"model", r.family},
                     {"case", r.what},
                     {"predicted_s", r.predicted},
                     {"measured_s", r.measured},
                     {"error_pct", err}});
  }
  std::printf("\n%-28s %14s %6s\n", "model", "mean_|err|_%", "cases");
  nlohmann::json summary = nlohmann::json::object();
  for (const auto& [family, f] : per_family) {
    std::printf("%-28s %14.1f %6d\n", family.c_str(), f.first / f.second, f.second);
    summary[family] = {{"mean_abs_error_pct", f.first / f.second}, {"cases", f.second}};
  }
  if (!json_out.empty()) {
    nlohmann::json j{{"kind", "gaea-model-validation"},
                     {"version", 1},
                     {"ranks", rt.size()},
                     {"nodes", rt.nodes()},
                     {"machine", m.name},
                     {"machine_source", m.source},
                     {"cases", cases},
                     {"summary", summary}};
    write_json(json_out, j, "gaea-model validate --json");
  }
  return 0;
}

}  // namespace gaea_model
