// gaea-coll: calibrate the collectives' estimator, print its predictions, and check them against
// measurements ([Bcast-Energy]'s validation: predicted vs measured time and energy per algorithm).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli.hpp"
#include "gaea/base/error.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/coll/estimator.hpp"
#include "gaea/runtime/runtime.hpp"

namespace coll = gaea::coll;

namespace {

gaea::coll::operation parse_op(const std::string& s) {
  if (auto op = gaea::coll::parse_operation(s)) return *op;
  throw gaea::error("gaea-coll: unknown operation '" + s +
                    "' (barrier|broadcast|reduce|allreduce|allgather|alltoall|gather|scatter)");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gaea-coll: the collectives' time and energy estimator"};
  apps::conventions(app, "gaea-coll");
  app.require_subcommand(1);
  std::string out, calibration, op_name = "broadcast", json_out;
  std::vector<std::string> validate_ops{"broadcast", "allreduce", "alltoall", "allgather"};
  int reps = 20, ranks = 4, nodes = 1;
  std::size_t bytes = 1024;
  bool cyclic = false;
  auto* cal = app.add_subcommand(
      "calibrate",
      "measure every step kind here and write a calibration (collective, under mpirun)");
  cal->add_option("--out", out, "calibration file (JSON)")->required();
  cal->add_option("--reps", reps, "repetitions per algorithm and size")
      ->check(CLI::Range(1, 100000));
  auto* pred = app.add_subcommand(
      "predict", "print the predicted time and energy of every algorithm (one process)");
  pred->add_option("--calibration", calibration, "calibration file (default: documented defaults)");
  pred->add_option("--op", op_name,
                   "barrier|broadcast|reduce|allreduce|allgather|alltoall|gather|scatter");
  pred->add_option("--bytes", bytes, "bytes per member (alltoall: per block)");
  pred->add_option("--ranks", ranks, "members")->check(CLI::Range(1, 1 << 20));
  pred->add_option("--nodes", nodes, "nodes")->check(CLI::Range(1, 1 << 20));
  pred->add_flag("--cyclic", cyclic, "cyclic rank placement (default block)");
  auto* val = app.add_subcommand(
      "validate", "predicted vs measured for every algorithm and size (collective, under mpirun)");
  val->add_option("--calibration", calibration, "calibration file")->required();
  val->add_option("--reps", reps, "calls per timed batch")->check(CLI::Range(1, 100000));
  val->add_option("--json", json_out, "write the table as JSON");
  val->add_option("--ops", validate_ops, "operations to validate (comma-separated)")
      ->delimiter(',')
      ->capture_default_str();
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;
  try {
    if (*pred) {
      const gaea::coll::estimator e =
          calibration.empty() ? gaea::coll::estimator{} : gaea::coll::estimator::load(calibration);
      const gaea::coll::operation op = parse_op(op_name);
      std::printf("# %s, %zu bytes, %d ranks on %d nodes (%s), estimator: %s\n", op_name.c_str(),
                  bytes, ranks, nodes, cyclic ? "cyclic" : "block", e.source().c_str());
      std::printf("%-20s %14s %14s\n", "algorithm", "time_us", "energy_mJ");
      const gaea::coll::algorithm pick = e.choose(op, bytes, ranks, nodes, !cyclic);
      for (const auto& p : e.predict(op, bytes, ranks, nodes, !cyclic))
        std::printf("%-20s %14.2f %14.4f%s\n", std::string(gaea::coll::to_string(p.algo)).c_str(),
                    p.seconds * 1e6, p.joules * 1e3, p.algo == pick ? "  <- chosen" : "");
      return 0;
    }
    // Every rank, before the long collective part: a file that cannot be written is known now.
    if (!out.empty()) gaea::check_output_path(out, "gaea-coll calibrate --out");
    if (!json_out.empty()) gaea::check_output_path(json_out, "gaea-coll validate --json");
    // An error on any rank ends the job with its message on every rank (exit 1).
    return gaea::run_main(
        "gaea-coll", &argc, &argv,
        [&](gaea::runtime& rt) {
          const gaea::coll::group& w = gaea::coll::world();
          if (*cal) {
            const gaea::coll::estimator e = gaea::coll::estimator::calibrate(w, reps);
            if (w.rank() == 0) {
              e.save(out);
              std::printf("gaea-coll: wrote %s (%s)\n", out.c_str(), e.source().c_str());
            }
            gaea::coll::barrier(w);
            return 0;
          }
          // validate
          const gaea::coll::estimator e = gaea::coll::estimator::load(calibration);
          nlohmann::json rows = nlohmann::json::array();
          if (w.rank() == 0)
            std::printf("%-10s %-18s %9s %12s %12s %8s %12s %12s %8s %s\n", "op", "algorithm",
                        "bytes", "pred_us", "meas_us", "err_%", "pred_mJ", "meas_mJ", "err_%",
                        "pick");
          for (const std::string& op_text : validate_ops) {
            const gaea::coll::operation op = parse_op(op_text);
            // Sizes between the calibration's (8, 256, 4K, 32K, 256K, 1M): predictions, not fits.
            for (std::size_t b : {std::size_t{64}, std::size_t{2048}, std::size_t{16384},
                                  std::size_t{131072}, std::size_t{524288}}) {
              if (op == gaea::coll::operation::alltoall && b > 16384) continue;
              const auto preds = e.predict(op, b, w.size(), w.nodes(), w.block_placement());
              const gaea::coll::algorithm pick =
                  e.choose(op, b, w.size(), w.nodes(), w.block_placement());
              double best_j = 1e300, best_t = 1e300;
              std::vector<std::pair<double, double>> meas;
              for (const auto& p : preds) {
                const gaea::coll::measurement m = gaea::coll::measure(w, op, p.algo, b, reps);
                meas.emplace_back(m.seconds, m.joules);
                best_t = std::min(best_t, meas.back().first);
              }
              gaea::coll::algorithm measured_best = preds.front().algo;
              for (std::size_t i = 0; i < preds.size(); ++i)
                if (meas[i].first <= best_t * 1.02 && meas[i].second < best_j) {
                  best_j = meas[i].second;
                  measured_best = preds[i].algo;
                }
              for (std::size_t i = 0; i < preds.size(); ++i) {
                const double et = 100 * (preds[i].seconds - meas[i].first) / meas[i].first;
                const double ee = meas[i].second > 0
                                      ? 100 * (preds[i].joules - meas[i].second) / meas[i].second
                                      : 0;
                const bool chosen = preds[i].algo == pick;
                if (w.rank() == 0)
                  std::printf("%-10s %-18s %9zu %12.2f %12.2f %8.1f %12.4f %12.4f %8.1f %s\n",
                              std::string(gaea::coll::to_string(op)).c_str(),
                              std::string(gaea::coll::to_string(preds[i].algo)).c_str(), b,
                              preds[i].seconds * 1e6, meas[i].first * 1e6, et,
                              preds[i].joules * 1e3, meas[i].second * 1e3, ee,
                              chosen ? (preds[i].algo == measured_best ? "chosen=best" : "chosen")
                                     : (preds[i].algo == measured_best ? "best" : ""));
                rows.push_back({{"op", gaea::coll::to_string(op)},
                                {"algorithm", gaea::coll::to_string(preds[i].algo)},
                                {"bytes", b},
                                {"pred_s", preds[i].seconds},
                                {"meas_s", meas[i].first},
                                {"pred_j", preds[i].joules},
                                {"meas_j", meas[i].second},
                                {"chosen", chosen},
                                {"measured_best", preds[i].algo == measured_best}});
              }
            }
          }
          // Per algorithm: mean and worst |error| of time and energy; how often the pick was best.
          nlohmann::json summary = nlohmann::json::array();
          if (w.rank() == 0) {
            std::printf("\n%-10s %-18s %11s %11s %11s %11s\n", "op", "algorithm", "time_mean%",
                        "time_worst%", "energy_mean%", "energy_worst%");
            std::vector<std::pair<std::string, std::string>> seen;
            int picks = 0, right = 0;
            for (const auto& r : rows) {
              if (r["chosen"].get<bool>()) {
                ++picks;
                right += r["measured_best"].get<bool>();
              }
              const std::pair<std::string, std::string> key{r["op"], r["algorithm"]};
              if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
              seen.push_back(key);
              double tm = 0, tw = 0, em = 0, ew = 0;
              int k = 0;
              for (const auto& q : rows) {
                if (q["op"] != key.first || q["algorithm"] != key.second) continue;
                const double et =
                    std::abs(q["pred_s"].get<double>() / q["meas_s"].get<double>() - 1);
                const double mj = q["meas_j"].get<double>();
                const double ee = mj > 0 ? std::abs(q["pred_j"].get<double>() / mj - 1) : 0;
                tm += et;
                em += ee;
                tw = std::max(tw, et);
                ew = std::max(ew, ee);
                ++k;
              }
              std::printf("%-10s %-18s %11.1f %11.1f %11.1f %11.1f\n", key.first.c_str(),
                          key.second.c_str(), 100 * tm / k, 100 * tw, 100 * em / k, 100 * ew);
              summary.push_back({{"op", key.first},
                                 {"algorithm", key.second},
                                 {"time_mean_abs_err", tm / k},
                                 {"time_worst_abs_err", tw},
                                 {"energy_mean_abs_err", em / k},
                                 {"energy_worst_abs_err", ew}});
            }
            std::printf("the estimator picked the measured cheapest in %d of %d cases\n", right,
                        picks);
          }
          if (w.rank() == 0 && !json_out.empty()) {
            nlohmann::json j{{"ranks", w.size()},
                             {"nodes", w.nodes()},
                             {"estimator", e.source()},
                             {"meter", rt.energy().source},
                             {"rows", rows}};
            gaea::output_file file(json_out, "gaea-coll validate --json");
            file.write(j.dump(2) + "\n");
            file.commit();
          }
          return 0;
        },
        1);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gaea-coll: %s\n", e.what());
    return 1;
  }
}
