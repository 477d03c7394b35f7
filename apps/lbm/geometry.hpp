#pragma once
/// \file
/// The flow problem: grid size, relaxation time, body force, what lies beyond each side of the
/// domain, and which cells are solid. Every rank holds the whole description (the solid mask is one
/// byte per cell), so each can classify any cell, ghost layer included, without communication.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace lbm {

using index_t = std::int64_t;

/// What lies beyond one side of the domain (on the ghost layer just outside it).
enum class side_kind : std::uint8_t {
  periodic,  ///< the opposite side (both sides of an axis must be periodic, or neither)
  wall,      ///< resting wall, half-way bounce-back
  velocity,  ///< moving wall or velocity inlet: bounce-back with momentum (Ladd), velocity (ux, uy)
  pressure,  ///< pressure outlet: anti-bounce-back at density rho with the local velocity
};

struct side {
  side_kind kind = side_kind::wall;
  double ux = 0, uy = 0;  ///< velocity (velocity sides)
  double rho = 1;         ///< density (pressure sides)
};

/// Cell classes. Boundary classes (>= first_side) are the four sides in the order left, right,
/// bottom, top; they occur only on the ghost layer outside the domain.
enum cell_flag : std::uint8_t { fluid = 0, solid = 1, first_side = 2 };

/// Sides in the order of config::sides.
enum side_id : int { left = 0, right = 1, bottom = 2, top = 3 };

/// A complete problem description. y grows upwards (row 0 is the bottom), x to the right.
struct config {
  index_t nx = 0, ny = 0;
  double tau = 0.8;                 ///< BGK relaxation time (> 0.5); viscosity (tau - 1/2) / 3
  double fx = 0, fy = 0;            ///< body-force density
  std::array<side, 4> sides;        ///< left, right, bottom, top
  std::vector<std::uint8_t> solid;  ///< ny*nx, row-major from the bottom row; empty: no obstacles
  std::string name = "custom";      ///< case name, stored in snapshots

  /// Throws gaea::error for bad sizes, tau, unpaired periodic sides or a mask of the wrong size.
  void validate() const;
  bool periodic_x() const { return sides[left].kind == side_kind::periodic; }
  bool periodic_y() const { return sides[bottom].kind == side_kind::periodic; }
  /// Class of the cell (x, y), for -1 <= x <= nx and -1 <= y <= ny. Outside the domain a periodic
  /// axis wraps; otherwise the side's class. At the four outer corners the x side wins unless
  /// that axis is periodic (so a lid's corners belong to the resting side walls).
  std::uint8_t flag(index_t x, index_t y) const;
  /// Viscosity in lattice units.
  double nu() const { return (tau - 0.5) / 3.0; }
};

}  // namespace lbm
