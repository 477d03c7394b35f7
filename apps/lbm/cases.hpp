#pragma once
/// \file
/// The built-in flows (Poiseuille channel, lid-driven cavity, obstacles from a mask) and their
/// checks against known solutions.

#include <cmath>
#include <string>
#include <vector>

#include "geometry.hpp"
#include "solver.hpp"

namespace lbm {

/// What the command line chose. NaN / 0 mean "the case's default".
struct case_params {
  std::string name = "cavity";  ///< poiseuille | cavity | mask
  index_t nx = 0, ny = 0;
  double re = std::nan("");    ///< Reynolds number u * L / nu
  double tau = std::nan("");   ///< relaxation time (excludes re)
  double u = std::nan("");     ///< characteristic velocity, lattice units
  std::string mask_file;       ///< case mask
  std::string flow = "inlet";  ///< case mask: inlet (velocity in, pressure out) | force (periodic)
  double force = 1e-5;         ///< case mask with flow force: body-force density along x
};

/// A case and the scales its check uses.
struct flow_case {
  config cfg;
  double u = 0;       ///< characteristic velocity (lid, centre-line, inlet)
  double length = 0;  ///< characteristic length (cavity side, channel height)
  double re = 0;
};

/// Builds the case. Defaults: poiseuille 16 x 32, u_max 0.05, tau 0.8, body-force driven,
/// periodic in x, walls at y; cavity 128 x 128, lid speed 0.1, Re 100; mask: the image's size,
/// inlet speed 0.05, tau 0.8, walls at the top and bottom. Throws gaea::error for bad values.
flow_case make_case(const case_params& p);

/// Outcome of a built-in check.
struct check_result {
  bool pass = false;
  double error = 0;      ///< the checked figure
  double tolerance = 0;  ///< pass when error <= tolerance
  std::string text;      ///< a human-readable account (several lines)
};

/// Poiseuille: L2 relative error of u_x along the middle column against
/// u(y) = F / (2 nu) (y + 1/2) (H - 1/2 - y) (walls half-way between nodes).
check_result check_poiseuille(solver& s, double tolerance = 0.01);

/// Cavity: the centre-line velocities against Ghia, Ghia & Shin (1982) at Re = 100; error =
/// largest |u/U - u_ref| over the interior reference points of both lines. Throws gaea::error
/// unless the case is a square cavity.
check_result check_cavity(solver& s, double lid_speed, double tolerance = 0.02);

/// The velocity component a case watches for steadiness: u_x along the middle column.
std::vector<double> monitor(solver& s);

/// Ghia, Ghia & Shin, "High-Re solutions for incompressible flow using the Navier-Stokes
/// equations and a multigrid method", J. Comput. Phys. 48 (1982) 387-411, Re = 100 columns of
/// Table I (u along the vertical centre line x = 0.5) and Table II (v along the horizontal centre
/// line y = 0.5), 17 points each including the walls.
struct ghia_line {
  double pos[17];
  double vel[17];
};
extern const ghia_line ghia_u_re100;  ///< (y, u/U)
extern const ghia_line ghia_v_re100;  ///< (x, v/U)

}  // namespace lbm
