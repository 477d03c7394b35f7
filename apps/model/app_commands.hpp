#pragma once
/// \file
/// The app subcommands of gaea-model: `lu`, `lbm` and `scf` predict one iteration of each app at
/// a list of rank counts on the machine gaea-model loaded (framework/model/README.md, "Apps").

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "gaea/model/apps.hpp"
#include "gaea/model/machine.hpp"

namespace gaea_model {

/// Registers the subcommands on construction; run() does the one chosen. Not thread-safe.
class app_commands {
 public:
  /// Adds `lu`, `lbm` and `scf` to `app` with their options (each: `--machine FILE` (required),
  /// `--ranks LIST`, `--profile FILE` = the app's one-rank `--json` output, `--json FILE`).
  /// `app` must outlive this.
  explicit app_commands(CLI::App& app);
  app_commands(const app_commands&) = delete;
  app_commands& operator=(const app_commands&) = delete;

  /// True when the command line chose one of these subcommands.
  bool chosen() const;
  /// The chosen subcommand's `--machine` file (for gaea::model::load_machine).
  const std::string& machine_file() const noexcept { return machine_; }
  /// Prints the table of the chosen subcommand for machine `m` (rank count, predicted seconds and
  /// their breakdown) and writes its `--json` file. Returns the exit status: 0, or 1 after
  /// printing a gaea::error (bad case, unreadable profile, unwritable output) to stderr.
  int run(const gaea::model::machine& m) const;

 private:
  int run_lu(const gaea::model::machine& m) const;
  int run_lbm(const gaea::model::machine& m) const;
  int run_scf(const gaea::model::machine& m) const;

  CLI::App* lu_ = nullptr;
  CLI::App* lbm_ = nullptr;
  CLI::App* scf_ = nullptr;
  // Options, filled by CLI11.
  std::string machine_;
  std::string ranks_lu_ = "1", ranks_lbm_ = "1", ranks_scf_ = "1";
  std::string profile_lu_, profile_lbm_, profile_scf_;
  std::string json_lu_, json_lbm_, json_scf_;
  std::int64_t n_ = 0, block_ = 0;
  double flops_per_rank_ = 0;
  double compute_scale_ = 1;
  std::string dispense_ = "batched";  // scf: single or batched  // scf: the target's compute time
                                      // per unit of the profile's
  std::string grid_, overlap_ = "on";
  std::int64_t nx_ = 0, ny_ = 0;
  bool periodic_ = false;
  std::int64_t threads_ = 0, block_bf_ = 0;
  std::string counter_ = "progress", progress_thread_ = "both";
};

/// Rank counts from "N", "A-B" (A, 2A, 4A, ... up to B) or a comma-separated list of those, in
/// order, without repeats. gaea::error naming the text for anything else or a count below 1.
std::vector<std::int64_t> parse_ranks(const std::string& text);

}  // namespace gaea_model
