// gaea._gaea: Python subscripts of gaea.Array resolved to patches, and the element types.
#include <string>

#include "detail/binding.hpp"
#include "gaea/base/error.hpp"

namespace gaea::python {

namespace {
struct dtype_entry {
  dtype t;
  const char* name;
};
constexpr dtype_entry dtypes[] = {
    {dtype::float64, "float64"},       {dtype::float32, "float32"},
    {dtype::int64, "int64"},           {dtype::int32, "int32"},
    {dtype::complex128, "complex128"}, {dtype::complex64, "complex64"}};

[[noreturn]] void bad_key(const std::string& array, const py::handle& key, const std::string& why) {
  throw error("Array '" + array + "': subscript " + py::repr(key).cast<std::string>() + ": " + why);
}
}  // namespace

const char* dtype_name(dtype t) noexcept {
  for (const auto& e : dtypes)
    if (e.t == t) return e.name;
  return "?";
}

dtype dtype_of(const py::object& like) {
  const py::dtype d = py::dtype::from_args(like);
  const std::string name = py::str(d.attr("name"));
  for (const auto& e : dtypes)
    if (name == e.name) return e.t;
  throw error("gaea.Array: dtype '" + name +
              "' is not an element type of Gaea's arrays (float64, float32, int64, int32, "
              "complex128, complex64)");
}

selection select(const std::string& array, const ga::index& dims, const py::handle& key) {
  const std::size_t n = dims.size();
  selection s;
  s.box.lo = ga::index(n);
  s.box.hi = ga::index(n);
  // The subscripts, one per dimension after expanding Ellipsis (missing trailing ones are ':').
  py::tuple parts =
      py::isinstance<py::tuple>(key) ? py::reinterpret_borrow<py::tuple>(key) : py::make_tuple(key);
  std::size_t given = 0;
  bool ellipsis = false;
  for (const py::handle p : parts) {
    if (p.is(py::ellipsis())) {
      if (ellipsis) bad_key(array, key, "more than one '...'");
      ellipsis = true;
    } else {
      ++given;
    }
  }
  if (given > n)
    bad_key(array, key,
            std::to_string(given) + " subscripts for " + std::to_string(n) + " dimensions");
  std::size_t d = 0;
  s.scalar = true;
  const auto full = [&](std::size_t k) {
    s.box.lo[k] = 0;
    s.box.hi[k] = dims[k] - 1;
    s.shape.push_back(static_cast<py::ssize_t>(dims[k]));
    s.scalar = false;
  };
  for (const py::handle p : parts) {
    if (p.is(py::ellipsis())) {
      for (std::size_t k = 0; k < n - given; ++k)
        full(d++);
      continue;
    }
    const ga::index_t extent = dims[d];
    if (PySlice_Check(p.ptr())) {
      Py_ssize_t start = 0, stop = 0, step = 0;
      if (PySlice_Unpack(p.ptr(), &start, &stop, &step) < 0) throw py::error_already_set();
      if (step != 1) bad_key(array, key, "slices with a step other than 1 are not supported");
      const Py_ssize_t len =
          PySlice_AdjustIndices(static_cast<Py_ssize_t>(extent), &start, &stop, step);
      if (len <= 0) s.empty = true;
      s.box.lo[d] = start;
      s.box.hi[d] = start + len - 1;
      s.shape.push_back(len > 0 ? len : 0);
      s.scalar = false;
    } else {
      const py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(p.ptr()));
      if (!i) {
        PyErr_Clear();
        bad_key(array, key, "subscripts are integers, slices or '...'");
      }
      ga::index_t v = i.cast<ga::index_t>();
      if (v < 0) v += extent;
      if (v < 0 || v >= extent)
        bad_key(array, key,
                "index " + py::repr(p).cast<std::string>() + " is outside dimension " +
                    std::to_string(d) + " of extent " + std::to_string(extent));
      s.box.lo[d] = s.box.hi[d] = v;
    }
    ++d;
  }
  while (d < n)
    full(d++);
  return s;
}

py::tuple slices_of(const ga::patch& p) {
  py::tuple t(p.lo.size());
  for (std::size_t d = 0; d < p.lo.size(); ++d)
    t[d] = py::slice(p.lo[d], p.hi[d] + 1, 1);
  return t;
}

}  // namespace gaea::python
