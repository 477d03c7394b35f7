// gaea-model: calibrate a machine description here, validate the scale models against
// measurements, and predict Gaea's operations (and apps) at thousands of ranks.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "app_commands.hpp"
#include "cli.hpp"
#include "commands.hpp"
#include "gaea/base/error.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/model/machine.hpp"
#include "gaea/runtime/runtime.hpp"

int main(int argc, char** argv) {
  CLI::App app{"gaea-model: scale models of Gaea's operations and apps"};
  apps::conventions(app, "gaea-model");
  app.require_subcommand(1);
  std::string out, machine_file, json_out;
  int reps = 20;
  auto* cal = app.add_subcommand(
      "calibrate", "measure this machine's LogGP parameters and rates (collective, under mpirun)");
  cal->add_option("--output", out, "machine description to write (JSON)")->required();
  cal->add_option("--reps", reps, "repetitions per point")->check(CLI::Range(1, 100000));
  bool with_coll = false;
  cal->add_flag(
      "--collectives", with_coll,
      "also calibrate the collectives' estimator (gaea-coll's), written beside --output as "
      "<out>.coll.json and used for collectives");
  auto* val = app.add_subcommand(
      "validate", "every operation model against measurements here (collective, under mpirun)");
  auto* val_machine = val->add_option("--machine", machine_file, "machine description");
  bool fresh = false;
  val->add_flag("--fresh", fresh, "calibrate in this launch first")->excludes(val_machine);
  val->add_option("--output", out, "with --fresh: also write the machine description here");
  val->add_flag("--collectives", with_coll,
                "with --fresh: also calibrate the collectives' estimator and predict collectives "
                "with it");
  val->add_option("--reps", reps, "repetitions per point")->check(CLI::Range(1, 100000));
  val->add_option("--json", json_out, "write the table as JSON");
  auto* pred = app.add_subcommand(
      "scale", "counter latency and collectives vs P on a described machine (one process)");
  pred->add_option("--machine", machine_file, "machine description")->required();
  std::vector<std::int64_t> ranks;
  double compute_us = 300;
  pred->add_option("--ranks", ranks, "rank counts, comma-separated (default 2, 4, ..., 4096)")
      ->delimiter(',');
  pred->add_option("--owner-compute-us", compute_us,
                   "the counter owner's kernel length when busy ([PGAS-BGQ Fig. 10]: 300)")
      ->check(CLI::Range(0.0, 1e9));
  pred->add_option("--json", json_out, "write the table as JSON");
  const gaea_model::app_commands app_cmds(app);  // lu, lbm, scf: the apps' models
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;
  if (app_cmds.chosen()) {
    try {
      return app_cmds.run(gaea::model::load_machine(app_cmds.machine_file()));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gaea-model: error: %s\n", e.what());
      return 1;
    }
  }
  if (*val && !fresh && machine_file.empty()) {
    std::fprintf(stderr, "gaea-model: error: validate needs --machine FILE or --fresh\n");
    return apps::bad_command_line;
  }
  try {
    if (*pred) {
      if (ranks.empty())
        for (std::int64_t p = 2; p <= 4096; p *= 2)
          ranks.push_back(p);
      return gaea_model::predict_scale(gaea::model::load_machine(machine_file), machine_file, ranks,
                                       compute_us * 1e-6, json_out);
    }
    const std::string sub = *cal ? "calibrate" : "validate";
    if (!out.empty()) gaea::check_output_path(out, "gaea-model " + sub + " --output");
    if (!json_out.empty()) gaea::check_output_path(json_out, "gaea-model " + sub + " --json");
    // Read before the runtime: a bad file is a clear error on every rank, not a hang.
    const gaea::model::machine given =
        machine_file.empty() ? gaea::model::machine{} : gaea::model::load_machine(machine_file);
    return gaea::run_main("gaea-model", &argc, &argv, [&](gaea::runtime& rt) {
      if (*cal || fresh) {
        gaea::model::machine m = gaea_model::calibrate(rt, reps, with_coll);
        if (!out.empty()) {
          if (m.collectives) {
            const std::filesystem::path file = out + ".coll.json";
            m.coll_calibration = file.filename();
            if (rt.rank() == 0) m.collectives->save(file);
          }
          if (rt.rank() == 0) {
            gaea::model::save_machine(m, out);
            std::printf("gaea-model: wrote %s (%s)\n", out.c_str(), m.source.c_str());
          }
        }
        if (*cal) {
          gaea::coll::barrier(gaea::coll::world());
          return 0;
        }
        return gaea_model::validate(rt, m, reps, json_out);
      }
      return gaea_model::validate(rt, given, reps, json_out);
    });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gaea-model: error: %s\n", e.what());
    return 1;
  }
}
