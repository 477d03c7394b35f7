#pragma once
// The subcommands of gaea-model that run under mpirun (calibrate, validate) and the predictions
// at scale (predict), one file each.

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gaea/model/machine.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea_model {

/// Writes `j` to `file` (indented JSON) through gaea::output_file: a temporary renamed over the
/// target once written; `what` names the file in errors ("gaea-model lu --json"). Nothing for an
/// empty `file`. Not collective.
void write_json(const std::string& file, const nlohmann::json& j, const std::string& what);

/// Collective: measures this machine's LogGP parameters per link class present (rank 0 against
/// the first rank on its node and the first rank on another node) and its local rates, and with
/// `collectives` the collectives' estimator. Every rank gets the same description. `reps`:
/// repetitions per point.
gaea::model::machine calibrate(gaea::runtime& rt, int reps, bool collectives);

/// Collective: measures every operation the models cover at sizes between the calibration's and
/// prints predicted vs measured with the error per case and per model on rank 0; `json_out`
/// (rank 0) gets the table. Returns 0.
int validate(gaea::runtime& rt, const gaea::model::machine& m, int reps,
             const std::string& json_out);

/// Prints, for `m`, the counter latency of [PGAS-BGQ Fig. 10] at every P in `ranks` (with and
/// without the asynchronous progress thread, owner idle and computing `owner_compute_s`), and
/// the collectives' times at those P. Not collective (no runtime). `json_out` when set.
int predict_scale(const gaea::model::machine& m, const std::filesystem::path& machine_file,
                  const std::vector<std::int64_t>& ranks, double owner_compute_s,
                  const std::string& json_out);

/// Prints the machine file's "reference_points" (a source's measured figures) beside the model's
/// predictions and returns them as JSON (empty when the file has none). gaea::error for a point
/// the models cannot evaluate. Not collective.
nlohmann::json reference_points(const gaea::model::machine& m,
                                const std::filesystem::path& machine_file);

}  // namespace gaea_model
