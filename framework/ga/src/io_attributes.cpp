// Application attributes of HDF5 files (h5_writer::attribute, read_attribute) and the shape
// of any dataset (inspect): the small extras an application needs around ga::write / ga::read
// so that it does not have to keep HDF5 code of its own.
#include <hdf5.h>

#include <filesystem>
#include <iomanip>
#include <sstream>
#include <type_traits>

#include "detail/h5_util.hpp"
#include "gaea/base/input_file.hpp"
#include "gaea/coll/agreement.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/ga/io.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga {

namespace {

using detail::h5_handle;

// Opens `file` read-only (serial); throws gaea::error prefixed by `who` when it cannot.
hid_t open_for_reading(const std::string& file, const std::string& who) {
  // A FIFO or a device would block or never end HDF5's reads.
  if (const std::string bad = input_file_problem(file); !bad.empty()) throw error(who + ": " + bad);
  if (H5Fis_hdf5(file.c_str()) <= 0) throw error(who + ": not an HDF5 file");
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw error(who + ": cannot open the file");
  return f;
}

// Writes a scalar attribute of the in-file type `stored` from memory of type `mem`.
bool write_scalar(hid_t obj, const std::string& name, hid_t stored, hid_t mem, const void* v) {
  h5_handle space(H5Screate(H5S_SCALAR), H5Sclose);
  h5_handle a(H5Acreate2(obj, name.c_str(), stored, space.get(), H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose);
  return a.ok() && H5Awrite(a.get(), mem, v) >= 0;
}

}  // namespace

void h5_writer::attribute(const std::string& name, const attribute_value& value,
                          const std::string& object) {
  runtime& rt = runtime::current();
  rt.require_owner_thread("ga::h5_writer::attribute");
  const std::string text = std::visit(
      [](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>)
          return "'" + v + "'";
        else if constexpr (std::is_same_v<T, double>)
          return (std::ostringstream() << std::setprecision(17) << v << " (double)").str();
        else
          return std::to_string(v) + " (int64)";
      },
      value);
  coll::agree_on(coll::world(), coll::call_record("ga::write", file_, "attribute")
                                    .add("name", name)
                                    .add("object", object)
                                    .add("value", text));
  const std::string who =
      "ga::write '" + file_ + "': attribute '" + name + "' of '" + object + "': ";
  if (failed_ || committed_ || h5_ < 0)
    throw error(who + (committed_ ? "the writer is already committed" : "an earlier write failed"));
  failed_ = true;  // until this attribute is written everywhere
  detail::h5_quiet quiet;
  std::string problem;
  const bool root = object.empty() || object == "/";
  if (name.empty())
    problem = who + "empty attribute name";
  else if (!root && !detail::h5_path_exists(h5_, object))
    problem = who + "no such object in the file";
  coll::agree(coll::world(), problem);
  h5_handle obj(H5Oopen(h5_, root ? "/" : object.c_str(), H5P_DEFAULT), H5Oclose);
  if (!obj.ok())
    problem = who + "cannot open the object";
  else if (H5Aexists(obj.get(), name.c_str()) != 0)
    problem = who + "the attribute exists already";
  coll::agree(coll::world(), problem);
  // Attribute creation is a metadata operation: collective, with the same value on every rank.
  bool ok = false;
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          h5_handle type(H5Tcopy(H5T_C_S1), H5Tclose);
          H5Tset_size(type.get(), v.size() + 1);
          ok = write_scalar(obj.get(), name, type.get(), type.get(), v.c_str());
        } else if constexpr (std::is_same_v<T, double>) {
          ok = write_scalar(obj.get(), name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
        } else {
          ok = write_scalar(obj.get(), name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
        }
      },
      value);
  if (!ok) problem = who + "HDF5 failed to write it";
  coll::agree(coll::world(), problem);
  failed_ = false;
}

attribute_value read_attribute(const std::string& file, const std::string& name,
                               const std::string& object) {
  const std::string who =
      "ga::read_attribute '" + file + "', " + object + " attribute '" + name + "'";
  detail::h5_quiet quiet;
  h5_handle f(open_for_reading(file, who), H5Fclose);
  const bool root = object.empty() || object == "/";
  if (!root && !detail::h5_path_exists(f.get(), object)) throw error(who + ": no such object");
  h5_handle obj(H5Oopen(f.get(), root ? "/" : object.c_str(), H5P_DEFAULT), H5Oclose);
  if (!obj.ok()) throw error(who + ": cannot open the object");
  if (name.empty() || H5Aexists(obj.get(), name.c_str()) <= 0)
    throw error(who + ": no such attribute");
  h5_handle a(H5Aopen(obj.get(), name.c_str(), H5P_DEFAULT), H5Aclose);
  h5_handle type(H5Aget_type(a.get()), H5Tclose);
  h5_handle space(H5Aget_space(a.get()), H5Sclose);
  if (!a.ok() || !type.ok() || !space.ok()) throw error(who + ": cannot open it");
  if (H5Sget_simple_extent_npoints(space.get()) != 1) throw error(who + ": not a scalar");
  switch (H5Tget_class(type.get())) {
    case H5T_INTEGER: {
      std::int64_t v = 0;
      if (H5Aread(a.get(), H5T_NATIVE_INT64, &v) < 0) throw error(who + ": cannot read it");
      return v;
    }
    case H5T_FLOAT: {
      double v = 0;
      if (H5Aread(a.get(), H5T_NATIVE_DOUBLE, &v) < 0) throw error(who + ": cannot read it");
      return v;
    }
    case H5T_STRING: {
      if (H5Tis_variable_str(type.get()) > 0) {
        char* p = nullptr;
        if (H5Aread(a.get(), type.get(), &p) < 0) throw error(who + ": cannot read it");
        std::string s = p ? p : "";
        H5free_memory(p);
        return s;
      }
      std::string s(H5Tget_size(type.get()), '\0');
      if (H5Aread(a.get(), type.get(), s.data()) < 0) throw error(who + ": cannot read it");
      s.resize(s.find('\0') == std::string::npos ? s.size() : s.find('\0'));
      return s;
    }
    default:
      throw error(who + ": not an integer, float or string");
  }
}

dataset_shape inspect(const std::string& file, const std::string& dataset) {
  const std::string who = "ga::inspect '" + file + "', dataset '" + dataset + "'";
  detail::h5_quiet quiet;
  h5_handle f(open_for_reading(file, who), H5Fclose);
  if (dataset.empty() || !detail::h5_path_exists(f.get(), dataset))
    throw error(who + ": no such dataset");
  h5_handle set(H5Dopen2(f.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose);
  if (!set.ok()) throw error(who + ": not a dataset");
  h5_handle type(H5Dget_type(set.get()), H5Tclose);
  h5_handle space(H5Dget_space(set.get()), H5Sclose);
  dataset_shape out;
  out.element_type = detail::element_name(type.get());
  const int n = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> ext(static_cast<std::size_t>(n > 0 ? n : 0));
  H5Sget_simple_extent_dims(space.get(), ext.data(), nullptr);
  for (hsize_t x : ext)
    out.dims.push_back(static_cast<index_t>(x));
  return out;
}

}  // namespace gaea::ga
