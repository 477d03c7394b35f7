// gaea-power calibrate and check: see power_commands.hpp.
#include "power_commands.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>

#include "gaea/base/error.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/energy/calibration.hpp"
#include "gaea/energy/meter.hpp"
#include "gaea/energy/sysfs.hpp"

namespace gaea_power {
namespace {

namespace en = gaea::energy;

std::filesystem::path root_of(const options& o) {
  return o.root.empty() ? en::sysfs_root() : o.root;
}

int cores_of(const options& o) {
  return o.cores > 0 ? o.cores : en::hardware_threads();
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string percent(double rel) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100 * rel);
  return buf;
}

// The meter the runtime would use, or nullptr after saying why there is none.
std::unique_ptr<en::meter> hardware_meter(const options& o, const char* cmd) {
  const std::string kind = o.meter.empty() ? en::meter_kind_from_env() : o.meter;
  en::meter_choice c = en::select_meter(kind, root_of(o), en::model_params{}, {},
                                        [] { en::burn_cpu(std::chrono::milliseconds(30)); });
  if (c.m->measured()) {
    std::printf("gaea-power %s: meter %s\n", cmd, c.reason.c_str());
    return std::move(c.m);
  }
  std::printf(
      "gaea-power %s: no hardware meter proved itself%s; nothing measured, nothing "
      "written. Every joule Gaea reports here is modelled.\n",
      cmd, kind == "model" ? " (meter kind 'model' asked for)" : "");
  for (const std::string& r : c.rejected)
    std::printf("  rejected %s\n", r.c_str());
  return nullptr;
}

en::calibration_config config_of(const options& o) {
  en::calibration_config cfg;
  cfg.root = root_of(o);
  cfg.threads = o.threads;
  cfg.phase = std::chrono::milliseconds(o.phase_ms);
  cfg.sample = std::chrono::milliseconds(o.sample_ms);
  cfg.dvfs_kind = o.dvfs;
  cfg.throttle_kind = o.throttle;
  cfg.throttle_levels = o.throttle_levels;
  cfg.on_phase = [](const en::power_phase& ph) {
    std::printf("  phase %-24s %6.2f s  %7.2f CPU-s  %10.3f J  %8.2f W\n", ph.name.c_str(),
                ph.wall_s, ph.cpu_s, ph.joules, ph.measured_w());
    std::fflush(stdout);
  };
  return cfg;
}

// Per phase: measured power, each model's power and its relative error.
void print_table(std::span<const en::power_phase> phases,
                 std::span<const std::pair<std::string, en::power_fit_error>> models) {
  std::printf("%-26s %7s %7s %7s %10s", "phase", "wall_s", "busy", "others", "measured_W");
  for (const auto& [name, e] : models)
    std::printf(" %10s %8s", (name + "_W").c_str(), "error");
  std::printf("\n");
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const en::power_phase& ph = phases[i];
    std::printf("%-26s %7.2f %7.2f", ph.name.c_str(), ph.wall_s, ph.cpu_s / ph.wall_s);
    if (ph.other_cpu_s)
      std::printf(" %7.2f", *ph.other_cpu_s / ph.wall_s);
    else
      std::printf(" %7s", "-");
    std::printf(" %10.2f", ph.measured_w());
    for (const auto& [name, e] : models)
      std::printf(" %10.2f %+7.1f%%", e.modelled_w[i], 100 * e.rel_err[i]);
    std::printf("\n");
  }
  for (const auto& [name, e] : models)
    std::printf("%s: RMS relative error %s, max %s\n", name.c_str(), percent(e.rms_rel).c_str(),
                percent(e.max_rel).c_str());
  // The meter sees every process: warn when others were busy.
  double others = 0;
  for (const en::power_phase& ph : phases)
    others = std::max(others, ph.other_cpu_s.value_or(0) / ph.wall_s);
  if (others > 0.1)
    std::printf(
        "warning: other processes kept up to %.2f cores busy during a phase; the meter "
        "counts their power too, so calibrate on a quiet machine\n",
        others);
}

nlohmann::json params_json(const en::model_params& p) {
  return {{"p_static_w", p.p_static_w},
          {"p_dyn_w", p.p_dyn_w},
          {"p_dyn_other_w", p.p_dyn_other_w},
          {"f_max_khz", p.f_max_khz},
          {"source", p.source}};
}

nlohmann::json table_json(const char* cmd, const en::meter& m, int cores,
                          std::span<const en::power_phase> phases,
                          std::span<const std::pair<std::string, en::power_fit_error>> models) {
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const en::power_phase& ph = phases[i];
    nlohmann::json r = {
        {"name", ph.name},       {"threads", ph.threads}, {"khz", ph.khz},
        {"f_ratio", ph.f_ratio}, {"duty", ph.duty},       {"wall_s", ph.wall_s},
        {"cpu_s", ph.cpu_s},     {"joules", ph.joules},   {"measured_w", ph.measured_w()}};
    r["other_cpu_s"] = ph.other_cpu_s ? nlohmann::json(*ph.other_cpu_s) : nlohmann::json();
    for (const auto& [name, e] : models) {
      r[name + "_w"] = e.modelled_w[i];
      r[name + "_rel_err"] = e.rel_err[i];
    }
    rows.push_back(r);
  }
  nlohmann::json j = {{"schema", 1},
                      {"command", std::string("gaea-power ") + cmd},
                      {"time", utc_now()},
                      {"meter", std::string(m.name())},
                      {"meter_scope", m.scope()},
                      {"cores", cores},
                      {"phases", rows}};
  for (const auto& [name, e] : models)
    j[name + "_error"] = {{"rms_rel", e.rms_rel}, {"max_rel", e.max_rel}};
  return j;
}

void write_json(const std::filesystem::path& file, const nlohmann::json& j) {
  gaea::output_file out(file, "gaea-power --json");
  out.write(j.dump(2) + "\n");
  out.commit();
}

}  // namespace

int calibrate(const options& o) {
  if (o.out.empty()) throw gaea::error("gaea-power calibrate: --output is required");
  gaea::check_output_path(o.out, "gaea-power calibrate --output");
  if (!o.json.empty()) gaea::check_output_path(o.json, "gaea-power calibrate --json");
  const int cores = cores_of(o);
  // The keys the fit leaves alone (frequencies, transitions) and the static/other split.
  const en::model_params base = en::model_params::from_env(root_of(o));
  std::unique_ptr<en::meter> m = hardware_meter(o, "calibrate");
  if (!m) return no_meter;
  const en::calibration_run run = en::run_power_phases(*m, config_of(o));
  std::printf("DVFS: %s\nthrottle: %s\n", run.dvfs.c_str(), run.throttle.c_str());
  en::model_params fit = en::fit_power_model(base, cores, run.phases);
  const std::vector<std::pair<std::string, en::power_fit_error>> models{
      {"fitted", en::evaluate_power_model(fit, cores, run.phases)},
      {"before", en::evaluate_power_model(base, cores, run.phases)}};
  print_table(run.phases, models);
  char note[512];
  std::snprintf(note, sizeof note,
                "fitted by gaea-power calibrate at %s on %s (%s), %zu phases of %lld ms, %d "
                "core-shares, RMS relative error %s, max %s",
                utc_now().c_str(), std::string(m->name()).c_str(), m->scope().c_str(),
                run.phases.size(), static_cast<long long>(o.phase_ms), cores,
                percent(models[0].second.rms_rel).c_str(),
                percent(models[0].second.max_rel).c_str());
  fit.note = note;
  std::printf(
      "fit: p_static_w %.4g, p_dyn_other_w %.4g (together %.4g W per core-share, %.4g W "
      "per node of %d, split as in %s), p_dyn_w %.4g W per busy core at f_max\n",
      fit.p_static_w, fit.p_dyn_other_w, fit.p_static_w + fit.p_dyn_other_w,
      cores * (fit.p_static_w + fit.p_dyn_other_w), cores, base.source.c_str(), fit.p_dyn_w);
  fit.save(o.out);
  std::printf("gaea-power calibrate: wrote %s (use it with GAEA_ENERGY_MODEL=%s)\n", o.out.c_str(),
              o.out.c_str());
  if (!o.json.empty()) {
    nlohmann::json j = table_json("calibrate", *m, cores, run.phases, models);
    j["fitted"] = params_json(en::model_params::load(o.out));
    j["before"] = params_json(base);
    write_json(o.json, j);
  }
  return 0;
}

int check(const options& o) {
  if (!o.json.empty()) gaea::check_output_path(o.json, "gaea-power check --json");
  const int cores = cores_of(o);
  const en::model_params p = en::model_params::from_env(root_of(o));
  std::unique_ptr<en::meter> m = hardware_meter(o, "check");
  if (!m) return no_meter;
  options one = o;
  if (one.threads.empty()) one.threads = {en::hardware_threads()};
  en::calibration_config cfg = config_of(one);
  cfg.dvfs_kind = "off";  // the model as the runtime charges it at f_max
  cfg.throttle_kind = "off";
  const en::calibration_run run = en::run_power_phases(*m, cfg);
  const std::vector<std::pair<std::string, en::power_fit_error>> models{
      {"model", en::evaluate_power_model(p, cores, run.phases)}};
  std::printf("parameters: %s\n", p.source.c_str());
  print_table(run.phases, models);
  double measured = 0, modelled = 0;
  for (std::size_t i = 0; i < run.phases.size(); ++i) {
    measured += run.phases[i].joules;
    modelled += models[0].second.modelled_w[i] * run.phases[i].wall_s;
  }
  std::printf("energy: measured %.3f J, modelled %.3f J (%+.1f %%) on %d core-shares\n", measured,
              modelled, 100 * (modelled / measured - 1), cores);
  if (!o.json.empty()) {
    nlohmann::json j = table_json("check", *m, cores, run.phases, models);
    j["parameters"] = params_json(p);
    write_json(o.json, j);
  }
  return 0;
}

}  // namespace gaea_power
