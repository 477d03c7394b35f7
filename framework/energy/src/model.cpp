// The power model: its parameters (JSON file, environment, hardware defaults), energy and power.

#include "gaea/energy/model.hpp"

#include <unistd.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "detail/cpu_info.hpp"
#include "detail/settings.hpp"
#include "gaea/base/error.hpp"
#include "gaea/base/input_file.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/energy/throttle.hpp"

namespace gaea::energy {
namespace {

// One calibration-file key: exactly one of the three members is set. load() and save() both walk
// this table, so the file format is defined once.
struct field {
  const char* key;
  double model_params::*real;
  std::int64_t model_params::*integer;
  bool zero_ok = false;  // 0 accepted (the term is off); negative values never are
  std::string model_params::*text = nullptr;
};
constexpr field fields[] = {
    {"p_static_w", &model_params::p_static_w, nullptr},
    {"p_dyn_w", &model_params::p_dyn_w, nullptr},
    {"p_dyn_other_w", &model_params::p_dyn_other_w, nullptr, true},
    {"f_max_khz", nullptr, &model_params::f_max_khz},
    {"f_min_khz", nullptr, &model_params::f_min_khz},
    {"transition_ns", nullptr, &model_params::transition_ns},
    {"transition_j", &model_params::transition_j, nullptr},
    {"throttle_transition_ns", nullptr, &model_params::throttle_transition_ns},
    {"throttle_transition_j", &model_params::throttle_transition_j, nullptr},
    {"source", nullptr, nullptr, false, &model_params::note},
};

std::string accepted_keys() {
  std::string s;
  for (const field& f : fields)
    s += (s.empty() ? "" : ", ") + std::string(f.key);
  return s;
}

[[noreturn]] void bad_key(const std::filesystem::path& file, const std::string& key,
                          const std::string& problem) {
  throw error("energy model file '" + file.string() + "': key '" + key + "' " + problem);
}

void set_field(model_params& p, const field& f, const nlohmann::json& v,
               const std::filesystem::path& file) {
  if (f.text) {
    if (!v.is_string()) bad_key(file, f.key, "must be a string, got " + v.dump());
    p.*f.text = v.get<std::string>();
    return;
  }
  if (f.real) {
    if (!v.is_number()) bad_key(file, f.key, "must be a number, got " + v.dump());
    const double x = v.get<double>();
    if (f.zero_ok ? !(x >= 0) : !(x > 0))
      bad_key(file, f.key,
              std::string(f.zero_ok ? "must be 0 or positive" : "must be positive") + ", got " +
                  v.dump());
    p.*f.real = x;
    return;
  }
  if (!v.is_number_integer()) bad_key(file, f.key, "must be an integer, got " + v.dump());
  if (v.is_number_unsigned() &&
      v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    bad_key(file, f.key, "is too large: " + v.dump());
  const std::int64_t x = v.get<std::int64_t>();
  if (x <= 0) bad_key(file, f.key, "must be positive, got " + v.dump());
  p.*f.integer = x;
}

}  // namespace

model_params model_params::load(const std::filesystem::path& file) {
  const std::string text = read_input_file(file, "energy model file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw error("energy model file '" + file.string() + "': not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object())
    throw error("energy model file '" + file.string() + "': expected a JSON object with keys " +
                accepted_keys());
  model_params p;
  for (const auto& [key, value] : j.items()) {
    const field* match = nullptr;
    for (const field& f : fields)
      if (key == f.key) match = &f;
    if (!match) bad_key(file, key, "is unknown (accepted: " + accepted_keys() + ")");
    set_field(p, *match, value, file);
  }
  if (p.f_min_khz > p.f_max_khz)
    bad_key(
        file, "f_min_khz",
        "= " + std::to_string(p.f_min_khz) + " exceeds f_max_khz = " + std::to_string(p.f_max_khz));
  p.source = file.string();
  if (!p.note.empty()) p.source += " (" + p.note + ")";
  return p;
}

model_params model_params::from_env(const std::filesystem::path& root) {
  if (auto file = detail::model_file.raw()) return load(*file);
  model_params p;
  if (auto hw = detail::cpuinfo_range(root, 0)) {
    p.f_max_khz = hw->max_khz;
    p.f_min_khz = hw->min_khz;
    p.source = "defaults, f_max/f_min from " + detail::cpufreq_dir(root, 0).string() +
               "/cpuinfo_{max,min}_freq";
  }
  return p;
}

void model_params::save(const std::filesystem::path& file) const {
  nlohmann::json j = nlohmann::json::object();
  for (const field& f : fields) {
    if (f.text) {
      if (!(this->*f.text).empty()) j[f.key] = this->*f.text;
    } else if (f.real) {
      j[f.key] = this->*f.real;
    } else {
      j[f.key] = this->*f.integer;
    }
  }
  output_file out(file, "energy model file");
  out.write(j.dump(2) + "\n");
  out.commit();
}

namespace {
// (khz / f_max)^3, the dynamic-power scale; khz 0 means f_max.
double cube_ratio(const model_params& p, std::int64_t khz) {
  if (khz <= 0 || p.f_max_khz <= 0) return 1.0;
  const double r = static_cast<double>(khz) / static_cast<double>(p.f_max_khz);
  return r * r * r;
}
}  // namespace

double model_energy_j(const model_params& p, double wall_seconds, std::span<const cpu_share> shares,
                      std::uint64_t transitions, std::uint64_t throttle_transitions) {
  double j = (p.p_static_w + p.p_dyn_other_w) * wall_seconds;
  for (const cpu_share& s : shares)
    j += p.p_dyn_w * s.cpu_seconds * cube_ratio(p, s.khz) * s.duty;
  return j + static_cast<double>(transitions) * p.transition_j +
         static_cast<double>(throttle_transitions) * p.throttle_transition_j;
}

double cpu_dynamic_power_w(const model_params& p, double u, std::int64_t khz, double duty) {
  return u * p.p_dyn_w * cube_ratio(p, khz) * duty;
}

double model_power_w(const model_params& p, double u, std::int64_t khz, double duty) {
  return p.p_static_w + p.p_dyn_other_w + cpu_dynamic_power_w(p, u, khz, duty);
}

double node_power_w(const model_params& p, int cores, std::int64_t khz, int level) {
  if (cores < 1)
    throw error("node_power_w: cores = " + std::to_string(cores) + ", expected at least 1");
  if (level < 0 || level >= throttle_levels)
    throw error("node_power_w: level = " + std::to_string(level) + ", expected 0..7 (T0..T7)");
  // [A2A-Energy] eq. 1 as written: n = 8 periods per modulation cycle, j of them idle. At an idle
  // period only P_s + P_d remain; at the others the node draws P_i0.
  const double c = cores;
  const double floor_w = c * (p.p_static_w + p.p_dyn_other_w);  // P_s + P_d
  const double p_i0 = c * cpu_dynamic_power_w(p, 1.0, khz) + floor_w;
  const int n = throttle_levels;
  return (level * floor_w + (n - level) * p_i0) / n;
}

}  // namespace gaea::energy
