#pragma once
// Small HDF5 helpers for the I/O of global arrays: element types, attributes and dataset paths
// (owned handles and silenced error stacks come from gaea/runtime/detail/hdf5.hpp).

#include <hdf5.h>

#include <string>
#include <vector>

#include "gaea/ga/detail/array_core.hpp"
#include "gaea/runtime/detail/hdf5.hpp"

namespace gaea::ga::detail {

// The owned handles and silenced error stacks are runtime's, shared with every HDF5 user.
using gaea::detail::h5_handle;
using gaea::detail::h5_quiet;

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
