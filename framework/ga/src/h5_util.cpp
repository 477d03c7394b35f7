// Small HDF5 helpers for global arrays' I/O: element types, path checks and attributes.

#include "detail/h5_util.hpp"

#include "gaea/base/error.hpp"

namespace gaea::ga::detail {

namespace {
// Complex numbers as h5py writes them: the compound {r, i} of two floating-point parts.
hid_t complex_type(hid_t part, std::size_t part_size) {
  const hid_t c = H5Tcreate(H5T_COMPOUND, 2 * part_size);
  H5Tinsert(c, "r", 0, part);
  H5Tinsert(c, "i", part_size, part);
  return c;
}
}  // namespace

hid_t h5_type(elem_type t) {
  switch (t) {
    case elem_type::f64:
      return H5Tcopy(H5T_NATIVE_DOUBLE);
    case elem_type::f32:
      return H5Tcopy(H5T_NATIVE_FLOAT);
    case elem_type::i64:
      return H5Tcopy(H5T_NATIVE_INT64);
    case elem_type::i32:
      return H5Tcopy(H5T_NATIVE_INT32);
    case elem_type::c64:
      return complex_type(H5T_NATIVE_DOUBLE, sizeof(double));
    case elem_type::c32:
      return complex_type(H5T_NATIVE_FLOAT, sizeof(float));
  }
  return -1;
}

std::string element_name(hid_t type) {
  const H5T_class_t cls = H5Tget_class(type);
  const std::size_t size = H5Tget_size(type);
  if (cls == H5T_FLOAT && size == 8) return "double";
  if (cls == H5T_FLOAT && size == 4) return "float";
  if (cls == H5T_INTEGER && H5Tget_sign(type) == H5T_SGN_2) {
    if (size == 8) return "int64";
    if (size == 4) return "int32";
  }
  if (cls == H5T_COMPOUND && (size == 16 || size == 8) && H5Tget_nmembers(type) == 2) {
    bool parts = true;  // two floating-point members of half the size each
    for (unsigned m = 0; m < 2; ++m) {
      const h5_handle mt(H5Tget_member_type(type, m), H5Tclose);
      parts = parts && H5Tget_class(mt.get()) == H5T_FLOAT && H5Tget_size(mt.get()) == size / 2;
    }
    if (parts) return size == 16 ? "complex<double>" : "complex<float>";
  }
  const char* kind = cls == H5T_INTEGER    ? (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int")
                     : cls == H5T_FLOAT    ? "float"
                     : cls == H5T_STRING   ? "string"
                     : cls == H5T_COMPOUND ? "compound"
                                           : "other";
  return std::string(kind) + " of " + std::to_string(size) + " bytes";
}

bool h5_path_exists(hid_t file, const std::string& path) {
  std::size_t at = 0;
  while (true) {
    const std::size_t slash = path.find('/', at + 1);
    const std::string prefix = path.substr(0, slash);
    if (!prefix.empty() && prefix != "/" && H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0)
      return false;
    if (slash == std::string::npos) return true;
    at = slash;
  }
}

void write_attr(hid_t obj, const char* name, const std::vector<std::int64_t>& v) {
  const hsize_t n = v.size();
  h5_handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  h5_handle a(H5Acreate2(obj, name, H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose);
  if (!a.ok() || H5Awrite(a.get(), H5T_NATIVE_INT64, v.data()) < 0)
    throw error(std::string("cannot write attribute '") + name + "'");
}

void write_attr(hid_t obj, const char* name, const std::string& s) {
  h5_handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), s.size() + 1);
  h5_handle space(H5Screate(H5S_SCALAR), H5Sclose);
  h5_handle a(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!a.ok() || H5Awrite(a.get(), type.get(), s.c_str()) < 0)
    throw error(std::string("cannot write attribute '") + name + "'");
}

std::vector<std::int64_t> read_attr_ints(hid_t obj, const char* name, const std::string& what) {
  if (H5Aexists(obj, name) <= 0)
    throw error(what + " has no attribute '" + name + "' (not written by Gaea?)");
  h5_handle a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  h5_handle space(H5Aget_space(a.get()), H5Sclose);
  const hssize_t n = H5Sget_simple_extent_npoints(space.get());
  std::vector<std::int64_t> v(static_cast<std::size_t>(n > 0 ? n : 0));
  if (n < 0 || H5Aread(a.get(), H5T_NATIVE_INT64, v.data()) < 0)
    throw error(what + ": attribute '" + name + "' is not a list of integers");
  return v;
}

std::string read_attr_string(hid_t obj, const char* name, const std::string& what) {
  if (H5Aexists(obj, name) <= 0)
    throw error(what + " has no attribute '" + name + "' (not written by Gaea?)");
  h5_handle a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  h5_handle type(H5Aget_type(a.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) > 0)
    throw error(what + ": attribute '" + name + "' is not a fixed-length string");
  std::string s(H5Tget_size(type.get()), '\0');
  if (H5Aread(a.get(), type.get(), s.data()) < 0)
    throw error(what + ": cannot read attribute '" + name + "'");
  s.resize(s.find('\0') == std::string::npos ? s.size() : s.find('\0'));
  return s;
}

}  // namespace gaea::ga::detail
