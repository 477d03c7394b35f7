#pragma once
/// \file
/// D2Q9 lattice constants and the BGK collision with Guo forcing, shared by the fast (all
/// neighbours fluid) and the boundary code paths so that both do exactly the same arithmetic.

#include <array>
#include <cstdint>

namespace lbm {

/// Number of discrete velocities.
inline constexpr int q = 9;
/// Velocity i = (cx[i], cy[i]); 0 rest, 1-4 axes (E, N, W, S), 5-8 diagonals (NE, NW, SW, SE).
inline constexpr std::array<int, q> cx = {0, 1, 0, -1, 0, 1, -1, -1, 1};
inline constexpr std::array<int, q> cy = {0, 0, 1, 0, -1, 1, 1, -1, -1};
/// opp[i]: the velocity pointing the other way.
inline constexpr std::array<int, q> opp = {0, 3, 4, 1, 2, 7, 8, 5, 6};
inline constexpr std::array<double, q> w = {4.0 / 9,  1.0 / 9,  1.0 / 9,  1.0 / 9, 1.0 / 9,
                                            1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36};

/// Equilibrium population i at density rho and velocity (ux, uy) (second order in u).
inline double equilibrium(int i, double rho, double ux, double uy) {
  const double cu = cx[static_cast<std::size_t>(i)] * ux + cy[static_cast<std::size_t>(i)] * uy;
  return w[static_cast<std::size_t>(i)] * rho *
         (1.0 + 3.0 * cu + 4.5 * cu * cu - 1.5 * (ux * ux + uy * uy));
}

/// Density and velocity of populations `f` with force density (fx, fy): u = (sum c f + F/2) / rho
/// (Guo et al. 2002), which is also the velocity the solver reports.
inline void moments(const double* f, double fx, double fy, double& rho, double& ux, double& uy) {
  rho = ((f[0] + f[1]) + (f[2] + f[3])) + ((f[4] + f[5]) + (f[6] + f[7])) + f[8];
  const double inv = 1.0 / rho;
  ux = ((f[1] - f[3]) + (f[5] - f[6]) + (f[8] - f[7]) + 0.5 * fx) * inv;
  uy = ((f[2] - f[4]) + (f[5] + f[6]) - (f[7] + f[8]) + 0.5 * fy) * inv;
}

/// BGK relaxation of one cell's incoming populations `f` into `out` (may alias `f`), with Guo's
/// forcing term when `Force`. omega = 1 / tau.
template <bool Force>
inline void collide(const double* f, double* out, double omega, double fx, double fy) {
  double rho, ux, uy;
  moments(f, Force ? fx : 0.0, Force ? fy : 0.0, rho, ux, uy);
  const double usq = 1.5 * (ux * ux + uy * uy);
  const double keep = 1.0 - omega;
  // Unrolled by hand: the compiler vectorises the loop over cells, not over the 9 velocities.
  const double wr0 = omega * rho * (4.0 / 9), wr1 = omega * rho * (1.0 / 9),
               wr2 = omega * rho * (1.0 / 36);
  double o[q];
  o[0] = keep * f[0] + wr0 * (1.0 - usq);
  const double ce = ux, cn = uy, c5 = ux + uy, c6 = uy - ux;
  o[1] = keep * f[1] + wr1 * (1.0 + 3.0 * ce + 4.5 * ce * ce - usq);
  o[3] = keep * f[3] + wr1 * (1.0 - 3.0 * ce + 4.5 * ce * ce - usq);
  o[2] = keep * f[2] + wr1 * (1.0 + 3.0 * cn + 4.5 * cn * cn - usq);
  o[4] = keep * f[4] + wr1 * (1.0 - 3.0 * cn + 4.5 * cn * cn - usq);
  o[5] = keep * f[5] + wr2 * (1.0 + 3.0 * c5 + 4.5 * c5 * c5 - usq);
  o[7] = keep * f[7] + wr2 * (1.0 - 3.0 * c5 + 4.5 * c5 * c5 - usq);
  o[6] = keep * f[6] + wr2 * (1.0 + 3.0 * c6 + 4.5 * c6 * c6 - usq);
  o[8] = keep * f[8] + wr2 * (1.0 - 3.0 * c6 + 4.5 * c6 * c6 - usq);
  if constexpr (Force) {
    // S_i = (1 - omega/2) w_i [3 (c_i - u) + 9 (c_i . u) c_i] . F
    const double k = 1.0 - 0.5 * omega;
    const double uf = ux * fx + uy * fy;
    for (int i = 0; i < q; ++i) {
      const auto s = static_cast<std::size_t>(i);
      const double cf = cx[s] * fx + cy[s] * fy;
      const double cu = cx[s] * ux + cy[s] * uy;
      o[i] += k * w[s] * (3.0 * (cf - uf) + 9.0 * cu * cf);
    }
  }
  for (int i = 0; i < q; ++i)
    out[i] = o[i];
}

}  // namespace lbm
