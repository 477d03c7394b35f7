// Checks of a gaea-lbm restart snapshot: its attributes before loading, its state after.

#include "restart_check.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "gaea/base/error.hpp"
#include "gaea/base/input_file.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/ga/io.hpp"
#include "input_checks.hpp"
#include "lattice.hpp"

namespace lbm {

namespace {

std::string g17(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string fmt_g(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

bool same(double a, double b) {
  return a == b || std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b));
}

}  // namespace

restart_header read_restart_header(const std::string& file, const config& g) {
  const std::string who = "lbm: restart file '" + file + "'";
  gaea::check_input_file(file, "lbm: restart file");  // not a FIFO, a device or a directory
  const auto i64 = [&](const char* name) {
    return gaea::ga::read_attribute_as<std::int64_t>(file, name);
  };
  const auto f64 = [&](const char* name) {
    const double v = gaea::ga::read_attribute_as<double>(file, name);
    if (!std::isfinite(v))
      throw gaea::error(who + ": attribute " + name + " = " + g17(v) + " is not finite");
    return v;
  };
  restart_header h;
  h.nx = i64("nx");
  h.ny = i64("ny");
  if (h.nx != g.nx || h.ny != g.ny)
    throw gaea::error(who + " holds a " + std::to_string(h.nx) + " x " + std::to_string(h.ny) +
                      " grid, the run is " + std::to_string(g.nx) + " x " + std::to_string(g.ny));
  h.step = i64("step");
  if (h.step < 0) throw gaea::error(who + ": step " + std::to_string(h.step) + " is negative");
  h.case_name = gaea::ga::read_attribute_as<std::string>(file, "case");
  if (h.case_name != g.name)
    throw gaea::error(who + " is of case '" + h.case_name + "', the run is '" + g.name + "'");
  // The stored tau and force define the flow the populations belong to: continuing them with
  // other values would silently mix two flows.
  h.tau = f64("tau");
  h.fx = f64("fx");
  h.fy = f64("fy");
  const auto match = [&](const char* name, double stored, double run, const char* option) {
    if (!same(stored, run))
      throw gaea::error(who + " was written with " + name + " = " + g17(stored) + ", the run has " +
                        g17(run) + " (" + option + "; a restart must continue the same flow)");
  };
  match("tau", h.tau, g.tau, "--tau/--re/--u");
  match("fx", h.fx, g.fx, "--force or the case's forcing");
  match("fy", h.fy, g.fy, "the case's forcing");
  h.monitor_step = i64("monitor_step");
  if (h.monitor_step < -1 || h.monitor_step > h.step)
    throw gaea::error(who + ": monitor_step " + std::to_string(h.monitor_step) +
                      " is not in [-1, step " + std::to_string(h.step) + "]");
  h.monitor_length = i64("monitor_length");
  if (h.monitor_length < 0 || h.monitor_length > g.ny)
    throw gaea::error(who + ": monitor_length " + std::to_string(h.monitor_length) +
                      " is not in [0, ny = " + std::to_string(g.ny) + "]");
  return h;
}

restart_header load_restart_header(const std::string& file, const config& g) {
  restart_header h;
  apps::on_every_rank([&] { h = read_restart_header(file, g); });
  apps::same_on_every_rank("restart files",
                           "'" + file + "' at step " + std::to_string(h.step) + " (monitor step " +
                               std::to_string(h.monitor_step) + ", " +
                               std::to_string(h.monitor_length) + " monitor values, " +
                               std::to_string(std::filesystem::file_size(file)) + " bytes)");
  return h;
}

void check_restart_state(solver& s, const std::string& file, const std::vector<double>& monitor) {
  const config& g = s.problem();
  const std::string who = "lbm: restart file '" + file + "'";
  std::string problem;
  for (std::size_t k = 0; k < monitor.size() && problem.empty(); ++k)
    if (!std::isfinite(monitor[k]))
      problem = who + ": monitor value " + std::to_string(k) + " is " + g17(monitor[k]);
  const auto tiles = s.populations().local_tiles();
  for (const auto& t : tiles) {
    for (index_t r = 0; r < t.box.extent(1) && problem.empty(); ++r)
      for (index_t c = 0; c < t.box.extent(2) && problem.empty(); ++c) {
        const index_t y = t.box.lo[1] + r, x = t.box.lo[2] + c;
        const std::string cell =
            who + ": cell (x " + std::to_string(x) + ", y " + std::to_string(y) + ")";
        double f[q];
        for (int i = 0; i < q; ++i) {
          f[i] = t.origin[i * t.strides[0] + r * t.strides[1] + c];
          if (!std::isfinite(f[i])) {
            problem = cell + ": population " + std::to_string(i) + " is " + g17(f[i]);
            break;
          }
        }
        if (!problem.empty()) break;
        if (g.flag(x, y) == cell_flag::solid) continue;  // obstacles hold no flow
        double rho = 0, ux = 0, uy = 0;
        moments(f, g.fx, g.fy, rho, ux, uy);
        if (!(rho >= restart_min_density && rho <= restart_max_density)) {
          problem = cell + ": density " + g17(rho) + " is outside the physical range [" +
                    fmt_g(restart_min_density) + ", " + fmt_g(restart_max_density) + "]";
          break;
        }
        for (int i = 0; i < q && problem.empty(); ++i)
          if (f[i] < -restart_negative_tolerance * w[static_cast<std::size_t>(i)] * rho)
            problem =
                cell + ": population " + std::to_string(i) + " is negative (" + g17(f[i]) + ")";
        const double speed = std::hypot(ux, uy);
        if (problem.empty() && !(speed <= restart_max_speed))
          problem = cell + ": speed " + g17(speed) + " exceeds " + fmt_g(restart_max_speed) +
                    " (lattice units)";
      }
  }
  apps::agree(problem);
}

}  // namespace lbm
