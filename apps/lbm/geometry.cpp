// lbm::config: checks of the flow problem's description and the flag of each cell.

#include "geometry.hpp"

#include "gaea/base/error.hpp"

namespace lbm {

void config::validate() const {
  if (nx < 1 || ny < 1)
    throw gaea::error("lbm: grid " + std::to_string(nx) + " x " + std::to_string(ny) +
                      ": both extents must be at least 1");
  if (!(tau > 0.5) || !(tau < 1e6))
    throw gaea::error("lbm: tau = " + std::to_string(tau) + " must be > 0.5 (viscosity > 0)");
  if ((sides[left].kind == side_kind::periodic) != (sides[right].kind == side_kind::periodic))
    throw gaea::error("lbm: left and right sides must both be periodic or neither");
  if ((sides[bottom].kind == side_kind::periodic) != (sides[top].kind == side_kind::periodic))
    throw gaea::error("lbm: bottom and top sides must both be periodic or neither");
  for (const side& s : sides)
    if (s.kind == side_kind::pressure && !(s.rho > 0))
      throw gaea::error("lbm: pressure side with density " + std::to_string(s.rho) +
                        " (must be > 0)");
  if (!solid.empty() && static_cast<index_t>(solid.size()) != nx * ny)
    throw gaea::error("lbm: solid mask has " + std::to_string(solid.size()) + " cells, the grid " +
                      std::to_string(nx * ny));
}

std::uint8_t config::flag(index_t x, index_t y) const {
  const bool out_x = x < 0 || x >= nx, out_y = y < 0 || y >= ny;
  if (out_x && !periodic_x())
    return static_cast<std::uint8_t>(int{first_side} + (x < 0 ? int{left} : int{right}));
  if (out_y && !periodic_y())
    return static_cast<std::uint8_t>(int{first_side} + (y < 0 ? int{bottom} : int{top}));
  if (x < 0) x += nx;
  if (x >= nx) x -= nx;
  if (y < 0) y += ny;
  if (y >= ny) y -= ny;
  if (solid.empty()) return fluid;
  return solid[static_cast<std::size_t>(y * nx + x)] != 0 ? cell_flag::solid : fluid;
}

}  // namespace lbm
