// One-rank profiles for the app models, read from the apps' `--json` output: the last line of
// the file that parses as a JSON object (the apps print it after their text report).
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "detail/json_field.hpp"
#include "gaea/base/error.hpp"
#include "gaea/base/input_file.hpp"
#include "gaea/model/apps.hpp"

namespace gaea::model {

namespace {

struct json_file {
  std::string file;
  nlohmann::json j;

  std::string what() const { return "profile '" + file + "'"; }
  template <class T>
  T get(const char* key) const {
    return detail::json_field<T>(j, key, what(), {}, " (run the app with --json)");
  }
  template <class T>
  T get_or(const char* key, T fallback) const {
    return detail::json_field_or<T>(j, key, fallback, what());
  }
  void one_rank() const {
    const auto ranks = get<std::int64_t>("ranks");
    if (ranks != 1)
      throw error("profile '" + file + "': ran on " + std::to_string(ranks) +
                  " ranks; a profile must come from a one-rank run");
  }
  double positive(const char* key) const {
    const auto v = get<double>(key);
    if (!(v > 0))
      throw error("profile '" + file + "': " + key + " = " + std::to_string(v) + " must be > 0");
    return v;
  }
};

json_file read(const std::filesystem::path& path) {
  std::istringstream in(read_input_file(path, "profile"));
  json_file out{path.string(), {}};
  std::string line;
  bool found = false;
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] != '{') continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;
    out.j = std::move(j);
    found = true;
  }
  if (!found)
    throw error("profile '" + path.string() + "': no JSON object line (run the app with --json)");
  return out;
}

}  // namespace

std::pair<lu_profile, lu_case> read_lu_profile(const std::filesystem::path& file) {
  const json_file f = read(file);
  f.one_rank();
  lu_case c;
  c.n = f.get<std::int64_t>("n");
  c.block = f.get<std::int64_t>("block");
  c.overlap = f.get_or<bool>("overlap", true);
  if (f.get_or<bool>("pivot", false))
    throw error("profile '" + f.file + "': a --pivot run; the model is of the unpivoted LU");
  const double n = static_cast<double>(c.n);
  lu_profile p;
  p.flops_per_s = 2 * n * n * n / 3 / f.positive("compute_s");
  return {p, c};
}

std::pair<lbm_profile, lbm_case> read_lbm_profile(const std::filesystem::path& file) {
  const json_file f = read(file);
  f.one_rank();
  lbm_case c;
  c.nx = f.get<std::int64_t>("nx");
  c.ny = f.get<std::int64_t>("ny");
  c.periodic = f.get_or<bool>("periodic", false);
  const auto steps = f.get<std::int64_t>("steps");
  if (steps < 1 || c.nx < 1 || c.ny < 1)
    throw error("profile '" + f.file + "': steps = " + std::to_string(steps) + ", nx = " +
                std::to_string(c.nx) + ", ny = " + std::to_string(c.ny) + " must be >= 1");
  lbm_profile p;
  p.cell_s = f.positive("compute_s") /
             (static_cast<double>(c.nx) * static_cast<double>(c.ny) * static_cast<double>(steps));
  return {p, c};
}

std::pair<scf_profile, scf_case> read_scf_profile(const std::filesystem::path& file) {
  const json_file f = read(file);
  f.one_rank();
  scf_profile p;
  p.nbf = f.get<std::int64_t>("nbf");
  p.blocks = f.get<std::int64_t>("blocks");
  p.tasks = f.get<std::int64_t>("tasks");
  p.integrals_s = f.positive("integrals_s");
  p.max_task_s = f.get_or<double>("max_task_s", 0.0);
  p.diag_s = f.get_or<double>("diag_s", 0.0);
  const double accs = f.get_or<double>("accs", 0.0);
  if (accs > 0) p.accs_per_task = accs / static_cast<double>(p.tasks);
  scf_case c;
  c.threads = f.get_or<std::int64_t>("threads", 1);
  return {p, c};
}

}  // namespace gaea::model
