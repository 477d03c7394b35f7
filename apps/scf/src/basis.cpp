// Gaussian basis sets for gaea-scf: NWChem and Gaussian-94 readers, shells placed on the atoms.

#include "basis.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <libint2/basis.h>
#include <libint2/util/generated/libint2_params.h>

#include "gaea/base/error.hpp"
#include "gaea/base/input_file.hpp"

namespace scf {

namespace {

std::string lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// One contracted shell as read from a file, before it is placed on an atom.
struct raw_shell {
  int l = 0;
  bool pure = false;
  std::vector<double> exponents, coefficients;
};
/// Shells per atomic number, and the declared form of each element's block.
struct raw_library {
  std::map<int, std::vector<raw_shell>> shells;
  std::map<int, std::string> declared;  // "spherical" / "cartesian" / "" (not declared)
};

int l_of(char c) {
  static const std::string letters = "spdfghikl";  // NWChem: ... h i k (no j)
  const auto p = letters.find(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return p == std::string::npos || p == 8 ? -1 : static_cast<int>(p);
}

double number(std::string tok, const std::string& where) {
  std::replace(tok.begin(), tok.end(), 'D', 'E');
  std::replace(tok.begin(), tok.end(), 'd', 'e');
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(tok, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != tok.size()) throw gaea::error(where + ": '" + tok + "' is not a number");
  if (!std::isfinite(v)) throw gaea::error(where + ": '" + tok + "' is not a finite number");
  return v;
}

/// Checks one primitive of a shell: a positive finite exponent, finite coefficients (number()
/// already refused non-finite values; this is the physical check).
void check_primitive(const std::vector<double>& cols, const std::string& where,
                     const std::string& shell) {
  if (!(cols[0] > 0))
    throw gaea::error(where + ": " + shell + ": exponent " + std::to_string(cols[0]) +
                      " must be positive");
}

/// Reads every element block of an NWChem-format basis library file we need.
raw_library read_nwchem(const std::string& path, const std::vector<int>& wanted) {
  std::ifstream in(path);
  if (!in) throw gaea::error("basis file '" + path + "': cannot open it");
  raw_library lib;
  std::string line;
  std::size_t lineno = 0;
  int current = 0;  // element of the block being read (0: skipping)
  bool in_block = false;
  // Columns of the current shell line: one contraction per column; SP has (s, p).
  std::vector<raw_shell> pending;
  bool sp_shell = false;
  std::string shell_where, shell_name;  // the current shell line, for messages
  std::size_t block_line = 0;           // line of the current block's "basis" line
  auto flush = [&] {
    if (!pending.empty() && pending[0].exponents.empty())
      throw gaea::error(shell_where + ": " + shell_name + " has no primitives (a truncated file?)");
    for (std::size_t c = 0; c < pending.size(); ++c) {
      raw_shell& s = pending[c];
      // Drop primitives with zero coefficient (general contractions list them as 0).
      raw_shell t{s.l, s.pure, {}, {}};
      for (std::size_t k = 0; k < s.exponents.size(); ++k)
        if (s.coefficients[k] != 0.0) {
          t.exponents.push_back(s.exponents[k]);
          t.coefficients.push_back(s.coefficients[k]);
        }
      if (t.exponents.empty())
        throw gaea::error(shell_where + ": " + shell_name + ": contraction " +
                          std::to_string(c + 1) + " has only zero coefficients");
      lib.shells[current].push_back(std::move(t));
    }
    pending.clear();
  };
  while (std::getline(in, line)) {
    ++lineno;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream is(line);
    std::string first;
    if (!(is >> first)) continue;
    const std::string where = "basis file '" + path + "' line " + std::to_string(lineno);
    const std::string key = lower(first);
    if (!in_block) {
      if (key == "basis") {
        in_block = true;
        current = 0;
        std::string quoted, form;
        is >> quoted >> form;
        quoted.erase(std::remove(quoted.begin(), quoted.end(), '"'), quoted.end());
        const std::string sym = quoted.substr(0, quoted.find('_'));
        const int z = atomic_number(sym);
        if (z != 0 && std::find(wanted.begin(), wanted.end(), z) != wanted.end() &&
            !lib.shells.count(z)) {
          current = z;
          block_line = lineno;
          lib.shells[z];
          lib.declared[z] = lower(form);
        }
      } else if (key != "end") {
        // other sections (ECP, ...) are skipped until their "end"
        in_block = true;
        current = 0;
      }
      continue;
    }
    if (key == "end") {
      if (current) flush();
      in_block = false;
      continue;
    }
    if (!current) continue;
    if (std::isalpha(static_cast<unsigned char>(first[0]))) {  // "O  SP" starts a shell
      flush();
      std::string type;
      if (!(is >> type)) throw gaea::error(where + ": expected '<element> <shell type>'");
      // A shell of another element inside this block: a damaged or spliced file.
      if (atomic_number(first) != current)
        throw gaea::error(where + ": shell of '" + first + "' inside the block of element " +
                          std::string(element_symbol(current)) + " (line " +
                          std::to_string(block_line) + ")");
      shell_where = where;
      shell_name = "element " + std::string(element_symbol(current)) + " shell " + type;
      type = lower(type);
      sp_shell = type == "sp" || type == "l";
      if (sp_shell) {
        pending = {raw_shell{0, false, {}, {}}, raw_shell{1, false, {}, {}}};
      } else if (type.size() == 1 && l_of(type[0]) >= 0) {
        pending = {raw_shell{l_of(type[0]), false, {}, {}}};
      } else {
        throw gaea::error(where + ": unknown shell type '" + type + "'");
      }
      continue;
    }
    if (pending.empty()) throw gaea::error(where + ": numbers before any shell line");
    std::vector<double> cols{number(first, where)};
    for (std::string tok; is >> tok;)
      cols.push_back(number(tok, where));
    // General contraction: the first line of a shell fixes the number of columns.
    if (!sp_shell && pending.size() == 1 && pending[0].exponents.empty() && cols.size() > 2) {
      const raw_shell proto = pending[0];
      pending.assign(cols.size() - 1, proto);
    }
    if (cols.size() != pending.size() + 1)
      throw gaea::error(where + ": expected " + std::to_string(pending.size() + 1) +
                        " columns, got " + std::to_string(cols.size()));
    check_primitive(cols, where, shell_name);
    for (std::size_t c = 0; c < pending.size(); ++c) {
      pending[c].exponents.push_back(cols[0]);
      pending[c].coefficients.push_back(cols[c + 1]);
    }
  }
  // A block without its "end": the file was cut inside it, and its last shells are missing.
  if (in_block && current)
    throw gaea::error("basis file '" + path + "': the block of element " +
                      std::string(element_symbol(current)) + " starting at line " +
                      std::to_string(block_line) + " has no 'end' (the file ends at line " +
                      std::to_string(lineno) + "; truncated?)");
  return lib;
}

/// libint2's Gaussian-94 reader accepts a file cut anywhere (a shell short of primitives, a
/// block without its closing "****") and any number; this pass checks the structure and the
/// numbers first, with line numbers: every shell "TYPE NPRIM SCALE" followed by NPRIM lines of
/// a positive finite exponent and finite coefficients, every element block closed by "****".
void check_g94(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw gaea::error("basis file '" + path + "': cannot open it");
  std::string line, element, shell;
  std::size_t lineno = 0, block_line = 0, shell_line = 0;
  bool open = false;        // inside an element block
  long long remaining = 0;  // primitives still expected for the current shell
  long long nprim = 0;
  const auto where = [&] { return "basis file '" + path + "' line " + std::to_string(lineno); };
  while (std::getline(in, line)) {
    ++lineno;
    std::istringstream is(line);
    std::string first;
    if (!(is >> first) || first[0] == '!') continue;
    if (first.rfind("****", 0) == 0) {
      if (remaining > 0)
        throw gaea::error(where() + ": shell " + shell + " of element " + element + " (line " +
                          std::to_string(shell_line) + ") has " +
                          std::to_string(nprim - remaining) + " of its " + std::to_string(nprim) +
                          " primitives");
      open = false;
      continue;
    }
    if (remaining > 0) {
      std::vector<double> cols{number(first, where())};
      for (std::string tok; is >> tok;)
        cols.push_back(number(tok, where()));
      if (cols.size() < 2)
        throw gaea::error(where() + ": expected an exponent and coefficients, got '" + line + "'");
      check_primitive(cols, where(), "element " + element + " shell " + shell);
      --remaining;
      continue;
    }
    if (!open) {  // "O 0": the element of a new block
      open = true;
      element = first;
      block_line = lineno;
      continue;
    }
    std::string count;
    shell = first;
    shell_line = lineno;
    if (!(is >> count) || (nprim = std::atoll(count.c_str())) <= 0)
      throw gaea::error(
          where() + ": expected '<shell type> <number of primitives> <scale>', got '" + line + "'");
    remaining = nprim;
  }
  if (remaining > 0)
    throw gaea::error("basis file '" + path + "': the file ends inside shell " + shell +
                      " of element " + element + " (line " + std::to_string(shell_line) + "), " +
                      std::to_string(remaining) + " of its " + std::to_string(nprim) +
                      " primitives missing (truncated?)");
  if (open)
    throw gaea::error("basis file '" + path + "': the block of element " + element +
                      " starting at line " + std::to_string(block_line) +
                      " has no closing '****' (truncated?)");
}

raw_library read_g94(const std::string& path, const std::vector<int>& wanted) {
  check_g94(path);
  std::vector<std::vector<libint2::Shell>> all;
  try {
    all = libint2::BasisSet::read_g94_basis_library(path, false, false);
  } catch (const std::exception& e) {
    throw gaea::error("basis file '" + path + "' (Gaussian-94): " + e.what());
  }
  raw_library lib;
  for (int z : wanted) {
    if (static_cast<std::size_t>(z) >= all.size() || all[static_cast<std::size_t>(z)].empty())
      continue;
    auto& out = lib.shells[z];
    lib.declared[z] = "";
    for (const libint2::Shell& s : all[static_cast<std::size_t>(z)])
      for (std::size_t c = 0; c < s.contr.size(); ++c) {
        // libint2 stores coefficients with the primitive normalisation folded in; take them
        // back per unit-normalised primitive so the shell is rebuilt the same way.
        raw_shell r{
            s.contr[c].l, s.contr[c].pure, std::vector<double>(s.alpha.begin(), s.alpha.end()), {}};
        for (std::size_t k = 0; k < s.alpha.size(); ++k) {
          // libint2's reader takes any number; a bad one used to crash the integrals later.
          if (!(std::isfinite(s.alpha[k]) && s.alpha[k] > 0) ||
              !std::isfinite(s.coeff_normalized(c, k)))
            throw gaea::error("basis file '" + path + "' (Gaussian-94): element " +
                              std::string(element_symbol(z)) + ", shell " + std::to_string(c + 1) +
                              " of l = " + std::to_string(s.contr[c].l) + ": primitive " +
                              std::to_string(k + 1) + " has exponent " +
                              std::to_string(s.alpha[k]) + " and coefficient " +
                              std::to_string(s.contr[c].coeff[k]) +
                              " (the exponent must be positive, both finite)");
          r.coefficients.push_back(s.coeff_normalized(c, k));
        }
        out.push_back(std::move(r));
      }
  }
  return lib;
}

/// libint2 computes the two-electron integrals up to LIBINT2_MAX_AM_eri, fixed when it was
/// built; a higher shell would fail only when the first integral engine is made, late and as
/// "Engine::lmax_exceeded". Shell `index` (from 0) of element `z`.
void check_angular_momentum(int l, const std::string& name, const std::string& path, int z,
                            std::size_t index) {
  constexpr int lmax = LIBINT2_MAX_AM_eri;
  if (l <= lmax) return;
  static const std::string letters = "spdfghik";
  const auto letter = [](int v) {
    return v < static_cast<int>(letters.size()) ? letters.substr(static_cast<std::size_t>(v), 1)
                                                : "l = " + std::to_string(v);
  };
  throw gaea::error("basis '" + name + "' (" + path + "): element " +
                    std::string(element_symbol(z)) + ": its shell " + std::to_string(index + 1) +
                    " has l = " + std::to_string(l) + " (" + letter(l) +
                    "); the integral library (libint2) of this build handles shells up to l = " +
                    std::to_string(lmax) + " (" + letter(lmax) + "): use a basis without " +
                    letter(lmax + 1) + " or higher shells");
}

bool is_g94(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("****", 0) == 0) return true;
  }
  return false;
}

}  // namespace

std::string library_file_name(const std::string& name) {
  std::string out;
  for (char c : lower(name)) {
    if (c == '*')
      out += 's';
    else if (c == ',')
      out += '_';
    else if (c != '(' && c != ')')
      out += c;
  }
  return out;
}

std::size_t basis_set::max_nprim() const {
  std::size_t n = 0;
  for (const auto& s : shells)
    n = std::max(n, s.nprim());
  return n;
}
int basis_set::max_l() const {
  int l = 0;
  for (const auto& s : shells)
    for (const auto& c : s.contr)
      l = std::max(l, c.l);
  return l;
}

basis_set load_basis(const basis_request& req, const molecule& mol) {
  namespace fs = std::filesystem;
  if (req.name.empty()) throw gaea::error("basis: no basis set given");
  std::string path = req.name;
  std::error_code ec;
  if (!fs::exists(path, ec) || fs::is_directory(path, ec)) {
    path = (fs::path(req.library_dir) / library_file_name(req.name)).string();
    if (!fs::exists(path, ec))
      throw gaea::error("basis '" + req.name + "': unknown basis set (neither a file nor " + path +
                        " in the library " + req.library_dir + ")");
  }
  // A FIFO or a device would block or never end the readers below; a huge file would be read
  // line by line into memory.
  gaea::check_input_file(path, "basis file", gaea::max_text_input_bytes);
  std::string format = req.format;
  if (format == "auto") format = is_g94(path) ? "g94" : "nwchem";
  if (format != "nwchem" && format != "g94")
    throw gaea::error("basis '" + req.name + "': unknown format '" + req.format +
                      "' (auto, nwchem, g94)");
  std::vector<int> wanted;
  for (const atom& a : mol.atoms)
    if (std::find(wanted.begin(), wanted.end(), a.z) == wanted.end()) wanted.push_back(a.z);
  const raw_library lib = format == "g94" ? read_g94(path, wanted) : read_nwchem(path, wanted);

  basis_set b;
  b.file = path;
  b.name = req.name;
  bool any_cart = false, any_sph = false;
  for (std::size_t ia = 0; ia < mol.atoms.size(); ++ia) {
    const atom& a = mol.atoms[ia];
    const auto it = lib.shells.find(a.z);
    if (it == lib.shells.end() || it->second.empty())
      throw gaea::error("basis '" + req.name + "' (" + path + "): no functions for element " +
                        std::string(element_symbol(a.z)));
    bool pure = false;
    switch (req.form) {
      case shell_form::cartesian:
        pure = false;
        break;
      case shell_form::spherical:
        pure = true;
        break;
      case shell_form::as_declared: {
        const std::string& d = lib.declared.at(a.z);
        pure = format == "g94" ? true : d == "spherical";
        break;
      }
    }
    for (std::size_t k = 0; k < it->second.size(); ++k) {
      const raw_shell& r = it->second[k];
      check_angular_momentum(r.l, req.name, path, a.z, k);
      const libint2::svector<double> alpha(r.exponents.begin(), r.exponents.end());
      const libint2::svector<double> coeff(r.coefficients.begin(), r.coefficients.end());
      const bool p = r.l >= 2 && pure;
      if (r.l >= 2) (p ? any_sph : any_cart) = true;
      b.shells.push_back(libint2::Shell{alpha, {{r.l, p, coeff}}, {{a.r[0], a.r[1], a.r[2]}}});
      b.shell_atom.push_back(static_cast<std::int64_t>(ia));
    }
  }
  for (const auto& s : b.shells) {
    b.first_bf.push_back(b.nbf);
    b.nbf += static_cast<std::int64_t>(s.size());
  }
  b.form = any_cart && any_sph ? "mixed"
           : any_sph           ? "spherical"
           : any_cart          ? "cartesian"
                               : "s and p only";
  b.form_reason = req.form == shell_form::cartesian   ? "--cartesian"
                  : req.form == shell_form::spherical ? "--spherical"
                  : format == "g94"                   ? "Gaussian-94 file: spherical by default"
                                                      : "as declared by the library file";
  return b;
}

}  // namespace scf
