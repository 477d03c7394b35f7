// HDF5 input and output of gaea-lu's matrix and factors through gaea/ga/io.hpp.

#include "h5_io.hpp"

#include <cstdint>

#include "gaea/ga/io.hpp"

namespace lu {

namespace {

std::string where(const std::string& path, const std::string& dataset) {
  return "lu HDF5 '" + path + "', dataset '" + dataset + "'";
}

/// Reads a dataset of element type T into `m` through a scratch array of m's layout. Both
/// arrays have the same distribution, so their local storage matches element for element.
template <class T>
void read_converted(const std::string& path, const std::string& dataset, tiled_matrix& m) {
  gaea::global_array<T> scratch("lu_input", m.array().dims(), m.array().layout().spec());
  gaea::ga::read(scratch, path, dataset);
  const auto src = scratch.access();
  const auto dst = m.array().access();
  for (std::size_t k = 0; k < src.size(); ++k)
    dst[k] = static_cast<double>(src[k]);
  m.array().sync();
}

}  // namespace

index_t h5_matrix_extent(const std::string& path, const std::string& dataset) {
  gaea::ga::dataset_shape s;
  try {
    s = gaea::ga::inspect(path, dataset);
  } catch (const gaea::error& e) {
    throw gaea::error(std::string("--input: ") + e.what());
  }
  const std::string w = where(path, dataset);
  if (s.dims.size() != 2)
    throw gaea::error(w + " has " + std::to_string(s.dims.size()) + " dimensions, not 2");
  if (s.dims[0] != s.dims[1] || s.dims[0] <= 0)
    throw gaea::error(w + " is " + std::to_string(s.dims[0]) + "x" + std::to_string(s.dims[1]) +
                      ", not square");
  if (s.element_type != "double" && s.element_type != "float" && s.element_type != "int64" &&
      s.element_type != "int32")
    throw gaea::error(w + " holds " + s.element_type + ", not double, float, int64 or int32");
  return s.dims[0];
}

void h5_read_matrix(const std::string& path, const std::string& dataset, tiled_matrix& m) {
  // Every rank saw the same file in h5_matrix_extent, so they all take the same branch.
  const std::string type = gaea::ga::inspect(path, dataset).element_type;
  if (type == "float")
    read_converted<float>(path, dataset, m);
  else if (type == "int64")
    read_converted<std::int64_t>(path, dataset, m);
  else if (type == "int32")
    read_converted<std::int32_t>(path, dataset, m);
  else
    gaea::ga::read(m.array(), path, dataset);
}

void h5_write_factors(const std::string& path, const tiled_matrix& m,
                      std::span<const index_t> pivots) {
  gaea::ga::h5_writer w(path);
  w.write(m.array(), "LU");
  w.attribute("n", m.n(), "LU");
  w.attribute("block", m.nb(), "LU");
  if (!pivots.empty()) {
    // The pivots are replicated: each rank fills its own block of a 1-D array, no messages.
    gaea::global_array<std::int64_t> piv("lu_pivots", {static_cast<index_t>(pivots.size())});
    for (const auto& t : piv.local_tiles())
      for (index_t i = t.box.lo[0]; i <= t.box.hi[0]; ++i)
        t.origin[(i - t.box.lo[0]) * t.strides[0]] = pivots[static_cast<std::size_t>(i)];
    w.write(piv, "pivots");
  }
  w.commit();
}

}  // namespace lu
