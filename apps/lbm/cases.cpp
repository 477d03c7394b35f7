// The built-in flows of gaea-lbm (cases.hpp) and their checks against known solutions.

#include "cases.hpp"

#include <algorithm>
#include <cstdio>

#include "gaea/base/error.hpp"
#include "mask.hpp"

namespace lbm {

// Ghia et al. 1982, Table I and Table II, Re = 100 (values as published).
const ghia_line ghia_u_re100 = {
    {1.0000, 0.9766, 0.9688, 0.9609, 0.9531, 0.8516, 0.7344, 0.6172, 0.5000, 0.4531, 0.2813, 0.1719,
     0.1016, 0.0703, 0.0625, 0.0547, 0.0000},
    {1.00000, 0.84123, 0.78871, 0.73722, 0.68717, 0.23151, 0.00332, -0.13641, -0.20581, -0.21090,
     -0.15662, -0.10150, -0.06434, -0.04775, -0.04192, -0.03717, 0.00000}};
const ghia_line ghia_v_re100 = {
    {1.0000, 0.9688, 0.9609, 0.9531, 0.9453, 0.9063, 0.8594, 0.8047, 0.5000, 0.2344, 0.2266, 0.1563,
     0.0938, 0.0781, 0.0703, 0.0625, 0.0000},
    {0.00000, -0.05906, -0.07391, -0.08864, -0.10313, -0.16914, -0.22445, -0.24533, 0.05454,
     0.17527, 0.17507, 0.16077, 0.12317, 0.10890, 0.10091, 0.09233, 0.00000}};

namespace {

std::string fmt(const char* f, double a, double b = 0, double c = 0, double d = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a, b, c, d);
  return buf;
}

// Viscosity from whichever of re / tau was given (tau wins when both are NaN: default_tau).
double pick_tau(const case_params& p, double u, double length, double default_tau) {
  if (!std::isnan(p.re) && !std::isnan(p.tau))
    throw gaea::error("lbm: give --re or --tau, not both");
  if (!std::isnan(p.re)) {
    if (!(p.re > 0)) throw gaea::error("lbm: --re " + std::to_string(p.re) + " must be > 0");
    return 3.0 * u * length / p.re + 0.5;
  }
  const double tau = std::isnan(p.tau) ? default_tau : p.tau;
  if (!(tau > 0.5)) throw gaea::error("lbm: --tau " + std::to_string(tau) + " must be > 0.5");
  return tau;
}

double pick_u(const case_params& p, double def) {
  const double u = std::isnan(p.u) ? def : p.u;
  // Beyond ~0.3 the second-order equilibrium's compressibility error dominates.
  if (!(u > 0) || u > 0.4)
    throw gaea::error("lbm: velocity " + std::to_string(u) +
                      " must be in (0, 0.4] (lattice units)");
  return u;
}

// Quadratic Lagrange interpolation of points (xs, ys) (ascending xs) at x.
double interpolate(const std::vector<double>& xs, const std::vector<double>& ys, double x) {
  const auto n = static_cast<std::ptrdiff_t>(xs.size());
  // Bracketing points k-1 and k, plus whichever of k-2 and k+1 is nearer.
  const std::ptrdiff_t k = std::lower_bound(xs.begin(), xs.end(), x) - xs.begin();
  std::ptrdiff_t a = k - 1;
  if (k - 2 >= 0 && (k + 1 >= n || x - xs[static_cast<std::size_t>(k - 2)] <
                                       xs[static_cast<std::size_t>(k + 1)] - x))
    a = k - 2;
  a = std::clamp<std::ptrdiff_t>(a, 0, n - 3);
  double r = 0;
  for (auto i = static_cast<std::size_t>(a); i < static_cast<std::size_t>(a + 3); ++i) {
    double l = 1;
    for (auto j = static_cast<std::size_t>(a); j < static_cast<std::size_t>(a + 3); ++j)
      if (j != i) l *= (x - xs[j]) / (xs[i] - xs[j]);
    r += l * ys[i];
  }
  return r;
}

// Values v[k] at cell centres (k + 1/2) / n of [0, 1], plus the wall values at 0 and 1.
std::pair<std::vector<double>, std::vector<double>> with_walls(const std::vector<double>& v,
                                                               double lo, double hi) {
  const auto n = v.size();
  std::vector<double> xs(n + 2), ys(n + 2);
  xs[0] = 0, ys[0] = lo;
  for (std::size_t k = 0; k < n; ++k)
    xs[k + 1] = (static_cast<double>(k) + 0.5) / static_cast<double>(n), ys[k + 1] = v[k];
  xs[n + 1] = 1, ys[n + 1] = hi;
  return {xs, ys};
}

}  // namespace

flow_case make_case(const case_params& p) {
  if (p.nx < 0 || p.ny < 0)
    throw gaea::error("lbm: grid " + std::to_string(p.nx) + " x " + std::to_string(p.ny) +
                      " must be positive");
  flow_case c;
  config& g = c.cfg;
  g.name = p.name;
  if (p.name == "poiseuille") {
    g.nx = p.nx ? p.nx : 16;
    g.ny = p.ny ? p.ny : 32;
    c.u = pick_u(p, 0.05);
    c.length = static_cast<double>(g.ny);
    g.tau = pick_tau(p, c.u, c.length, 0.8);
    // u_max = F H^2 / (8 nu) with H = ny (walls half-way between nodes).
    g.fx = 8.0 * g.nu() * c.u / (c.length * c.length);
    g.sides[left].kind = g.sides[right].kind = side_kind::periodic;
    g.sides[bottom].kind = g.sides[top].kind = side_kind::wall;
  } else if (p.name == "cavity") {
    g.nx = p.nx ? p.nx : (p.ny ? p.ny : 128);
    g.ny = p.ny ? p.ny : g.nx;
    c.u = pick_u(p, 0.1);
    c.length = static_cast<double>(g.nx);
    const double re = std::isnan(p.re) && std::isnan(p.tau) ? 100.0 : p.re;
    case_params q2 = p;
    q2.re = re;
    g.tau = pick_tau(q2, c.u, c.length, 0.8);
    g.sides[top] = {side_kind::velocity, c.u, 0.0, 1.0};
  } else if (p.name == "mask") {
    if (p.mask_file.empty()) throw gaea::error("lbm: --case mask needs --mask FILE");
    mask m = read_mask(p.mask_file);
    if ((p.nx && p.nx != m.nx) || (p.ny && p.ny != m.ny))
      throw gaea::error("lbm: --nx/--ny " + std::to_string(p.nx) + " x " + std::to_string(p.ny) +
                        " differ from the mask's " + std::to_string(m.nx) + " x " +
                        std::to_string(m.ny));
    g.nx = m.nx;
    g.ny = m.ny;
    g.solid = std::move(m.solid);
    c.u = pick_u(p, 0.05);
    c.length = static_cast<double>(g.ny);
    g.tau = pick_tau(p, c.u, c.length, 0.8);
    if (p.flow == "inlet") {
      g.sides[left] = {side_kind::velocity, c.u, 0.0, 1.0};
      g.sides[right] = {side_kind::pressure, 0.0, 0.0, 1.0};
    } else if (p.flow == "force") {
      if (!(std::abs(p.force) < 0.01))
        throw gaea::error("lbm: --force " + std::to_string(p.force) +
                          " must be below 0.01 in size");
      g.fx = p.force;
      g.sides[left].kind = g.sides[right].kind = side_kind::periodic;
    } else {
      throw gaea::error("lbm: --flow '" + p.flow + "' must be inlet or force");
    }
  } else {
    throw gaea::error("lbm: --case '" + p.name + "' must be poiseuille, cavity or mask");
  }
  c.re = c.u * c.length / g.nu();
  g.validate();
  return c;
}

std::vector<double> monitor(solver& s) {
  return s.column(s.problem().nx / 2).ux;
}

check_result check_poiseuille(solver& s, double tolerance) {
  const config& g = s.problem();
  const profile pr = s.column(g.nx / 2);
  double num = 0, den = 0, peak = 0;
  for (index_t y = 0; y < g.ny; ++y) {
    const double yy = static_cast<double>(y);
    const double exact =
        g.fx / (2.0 * g.nu()) * (yy + 0.5) * (static_cast<double>(g.ny) - 0.5 - yy);
    const double d = pr.ux[static_cast<std::size_t>(y)] - exact;
    num += d * d;
    den += exact * exact;
    peak = std::max(peak, pr.ux[static_cast<std::size_t>(y)]);
  }
  check_result r;
  r.error = std::sqrt(num / den);
  r.tolerance = tolerance;
  r.pass = r.error <= tolerance;
  r.text = fmt("poiseuille: L2 relative error %.3e against the analytic parabola (tolerance %.1e),",
               r.error, tolerance) +
           fmt(" u_max %.6f vs %.6f analytic\n", peak,
               g.fx * static_cast<double>(g.ny * g.ny) / (8.0 * g.nu()));
  return r;
}

check_result check_cavity(solver& s, double lid, double tolerance) {
  const config& g = s.problem();
  if (g.nx != g.ny || g.sides[top].kind != side_kind::velocity)
    throw gaea::error("lbm: the Ghia check needs a square lid-driven cavity");
  const index_t n = g.nx;
  // The centre line x = 0.5 lies at cell index n/2 - 1/2: one column (odd n) or the mean of two.
  const index_t j0 = (n - 1) / 2, j1 = n / 2;
  const profile c0 = s.column(j0), c1 = s.column(j1);
  const profile r0 = s.row(j0), r1 = s.row(j1);
  std::vector<double> u(static_cast<std::size_t>(n)), v(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < u.size(); ++k) {
    u[k] = 0.5 * (c0.ux[k] + c1.ux[k]) / lid;
    v[k] = 0.5 * (r0.uy[k] + r1.uy[k]) / lid;
  }
  const auto [uy, uv] = with_walls(u, 0.0, 1.0);
  const auto [vx, vv] = with_walls(v, 0.0, 0.0);
  check_result r;
  r.tolerance = tolerance;
  r.text =
      "cavity: centre-line velocities / lid speed vs Ghia, Ghia & Shin (1982), Re = 100\n"
      "     y   u_lbm    u_ref   |diff|       x   v_lbm    v_ref   |diff|\n";
  for (int k = 1; k < 16; ++k) {  // interior points; the walls are imposed
    const double ul = interpolate(uy, uv, ghia_u_re100.pos[k]);
    const double vl = interpolate(vx, vv, ghia_v_re100.pos[k]);
    const double du = std::abs(ul - ghia_u_re100.vel[k]), dv = std::abs(vl - ghia_v_re100.vel[k]);
    r.error = std::max({r.error, du, dv});
    r.text += fmt("  %.4f %8.5f %8.5f %7.5f", ghia_u_re100.pos[k], ul, ghia_u_re100.vel[k], du) +
              fmt("  %.4f %8.5f %8.5f %7.5f\n", ghia_v_re100.pos[k], vl, ghia_v_re100.vel[k], dv);
  }
  r.pass = r.error <= tolerance;
  r.text += fmt("cavity: max |error| %.4f of the lid speed (tolerance %.3f)\n", r.error, tolerance);
  return r;
}

}  // namespace lbm
