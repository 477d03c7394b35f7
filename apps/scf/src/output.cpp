// gaea-scf's HDF5 results file (energies, matrices, attributes), written through output_file.

#include "output.hpp"

#include <hdf5.h>

#include <cstdint>
#include <vector>

#include "gaea/base/error.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/runtime/detail/hdf5.hpp"

namespace scf {

namespace {
using gaea::detail::h5_handle;

void check(bool ok, const std::string& file, const std::string& what) {
  if (!ok) throw gaea::error("output file '" + file + "': HDF5 failed to write " + what);
}

void write_doubles(hid_t file, const std::string& path, const char* name, const double* data,
                   std::vector<hsize_t> dims) {
  h5_handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
  check(space.ok(), path, name);
  h5_handle set(
      H5Dcreate2(file, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose);
  check(set.ok(), path, name);
  check(H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0, path,
        name);
}

void write_attr(hid_t obj, const std::string& path, const char* name, const std::string& value) {
  h5_handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), std::max<std::size_t>(1, value.size()));
  h5_handle space(H5Screate(H5S_SCALAR), H5Sclose);
  h5_handle a(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  check(a.ok(), path, name);
  check(H5Awrite(a.get(), type.get(), value.c_str()) >= 0, path, name);
}
void write_attr(hid_t obj, const std::string& path, const char* name, double value) {
  h5_handle space(H5Screate(H5S_SCALAR), H5Sclose);
  h5_handle a(H5Acreate2(obj, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose);
  check(a.ok(), path, name);
  check(H5Awrite(a.get(), H5T_NATIVE_DOUBLE, &value) >= 0, path, name);
}
}  // namespace

void write_results(const std::string& path, const scf_result& r, const molecule& mol,
                   const basis_set& b, bohr_constant constant) {
  gaea::output_file out(path, "output file");
  // A full disk shows here, before HDF5 starts (a failed create or close leaves it in a state
  // that breaks its clean-up at exit): the datasets plus room for HDF5's metadata.
  const auto doubles =
      static_cast<std::uint64_t>(3 + r.orbital_energies.size() + r.coefficients.size() +
                                 r.density.size() + 4 * mol.atoms.size());
  out.reserve(8 * doubles + 16384);
  out.close_for_name();  // HDF5 writes the temporary by name
  {
    const gaea::detail::h5_quiet quiet;
    h5_handle file(H5Fcreate(out.temporary().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                   H5Fclose);
    check(file.ok(), path, "(cannot create " + out.temporary().string() + ")");
    const double energies[3] = {r.energy, r.nuclear_repulsion, r.electronic};
    write_doubles(file.get(), path, "energies", energies, {3});
    write_attr(file.get(), path, "energies_order", "total, nuclear_repulsion, electronic (Eh)");
    const auto nbf = static_cast<hsize_t>(b.nbf);
    const auto norb = static_cast<hsize_t>(r.orbital_energies.size());
    write_doubles(file.get(), path, "orbital_energies", r.orbital_energies.data(), {norb});
    write_doubles(file.get(), path, "orbitals", r.coefficients.data(), {nbf, norb});
    write_doubles(file.get(), path, "density", r.density.data(), {nbf, nbf});
    std::vector<double> atoms;
    for (const atom& a : mol.atoms)
      atoms.insert(atoms.end(), {static_cast<double>(a.z), a.r[0], a.r[1], a.r[2]});
    write_doubles(file.get(), path, "atoms", atoms.data(), {mol.atoms.size(), 4});
    write_attr(file.get(), path, "atoms_columns", "Z, x, y, z (Bohr)");
    write_attr(file.get(), path, "basis", b.name + " (" + b.file + ")");
    write_attr(file.get(), path, "shells", b.form);
    write_attr(file.get(), path, "bohr_constant", std::string(to_string(constant)));
    write_attr(file.get(), path, "angstrom_to_bohr", angstrom_to_bohr(constant));
    write_attr(file.get(), path, "total_energy", r.energy);
    write_attr(file.get(), path, "iterations", static_cast<double>(r.iterations));
    write_attr(file.get(), path, "occupied", static_cast<double>(r.occupied));
    write_attr(file.get(), path, "layout", "row-major; orbitals: column k is MO k");
    check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL) >= 0, path, "(flush)");
    // HDF5 writes its metadata at close: a full disk may show only here.
    check(file.reset(), path, "(closing the file)");
  }
  out.commit();
}

}  // namespace scf
