#pragma once
/// \file
/// Validation of a restart snapshot before and after its populations are loaded: the
/// attributes must describe this run (grid, tau, force, case) and a sane state (step >= 0,
/// monitor), and every population must be finite and physical (non-negative within rounding,
/// density and velocity of each cell in the ranges below). Bad files fail every rank with a
/// gaea::error naming the file, the attribute or the cell, and the values.

#include <cstdint>
#include <string>

#include "solver.hpp"

namespace lbm {

/// Physical range of a restart's state (lattice units). A D2Q9 BGK run at |u| <= 0.4 keeps the
/// density within a few percent of 1; these bounds only refuse states no run can produce.
inline constexpr double restart_min_density = 0.2;
inline constexpr double restart_max_density = 5.0;
inline constexpr double restart_max_speed = 1.0;
/// Post-collision populations may dip below zero by rounding and at sharp corners (the
/// cavity's lid corners); anything below -this * w_i * rho is refused.
inline constexpr double restart_negative_tolerance = 0.5;

/// The attributes of a snapshot a restart depends on (see snapshot.hpp for the layout).
struct restart_header {
  std::int64_t step = 0, nx = 0, ny = 0, monitor_step = -1, monitor_length = 0;
  double tau = 0, fx = 0, fy = 0;
  std::string case_name;
};

/// Not collective (every rank on its own): reads the header of `file` and checks it against the
/// run `g`: same grid, case, tau, fx and fy (to 1e-12 relative), step >= 0, monitor_step in
/// [-1, step], monitor_length in [0, ny]. Throws gaea::error naming the file, the attribute and
/// both values.
restart_header read_restart_header(const std::string& file, const config& g);

/// Collective: read_restart_header() on every rank, agreed (a file bad or missing on some ranks
/// fails every rank with that rank's message), and the same header on every rank (a different
/// file per rank is refused, naming both headers).
restart_header load_restart_header(const std::string& file, const config& g);

/// Collective: checks this rank's loaded populations of `s` (every cell of its tiles) and the
/// monitor profile (finite); every rank throws the lowest failing rank's message, which names
/// the file, the cell (x, y), the population or moment and its value.
void check_restart_state(solver& s, const std::string& file, const std::vector<double>& monitor);

}  // namespace lbm
