#pragma once
// Small HDF5 helpers for the I/O of global arrays: owned handles, silenced error stacks,
// element types, attributes and dataset paths.

#include <hdf5.h>

#include <string>
#include <vector>

#include "gaea/ga/detail/array_core.hpp"

namespace gaea::ga::detail {

/// Closes an HDF5 handle with `close` when it goes out of scope (ignores invalid ids).
class h5_handle {
 public:
  using closer = herr_t (*)(hid_t);
  h5_handle(hid_t id, closer close) noexcept : id_(id), close_(close) {}
  ~h5_handle() { reset(); }
  h5_handle(const h5_handle&) = delete;
  h5_handle& operator=(const h5_handle&) = delete;
  hid_t get() const noexcept { return id_; }
  bool ok() const noexcept { return id_ >= 0; }
  /// Closes now; false if the close failed (a collective close can fail late).
  bool reset() noexcept {
    const bool good = id_ < 0 || close_(id_) >= 0;
    id_ = -1;
    return good;
  }

 private:
  hid_t id_;
  closer close_;
};

/// Silences HDF5's automatic error printing for a scope (Gaea reports its own errors).
class h5_quiet {
 public:
  h5_quiet() noexcept {
    H5Eget_auto2(H5E_DEFAULT, &fn_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~h5_quiet() { H5Eset_auto2(H5E_DEFAULT, fn_, data_); }
  h5_quiet(const h5_quiet&) = delete;
  h5_quiet& operator=(const h5_quiet&) = delete;

 private:
  H5E_auto2_t fn_ = nullptr;
  void* data_ = nullptr;
};

/// The in-memory HDF5 type of an element type (complex: compound {r, i}); caller closes.
hid_t h5_type(elem_type t);
/// Name of the element type a dataset type holds ("double", ..., or a description of another).
std::string element_name(hid_t dataset_type);

/// True when every component of `path` exists in `file` (H5Lexists needs its parents).
bool h5_path_exists(hid_t file, const std::string& path);

void write_attr(hid_t obj, const char* name, const std::vector<std::int64_t>& v);
void write_attr(hid_t obj, const char* name, const std::string& s);
/// Reads an attribute; throws gaea::error naming `what` when it is missing or of another kind.
std::vector<std::int64_t> read_attr_ints(hid_t obj, const char* name, const std::string& what);
std::string read_attr_string(hid_t obj, const char* name, const std::string& what);

}  // namespace gaea::ga::detail
