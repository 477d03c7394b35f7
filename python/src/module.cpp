// gaea._gaea: the native part of the Python package `gaea` (docs/python.md).
#include "detail/binding.hpp"
#include "gaea/base/error.hpp"

PYBIND11_MODULE(_gaea, m) {
  namespace gp = gaea::python;
  m.doc() = "Gaea's native module; import the package `gaea` instead.";
  // gaea::error carries Gaea's message; RuntimeError is its Python base.
  pybind11::register_exception<gaea::error>(m, "Error", PyExc_RuntimeError);
  gp::bind_runtime(m);
  gp::bind_arrays(m);
  gp::bind_counters(m);
  gp::bind_coll(m);
}
