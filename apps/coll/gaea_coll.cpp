// gaea-coll: calibrate the collectives' estimator, print its predictions, and check them against
// measurements ([Bcast-Energy]'s validation: predicted vs measured time and energy per algorithm).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "gaea/base/error.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/coll/estimator.hpp"
#include "gaea/runtime/runtime.hpp"

namespace {

gaea::coll::operation parse_op(const std::string& s) {
  if (auto op = gaea::coll::parse_operation(s)) return *op;
  throw gaea::error("gaea-coll: unknown operation '" + s +
                    "' (barrier|broadcast|reduce|allreduce|allgather|alltoall|gather|scatter)");
}

// predict replays every member's schedule: about ranks x max(ranks, chunks) messages (all-to-all
// and ring schedules are quadratic, a pipeline sends every 64 KiB chunk along the chain), each
// held in memory. Beyond this bound a replay takes minutes and gigabytes.
constexpr double max_replay_messages = 1 << 21;

// Why predicting `bytes` on `ranks` members is refused, or "".
std::string predict_too_big(std::size_t bytes, int ranks) {
  const double chunks = std::ceil(static_cast<double>(bytes) / (64 * 1024));
  const double messages = ranks * std::max<double>(ranks, chunks);
  if (messages <= max_replay_messages) return {};
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "predict --ranks %d --bytes %zu would replay about %.3g messages, more than the "
                "%.0f this tool bounds a prediction to; give fewer ranks or bytes",
                ranks, bytes, messages, max_replay_messages);
  return buf;
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
  cal->add_option("--output", out, "calibration file (JSON)")->required();
  cal->add_option("--reps", reps, "repetitions per algorithm and size")
      ->check(CLI::Range(1, 100000));
  auto* pred = app.add_subcommand(
      "predict", "print the predicted time and energy of every algorithm (one process)");
  pred->add_option("--calibration", calibration, "calibration file (default: documented defaults)");
  pred->add_option("--op", op_name,
                   "barrier|broadcast|reduce|allreduce|allgather|alltoall|gather|scatter");
  pred->add_option("--bytes", bytes, "bytes per member (alltoall: per block), at most 2^40")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 40));
  pred->add_option("--ranks", ranks, "members")->check(CLI::Range(1, 1 << 20));
  pred->add_option("--nodes", nodes, "nodes")->check(CLI::Range(1, 1 << 20));
  pred->add_flag("--cyclic", cyclic, "cyclic rank placement (default block)");
  auto* val = app.add_subcommand(
      "validate", "predicted vs measured for every algorithm and size (collective, under mpirun)");
  auto* val_file = val->add_option("--calibration", calibration, "calibration file");
  bool fresh = false;
  val->add_flag("--fresh", fresh,
                "calibrate in this launch first (the model's own error, without the drift "
                "between launches)")
      ->excludes(val_file);
  val->add_option("--output", out, "with --fresh: also write the calibration here");
  val->add_option("--reps", reps, "calls per timed batch")->check(CLI::Range(1, 100000));
  val->add_option("--json", json_out, "write the table as JSON");
  std::vector<std::size_t> validate_sizes;
  val->add_option("--sizes", validate_sizes,
                  "sizes in bytes, comma-separated (default: between the calibration's)")
      ->delimiter(',');
  val->add_option("--ops", validate_ops, "operations to validate (comma-separated)")
      ->delimiter(',')
      ->capture_default_str();
  auto* sw = app.add_subcommand(
      "sweep", "measured time of every algorithm over a range of sizes (collective, under mpirun)");
  std::vector<std::string> sweep_names{"broadcast", "allreduce", "allgather", "alltoall"};
  std::size_t min_bytes = 8, max_bytes = std::size_t{1} << 20;
  sw->add_option("--op", sweep_names,
                 "operations (default: broadcast allreduce allgather alltoall)");
  sw->add_option("--min", min_bytes, "smallest size in bytes (a power of two times 8 is best)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 40));
  sw->add_option("--max", max_bytes, "largest size in bytes")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 40));
  sw->add_option("--reps", reps, "repetitions per point")->check(CLI::Range(1, 100000));
  sw->add_option("--json", json_out, "write the table as JSON");
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;
  if (*val && !fresh && calibration.empty()) {
    std::fprintf(stderr, "gaea-coll: error: validate needs --calibration FILE or --fresh\n");
    return apps::bad_command_line;
  }
  std::vector<gaea::coll::operation> sweep_ops, validate_op_list;
  try {
    for (const std::string& n : sweep_names)
      sweep_ops.push_back(parse_op(n));
    for (const std::string& n : validate_ops)
      validate_op_list.push_back(parse_op(n));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gaea-coll: error: %s\n", e.what());
    return apps::bad_command_line;
  }
  try {
    if (*pred) {
      const gaea::coll::estimator e =
          calibration.empty() ? gaea::coll::estimator{} : gaea::coll::estimator::load(calibration);
      const gaea::coll::operation op = parse_op(op_name);
      if (const std::string why = predict_too_big(bytes, ranks); !why.empty()) {
        std::fprintf(stderr, "gaea-coll: error: %s\n", why.c_str());
        return apps::bad_command_line;
      }
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
    // Named after the subcommand given: --output belongs to calibrate and validate --fresh, --json
    // to validate and sweep.
    const std::string sub = *cal ? "calibrate" : *sw ? "sweep" : "validate";
    if (!out.empty()) gaea::check_output_path(out, "gaea-coll " + sub + " --output");
    if (!json_out.empty()) gaea::check_output_path(json_out, "gaea-coll " + sub + " --json");
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
          if (*sw) return gaea_coll::sweep(rt, w, sweep_ops, min_bytes, max_bytes, reps, json_out);
          const std::vector<std::size_t> sizes =
              validate_sizes.empty() ? gaea_coll::validation_sizes() : validate_sizes;
          if (!fresh)
            return gaea_coll::validate(rt, w, gaea::coll::estimator::load(calibration),
                                       validate_op_list, sizes, reps, json_out, nullptr);
          // Fresh: the validation cases are measured inside the calibration's run as well.
          std::vector<gaea::coll::measurement> same;
          const gaea::coll::estimator e = gaea::coll::estimator::calibrate(
              w, reps, gaea_coll::validation_cases(w, validate_op_list, sizes), &same);
          if (!out.empty() && w.rank() == 0) e.save(out);
          return gaea_coll::validate(rt, w, e, validate_op_list, sizes, reps, json_out, &same);
        },
        1);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gaea-coll: %s\n", e.what());
    return 1;
  }
}
