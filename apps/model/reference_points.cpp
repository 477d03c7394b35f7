// The measured points a machine description carries ("reference_points": a paper's figures),
// printed beside the model's prediction for each. "role": "input" marks a point the description's
// parameters were set from (agreement is by construction); "check" marks one they were not.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "commands.hpp"
#include "gaea/base/error.hpp"
#include "gaea/base/input_file.hpp"
#include "gaea/model/operations.hpp"

namespace gaea_model {

namespace model = gaea::model;

nlohmann::json reference_points(const model::machine& m, const std::filesystem::path& file) {
  nlohmann::json j = nlohmann::json::parse(gaea::read_input_file(file, "gaea-model: machine file"),
                                           nullptr, false);
  nlohmann::json out = nlohmann::json::array();
  if (j.is_discarded() || !j.contains("reference_points")) return out;
  const nlohmann::json& points = j["reference_points"];
  if (!points.is_array())
    throw gaea::error("gaea-model: " + file.string() + ": 'reference_points' must be an array");
  if (!points.empty()) {
    std::printf("\n# measured points of the machine's source beside the model\n");
    std::printf("%-48s %6s %15s %15s %8s  %s\n", "point", "role", "measured", "model", "err_%",
                "source");
  }
  for (const nlohmann::json& p : points) {
    const std::string what = p.value("what", std::string("?"));
    const std::string kind = p.value("model", std::string());
    const double bytes = p.value("bytes", 0.0), hops = p.value("hops", 1.0);
    const double measured = p.value("measured_s", 0.0);
    if (!(measured > 0) || hops < 1)
      throw gaea::error("gaea-model: " + file.string() + ": reference point '" + what +
                        "' needs measured_s > 0 and hops >= 1");
    const double extra = m.hop_s * (hops - 1);
    double predicted = 0;
    if (kind == "get")
      predicted = model::contiguous_s(m, model::link_class::inter, bytes,
                                      model::contiguous_path::rma, extra);
    else if (kind == "get_per_byte" && bytes > 0)
      predicted = model::contiguous_s(m, model::link_class::inter, bytes,
                                      model::contiguous_path::rma, extra) /
                  bytes;
    else
      throw gaea::error("gaea-model: " + file.string() + ": reference point '" + what +
                        "' has model '" + kind + "' (get or get_per_byte, with bytes > 0)");
    const double err = 100 * (predicted - measured) / measured;
    const std::string unit = kind == "get" ? "us" : "ns/B";
    const double scale = kind == "get" ? 1e6 : 1e9;
    std::printf("%-48s %6s %10.3f %-4s %10.3f %-4s %8.1f  %s\n", what.c_str(),
                p.value("role", std::string("check")).c_str(), measured * scale, unit.c_str(),
                predicted * scale, unit.c_str(), err, p.value("cite", std::string()).c_str());
    out.push_back({{"what", what},
                   {"role", p.value("role", std::string("check"))},
                   {"measured", measured},
                   {"predicted", predicted},
                   {"error_pct", err}});
  }
  return out;
}

}  // namespace gaea_model
