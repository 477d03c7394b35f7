// gaea-model: calibrate a machine description here, validate the scale models against
// measurements, and predict Gaea's operations (and apps) at thousands of ranks.
#include <cstdio>
#include <string>
#include <vector>

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
  cal->add_option("--out", out, "machine description to write (JSON)")->required();
  cal->add_option("--reps", reps, "repetitions per point")->check(CLI::Range(1, 100000));
  auto* val = app.add_subcommand(
      "validate", "every operation model against measurements here (collective, under mpirun)");
  auto* val_machine = val->add_option("--machine", machine_file, "machine description");
  bool fresh = false;
  val->add_flag("--fresh", fresh, "calibrate in this launch first")->excludes(val_machine);
  val->add_option("--out", out, "with --fresh: also write the machine description here");
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
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;
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
    if (!out.empty()) gaea::check_output_path(out, "gaea-model " + sub + " --out");
    if (!json_out.empty()) gaea::check_output_path(json_out, "gaea-model " + sub + " --json");
    // Read before the runtime: a bad file is a clear error on every rank, not a hang.
    const gaea::model::machine given =
        machine_file.empty() ? gaea::model::machine{} : gaea::model::load_machine(machine_file);
    return gaea::run_main("gaea-model", &argc, &argv, [&](gaea::runtime& rt) {
      if (*cal || fresh) {
        const gaea::model::machine m = gaea_model::calibrate(rt, reps);
        if (rt.rank() == 0 && !out.empty()) {
          gaea::model::save_machine(m, out);
          std::printf("gaea-model: wrote %s (%s)\n", out.c_str(), m.source.c_str());
        }
        if (*cal) {
          gaea::coll::barrier(gaea::coll::world());
          return 0;
        }
        // Every rank needs the parameters: rank 0 measured them.
        std::vector<double> p{m.intra.L,         m.intra.o,   m.intra.g,         m.intra.G,
                              m.intra.o_r,       m.inter.L,   m.inter.o,         m.inter.g,
                              m.inter.G,         m.inter.o_r, m.copy_s_per_byte, m.add_s_per_byte,
                              m.pack_s_per_chunk};
        gaea::coll::broadcast(gaea::coll::world(), std::span<double>(p), 0);
        gaea::model::machine all = m;
        all.intra = {p[0], p[1], p[2], p[3], p[4]};
        all.inter = {p[5], p[6], p[7], p[8], p[9]};
        all.copy_s_per_byte = p[10];
        all.add_s_per_byte = p[11];
        all.pack_s_per_chunk = p[12];
        return gaea_model::validate(rt, all, reps, json_out);
      }
      return gaea_model::validate(rt, given, reps, json_out);
    });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gaea-model: error: %s\n", e.what());
    return 1;
  }
}
