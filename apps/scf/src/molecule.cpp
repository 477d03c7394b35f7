// Molecules for gaea-scf: element table, .xyz reader, electron count and nuclear repulsion.

#include "molecule.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "gaea/base/error.hpp"
#include "gaea/base/input_file.hpp"

namespace scf {

namespace {
constexpr std::array<std::string_view, 119> symbols = {
    "?",  "H",  "He", "Li", "Be", "B",  "C",  "N",  "O",  "F",  "Ne", "Na", "Mg", "Al", "Si",
    "P",  "S",  "Cl", "Ar", "K",  "Ca", "Sc", "Ti", "V",  "Cr", "Mn", "Fe", "Co", "Ni", "Cu",
    "Zn", "Ga", "Ge", "As", "Se", "Br", "Kr", "Rb", "Sr", "Y",  "Zr", "Nb", "Mo", "Tc", "Ru",
    "Rh", "Pd", "Ag", "Cd", "In", "Sn", "Sb", "Te", "I",  "Xe", "Cs", "Ba", "La", "Ce", "Pr",
    "Nd", "Pm", "Sm", "Eu", "Gd", "Tb", "Dy", "Ho", "Er", "Tm", "Yb", "Lu", "Hf", "Ta", "W",
    "Re", "Os", "Ir", "Pt", "Au", "Hg", "Tl", "Pb", "Bi", "Po", "At", "Rn", "Fr", "Ra", "Ac",
    "Th", "Pa", "U",  "Np", "Pu", "Am", "Cm", "Bk", "Cf", "Es", "Fm", "Md", "No", "Lr", "Rf",
    "Db", "Sg", "Bh", "Hs", "Mt", "Ds", "Rg", "Cn", "Nh", "Fl", "Mc", "Lv", "Ts", "Og"};

bool iequal(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

std::optional<double> to_double(const std::string& s) {
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}
}  // namespace

double angstrom_to_bohr(bohr_constant c) noexcept {
  // NWChem converts with 1 / 0.529177249 (its nuclear repulsion energies match this to 1e-12,
  // not the rounded 1.889725989).
  return c == bohr_constant::nwchem ? 1.0 / 0.529177249 : 1.0 / 0.529177210903;
}

int atomic_number(std::string_view symbol) noexcept {
  for (std::size_t z = 1; z < symbols.size(); ++z)
    if (iequal(symbol, symbols[z])) return static_cast<int>(z);
  return 0;
}
std::string_view element_symbol(int z) noexcept {
  return z >= 1 && z < static_cast<int>(symbols.size()) ? symbols[static_cast<std::size_t>(z)]
                                                        : symbols[0];
}

std::int64_t molecule::electrons() const noexcept {
  std::int64_t n = 0;
  for (const atom& a : atoms)
    n += a.z;
  return n - charge;
}

double molecule::nuclear_repulsion() const {
  double e = 0;
  for (std::size_t i = 0; i < atoms.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const double dx = atoms[i].r[0] - atoms[j].r[0], dy = atoms[i].r[1] - atoms[j].r[1],
                   dz = atoms[i].r[2] - atoms[j].r[2];
      const double r = std::sqrt(dx * dx + dy * dy + dz * dz);
      if (r < 1e-8)
        throw gaea::error("molecule '" + source + "': atoms " + std::to_string(j + 1) + " and " +
                          std::to_string(i + 1) + " are at the same position");
      e += atoms[i].z * atoms[j].z / r;
    }
  return e;
}

molecule read_xyz(const std::string& path, bohr_constant constant, int charge) {
  // Read whole and bounded: a device or a huge file must not be read line by line for ever.
  std::istringstream in(gaea::read_input_file(path, "xyz file"));
  auto where = [&](std::size_t line) {
    return "xyz file '" + path + "' line " + std::to_string(line);
  };
  std::string line;
  if (!std::getline(in, line)) throw gaea::error("xyz file '" + path + "': empty file");
  // A UTF-8 byte-order mark, as some Windows editors write: not part of the count.
  if (line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
  std::int64_t count = -1;
  {
    std::istringstream is(line);
    std::string tok, extra;
    is >> tok;
    const auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), count);
    if (ec != std::errc() || p != tok.data() + tok.size() || count <= 0 || (is >> extra))
      throw gaea::error(where(1) + ": expected the number of atoms (a positive integer), got '" +
                        line + "'");
  }
  if (!std::getline(in, line)) throw gaea::error(where(2) + ": missing comment line");
  molecule m;
  m.charge = charge;
  m.source = path;
  const double f = angstrom_to_bohr(constant);
  std::vector<std::size_t> lines;  // line of each atom, for messages
  std::size_t lineno = 2;
  while (std::getline(in, line)) {
    ++lineno;
    std::istringstream is(line);
    std::string sym, xs, ys, zs;
    if (!(is >> sym)) continue;  // blank lines (trailing ones are common)
    if (static_cast<std::int64_t>(m.atoms.size()) == count)
      throw gaea::error(where(lineno) + ": more atom lines than the count " +
                        std::to_string(count));
    if (!(is >> xs >> ys >> zs))
      throw gaea::error(where(lineno) + ": expected 'Symbol x y z', got '" + line + "'");
    const int z = atomic_number(sym);
    if (z == 0) throw gaea::error(where(lineno) + ": unknown element '" + sym + "'");
    const auto x = to_double(xs), y = to_double(ys), zz = to_double(zs);
    if (!x || !y || !zz)
      throw gaea::error(where(lineno) + ": coordinates are not finite numbers: '" + line + "'");
    for (double c : {*x, *y, *zz})
      if (std::abs(c) > max_coordinate_angstrom) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%g of atom %zu (%s) is beyond +-%g", c, m.atoms.size() + 1,
                      sym.c_str(), max_coordinate_angstrom);
        throw gaea::error(where(lineno) + ": coordinate " + buf + " Angstrom");
      }
    m.atoms.push_back({z, {*x * f, *y * f, *zz * f}});
    lines.push_back(lineno);
  }
  if (static_cast<std::int64_t>(m.atoms.size()) != count)
    throw gaea::error("xyz file '" + path + "': the count says " + std::to_string(count) +
                      " atoms but " + std::to_string(m.atoms.size()) + " were found");
  // Closer than any chemical bond: a duplicated line, a typo or wrong units; the energy would be
  // meaningless (1e-8 A apart gives E = +5e7 Eh), so refuse it.
  const double min_bohr = min_distance_angstrom * f;
  for (std::size_t i = 0; i < m.atoms.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const auto& a = m.atoms[i].r;
      const auto& b = m.atoms[j].r;
      const double r = std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
      if (r < min_bohr) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "%.3g Angstrom apart, closer than the minimum %.3g", r / f,
                      min_distance_angstrom);
        throw gaea::error("xyz file '" + path + "': atoms " + std::to_string(j + 1) + " (" +
                          std::string(element_symbol(m.atoms[j].z)) + ", line " +
                          std::to_string(lines[j]) + ") and " + std::to_string(i + 1) + " (" +
                          std::string(element_symbol(m.atoms[i].z)) + ", line " +
                          std::to_string(lines[i]) + ") are " + buf + " Angstrom");
      }
    }
  return m;
}

}  // namespace scf
