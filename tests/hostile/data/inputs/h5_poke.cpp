// h5_poke: alters HDF5 files for the hostile input cases (tests/hostile/cases/inputs.cmake),
// with the HDF5 C API (no h5py on the test machines).
//   h5_poke set FILE DATASET INDEX VALUE   element INDEX (row-major) := VALUE ("nan", "-7", ...)
//   h5_poke random FILE DATASET SEED       every element := uniform [0, 1) (deterministic)
//   h5_poke attr FILE NAME VALUE           root attribute NAME := VALUE (converted to its type)
//   h5_poke matrix FILE DATASET N          a new file with an N x N diagonally dominant matrix
// Exit status 0 on success, 1 on any HDF5 error (printed by HDF5), 2 on bad usage.
#include <hdf5.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "gaea/runtime/detail/hdf5.hpp"

namespace {

using gaea::detail::h5_handle;

int usage() {
  std::fprintf(stderr,
               "usage: h5_poke set FILE DATASET INDEX VALUE | random FILE DATASET SEED | "
               "attr FILE NAME VALUE | matrix FILE DATASET N\n");
  return 2;
}

bool set_element(hid_t f, const char* dataset, hsize_t index, double value) {
  const h5_handle set(H5Dopen2(f, dataset, H5P_DEFAULT), H5Dclose);
  if (!set.ok()) return false;
  const h5_handle space(H5Dget_space(set.get()), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank)), at(dims.size());
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  for (std::size_t k = dims.size(); k-- > 0;) {  // row-major index -> coordinates
    at[k] = index % dims[k];
    index /= dims[k];
  }
  const hsize_t one = 1;
  const h5_handle mem(H5Screate_simple(1, &one, nullptr), H5Sclose);
  const bool ok = index == 0 && H5Sselect_elements(space.get(), H5S_SELECT_SET, 1, at.data()) >= 0;
  // A double converts to the dataset's type (an int32 "solid" gets -7); HDF5 would refuse to
  // convert NaN to an integer, which no case needs.
  return ok &&
         H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, mem.get(), space.get(), H5P_DEFAULT, &value) >= 0;
}

bool randomise(hid_t f, const char* dataset, unsigned seed) {
  const h5_handle set(H5Dopen2(f, dataset, H5P_DEFAULT), H5Dclose);
  if (!set.ok()) return false;
  const h5_handle space(H5Dget_space(set.get()), H5Sclose);
  const auto n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get()));
  std::vector<double> v(n);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (double& x : v)
    x = u(gen);
  return H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0;
}

bool set_attribute(hid_t f, const char* name, double value) {
  const h5_handle a(H5Aopen(f, name, H5P_DEFAULT), H5Aclose);
  if (!a.ok()) return false;
  const h5_handle type(H5Aget_type(a.get()), H5Tclose);
  if (H5Tget_class(type.get()) == H5T_INTEGER) {
    const auto i = static_cast<long long>(value);
    return H5Awrite(a.get(), H5T_NATIVE_LLONG, &i) >= 0;
  }
  return H5Awrite(a.get(), H5T_NATIVE_DOUBLE, &value) >= 0;
}

bool write_matrix(const char* file, const char* dataset, hsize_t n) {
  h5_handle f(H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) return false;
  std::vector<double> a(n * n);
  for (hsize_t i = 0; i < n; ++i)
    for (hsize_t j = 0; j < n; ++j)
      a[i * n + j] = i == j ? static_cast<double>(2 * n) : 1.0 / static_cast<double>(1 + i + j);
  const hsize_t dims[2] = {n, n};
  bool ok = false;
  {
    const h5_handle space(H5Screate_simple(2, dims, nullptr), H5Sclose);
    const h5_handle set(H5Dcreate2(f.get(), dataset, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT,
                                   H5P_DEFAULT, H5P_DEFAULT),
                        H5Dclose);
    ok = set.ok() &&
         H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.data()) >= 0;
  }
  return f.reset() && ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) return usage();
  const std::string cmd = argv[1];
  if (cmd == "matrix")
    return write_matrix(argv[2], argv[3], std::strtoull(argv[4], nullptr, 10)) ? 0 : 1;
  h5_handle file(H5Fopen(argv[2], H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  if (!file.ok()) return 1;
  const hid_t f = file.get();
  bool ok = false;
  if (cmd == "set" && argc == 6)
    ok =
        set_element(f, argv[3], std::strtoull(argv[4], nullptr, 10), std::strtod(argv[5], nullptr));
  else if (cmd == "random")
    ok = randomise(f, argv[3], static_cast<unsigned>(std::strtoul(argv[4], nullptr, 10)));
  else if (cmd == "attr")
    ok = set_attribute(f, argv[3], std::strtod(argv[4], nullptr));
  else
    return usage();
  return file.reset() && ok ? 0 : 1;
}
