// gaea-model lu | lbm | scf: the app models of framework/model at a list of rank counts.
#include "app_commands.hpp"
#include "commands.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>

#include <nlohmann/json.hpp>

#include "gaea/base/error.hpp"

namespace gaea_model {

namespace m = gaea::model;
using nlohmann::json;

std::vector<std::int64_t> parse_ranks(const std::string& text) {
  static const std::regex item(R"(\s*(\d{1,12})\s*(?:-\s*(\d{1,12})\s*)?)");
  std::vector<std::int64_t> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string part = text.substr(start, end - start);
    std::smatch mm;
    if (!std::regex_match(part, mm, item))
      throw gaea::error("--ranks '" + text + "': '" + part +
                        "' is not N or A-B (A, 2A, 4A, ... up to B)");
    const std::int64_t a = std::stoll(mm[1].str());
    const std::int64_t b = mm[2].matched ? std::stoll(mm[2].str()) : a;
    if (a < 1 || b < a)
      throw gaea::error("--ranks '" + text + "': '" + part + "' needs 1 <= A <= B");
    for (std::int64_t r = a; r <= b; r *= 2)
      if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
    start = end + 1;
  }
  return out;
}

namespace {

json machine_json(const m::machine& mc) {
  return {{"name", mc.name},
          {"source", mc.source},
          {"ranks_per_node", mc.ranks_per_node},
          {"progress_thread", mc.progress_thread}};
}

std::string grid_text(std::int64_t a, std::int64_t b) {
  return std::to_string(a) + "x" + std::to_string(b);
}

}  // namespace

app_commands::app_commands(CLI::App& app) {
  const char* ranks_help = "rank counts: N, A-B (A, 2A, 4A, ... up to B), or a list N,A-B,...";
  lu_ = app.add_subcommand("lu", "gaea-lu: one factorisation (no pivoting) per rank count");
  lu_->add_option("--machine", machine_, "machine description (JSON)")->required();
  lu_->add_option("--ranks", ranks_lu_, ranks_help)->capture_default_str();
  lu_->add_option("--n", n_, "matrix order (default: the profile's)");
  lu_->add_option("--block", block_, "tile size (default: the profile's, else gaea-lu's rule)");
  lu_->add_option("--grid", grid_, "process grid PxQ (one rank count only; default: squarest)");
  lu_->add_option("--overlap", overlap_, "prefetch of the next panel: on or off")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  lu_->add_option("--profile", profile_lu_, "one-rank `gaea-lu --json` output (the tile rate)");
  lu_->add_option("--flops-per-rank", flops_per_rank_,
                  "tile rate of one rank, flop/s (instead of a profile, e.g. fitted to a paper)")
      ->check(CLI::PositiveNumber);
  lu_->add_option("--json", json_lu_, "also write the predictions to this JSON file");

  lbm_ = app.add_subcommand("lbm", "gaea-lbm: one time step per rank count");
  lbm_->add_option("--machine", machine_, "machine description (JSON)")->required();
  lbm_->add_option("--ranks", ranks_lbm_, ranks_help)->capture_default_str();
  lbm_->add_option("--nx", nx_, "cells along x (default: the profile's)");
  lbm_->add_option("--ny", ny_, "cells along y (default: the profile's)");
  lbm_->add_flag("--periodic", periodic_, "periodic sides (default: the profile's, else walls)");
  lbm_->add_option("--profile", profile_lbm_, "one-rank `gaea-lbm --json` output (per-cell time)");
  lbm_->add_option("--json", json_lbm_, "also write the predictions to this JSON file");

  scf_ = app.add_subcommand("scf", "gaea-scf: one SCF iteration (Fock build) per rank count");
  scf_->add_option("--machine", machine_, "machine description (JSON)")->required();
  scf_->add_option("--ranks", ranks_scf_, ranks_help)->capture_default_str();
  scf_->add_option("--profile", profile_scf_, "one-rank `gaea-scf --json` output")->required();
  scf_->add_option("--threads", threads_, "worker threads per rank (default: the profile's)");
  scf_->add_option("--counter", counter_, "task counter: atomic, progress or owner")
      ->check(CLI::IsMember({"atomic", "progress", "owner"}))
      ->capture_default_str();
  scf_->add_option("--block-size", block_bf_, "functions per block (0: gaea-scf's automatic)");
  scf_->add_option("--dispense", dispense_,
                   "task counter variant: single (one fetch-and-add per task) or batched "
                   "(guided chunks, gaea-scf's default)")
      ->check(CLI::IsMember({"single", "batched"}))
      ->capture_default_str();
  scf_->add_option("--compute-scale", compute_scale_,
                   "the target's core takes this many times the profiling core's time for the "
                   "profile's integrals and serial part (default 1: as profiled)")
      ->check(CLI::Range(1e-3, 1e3))
      ->capture_default_str();
  scf_->add_option("--progress-thread", progress_thread_,
                   "asynchronous progress thread: on, off or both (one row each)")
      ->check(CLI::IsMember({"on", "off", "both"}))
      ->capture_default_str();
  scf_->add_option("--json", json_scf_, "also write the predictions to this JSON file");
}

bool app_commands::chosen() const {
  return lu_->parsed() || lbm_->parsed() || scf_->parsed();
}

int app_commands::run(const m::machine& mc) const {
  try {
    if (lu_->parsed()) return run_lu(mc);
    if (lbm_->parsed()) return run_lbm(mc);
    if (scf_->parsed()) return run_scf(mc);
  } catch (const gaea::error& e) {
    std::fprintf(stderr, "gaea-model: error: %s\n", e.what());
    return 1;
  }
  return 0;
}

int app_commands::run_lu(const m::machine& mc) const {
  m::lu_profile prof;
  m::lu_case base;
  if (!profile_lu_.empty()) std::tie(prof, base) = m::read_lu_profile(profile_lu_);
  if (flops_per_rank_ > 0) prof.flops_per_s = flops_per_rank_;
  if (n_ > 0) base.n = n_;
  if (n_ < 0 || base.n < 1)
    throw gaea::error("lu: --n " + std::to_string(n_) + " (or a --profile) is needed, >= 1");
  if (block_ != 0) base.block = block_;
  base.overlap = overlap_ == "on";
  const auto ranks = parse_ranks(ranks_lu_);
  std::int64_t gp = 0, gq = 0;
  if (!grid_.empty()) {
    static const std::regex re(R"(\s*(\d{1,9})\s*[xX]\s*(\d{1,9})\s*)");
    std::smatch mm;
    if (!std::regex_match(grid_, mm, re))
      throw gaea::error("lu: --grid '" + grid_ + "' is not of the form PxQ (e.g. 2x2)");
    gp = std::stoll(mm[1].str());
    gq = std::stoll(mm[2].str());
    if (ranks.size() != 1 || gp * gq != ranks[0])
      throw gaea::error("lu: --grid " + grid_text(gp, gq) +
                        " needs exactly one rank count equal to " + std::to_string(gp * gq) +
                        " (--ranks '" + ranks_lu_ + "')");
  }
  std::printf(
      "gaea-model lu: machine %s, n %lld, overlap %s, rate %s\n", mc.name.c_str(),
      static_cast<long long>(base.n), base.overlap ? "on" : "off",
      prof.flops_per_s > 0
          ? ("profiled " + std::to_string(prof.flops_per_s * 1e-9) + " GF/s per rank").c_str()
          : "machine dgemm per core");
  std::printf("%7s %9s %6s %10s %10s %10s %10s %10s %10s %9s\n", "ranks", "grid", "block",
              "total_s", "update_s", "panel_s", "comm_s", "wait_s", "transfer_s", "GF/s");
  json points = json::array();
  for (const std::int64_t r : ranks) {
    m::lu_case c = base;
    std::tie(c.prow, c.pcol) = gp > 0 ? std::pair{gp, gq} : m::lu_default_grid(r);
    if (base.block == 0 || (block_ == 0 && profile_lu_.empty()))
      c.block = m::lu_default_block(c.n, c.prow, c.pcol);
    const m::lu_breakdown b = m::predict_lu(mc, c, prof);
    const double nd = static_cast<double>(c.n);
    const double gflops = 2 * nd * nd * nd / 3 / b.total_s * 1e-9;
    std::printf("%7lld %9s %6lld %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g %9.4g\n",
                static_cast<long long>(r), grid_text(c.prow, c.pcol).c_str(),
                static_cast<long long>(c.block), b.total_s, b.update_s, b.panel_s, b.comm_s,
                b.wait_s, b.transfer_s, gflops);
    points.push_back({{"ranks", r},
                      {"grid", grid_text(c.prow, c.pcol)},
                      {"block", c.block},
                      {"total_s", b.total_s},
                      {"compute_s", b.compute_s},
                      {"update_s", b.update_s},
                      {"panel_s", b.panel_s},
                      {"comm_s", b.comm_s},
                      {"wait_s", b.wait_s},
                      {"transfer_s", b.transfer_s},
                      {"bytes_per_rank", b.bytes_per_rank},
                      {"gflops", gflops}});
  }
  write_json(json_lu_,
             {{"app", "lu"},
              {"machine", machine_json(mc)},
              {"n", base.n},
              {"overlap", base.overlap},
              {"profile", profile_lu_},
              {"flops_per_s", prof.flops_per_s},
              {"points", points}},
             "gaea-model lu --json");
  return 0;
}

int app_commands::run_lbm(const m::machine& mc) const {
  m::lbm_profile prof;
  m::lbm_case base;
  if (!profile_lbm_.empty()) std::tie(prof, base) = m::read_lbm_profile(profile_lbm_);
  if (nx_ != 0) base.nx = nx_;
  if (ny_ != 0) base.ny = ny_;
  if (periodic_) base.periodic = true;
  std::printf("gaea-model lbm: machine %s, %lld x %lld cells, %s, per-cell time %s\n",
              mc.name.c_str(), static_cast<long long>(base.nx), static_cast<long long>(base.ny),
              base.periodic ? "periodic" : "walls",
              prof.cell_s > 0 ? (std::to_string(prof.cell_s * 1e9) + " ns profiled").c_str()
                              : "from the node's memory bandwidth");
  std::printf("%7s %9s %10s %10s %10s %10s %10s %9s %9s\n", "ranks", "grid", "step_s", "compute_s",
              "ghosts_s", "exchange_s", "sync_s", "ghost_%", "MLUPS");
  json points = json::array();
  for (const std::int64_t r : parse_ranks(ranks_lbm_)) {
    m::lbm_case c = base;
    c.ranks = r;
    const m::lbm_breakdown b = m::predict_lbm(mc, c, prof);
    const double mlups = static_cast<double>(c.nx) * static_cast<double>(c.ny) / b.total_s * 1e-6;
    std::printf("%7lld %9s %10.4g %10.4g %10.4g %10.4g %10.4g %8.1f%% %9.4g\n",
                static_cast<long long>(r), grid_text(b.py, b.px).c_str(), b.total_s, b.compute_s,
                b.ghosts_s, b.exchange_s, b.sync_s, 100 * b.ghosts_s / b.total_s, mlups);
    points.push_back({{"ranks", r},
                      {"grid", grid_text(b.py, b.px)},
                      {"step_s", b.total_s},
                      {"compute_s", b.compute_s},
                      {"ghosts_s", b.ghosts_s},
                      {"exchange_s", b.exchange_s},
                      {"sync_s", b.sync_s},
                      {"ghost_bytes", b.ghost_bytes},
                      {"messages", b.messages},
                      {"tile_cells", b.tile_cells},
                      {"mlups", mlups}});
  }
  write_json(json_lbm_,
             {{"app", "lbm"},
              {"machine", machine_json(mc)},
              {"nx", base.nx},
              {"ny", base.ny},
              {"periodic", base.periodic},
              {"profile", profile_lbm_},
              {"cell_s", prof.cell_s},
              {"points", points}},
             "gaea-model lbm --json");
  return 0;
}

int app_commands::run_scf(const m::machine& mc) const {
  auto [prof, base] = m::read_scf_profile(profile_scf_);
  prof.integrals_s *= compute_scale_;
  prof.max_task_s *= compute_scale_;
  prof.diag_s *= compute_scale_;
  if (threads_ != 0) base.threads = threads_;
  base.block_bf = block_bf_;
  base.counter = *gaea::counters::parse_counter_mode(counter_);  // checked by CLI11
  base.dispense = *gaea::counters::parse_dispense(dispense_);
  std::vector<bool> threads_modes;
  if (progress_thread_ != "off") threads_modes.push_back(true);
  if (progress_thread_ != "on") threads_modes.push_back(false);
  std::printf(
      "gaea-model scf: machine %s, %lld functions, profile %lld tasks on %lld blocks, %.4g s of "
      "integrals per iteration (compute scale %g), counter %s, dispense %s, %lld thread(s) per "
      "rank\n",
      mc.name.c_str(), static_cast<long long>(prof.nbf), static_cast<long long>(prof.tasks),
      static_cast<long long>(prof.blocks), prof.integrals_s, compute_scale_, counter_.c_str(),
      dispense_.c_str(), static_cast<long long>(base.threads));
  std::printf("%7s %6s %10s %10s %10s %10s %10s %10s %10s %10s %10s %8s %6s\n", "ranks", "async",
              "total_s", "build_s", "integr_s", "counter_s", "get_s", "acc_s", "imbal_s", "diag_s",
              "coll_s", "tasks", "blocks");
  json points = json::array();
  for (const std::int64_t r : parse_ranks(ranks_scf_))
    for (const bool async : threads_modes) {
      m::machine mm = mc;
      mm.progress_thread = async;
      m::scf_case c = base;
      c.ranks = r;
      const m::scf_breakdown b = m::predict_scf(mm, c, prof);
      std::printf(
          "%7lld %6s %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g %8lld "
          "%6lld\n",
          static_cast<long long>(r), async ? "yes" : "no", b.total_s, b.build_s, b.integrals_s,
          b.counter_s, b.get_s, b.acc_s, b.imbalance_s, b.diag_s, b.collectives_s,
          static_cast<long long>(b.tasks), static_cast<long long>(b.blocks));
      points.push_back({{"ranks", r},
                        {"progress_thread", async},
                        {"total_s", b.total_s},
                        {"build_s", b.build_s},
                        {"integrals_s", b.integrals_s},
                        {"counter_s", b.counter_s},
                        {"get_s", b.get_s},
                        {"acc_s", b.acc_s},
                        {"imbalance_s", b.imbalance_s},
                        {"diag_s", b.diag_s},
                        {"collectives_s", b.collectives_s},
                        {"fetch_add_s", b.fetch_add_s},
                        {"fetches_per_worker", b.fetches_per_worker},
                        {"tasks", b.tasks},
                        {"blocks", b.blocks},
                        {"tasks_per_worker", b.tasks_per_worker}});
    }
  write_json(json_scf_,
             {{"app", "scf"},
              {"machine", machine_json(mc)},
              {"profile", profile_scf_},
              {"nbf", prof.nbf},
              {"compute_scale", compute_scale_},
              {"dispense", dispense_},
              {"threads", base.threads},
              {"counter", counter_},
              {"points", points}},
             "gaea-model scf --json");
  return 0;
}

}  // namespace gaea_model
