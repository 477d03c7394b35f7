#pragma once
/// \file
/// Internal (not API): what the parts of the native module gaea._gaea share — the runtime the
/// module owns, the registry of live collective objects, and the element types.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <complex>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gaea/ga/patch.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::python {

namespace py = pybind11;

void bind_runtime(py::module_& m);
void bind_arrays(py::module_& m);
void bind_counters(py::module_& m);
void bind_coll(py::module_& m);

/// The live runtime, started now (collective) when there is none: the module's "first use".
gaea::runtime& ensure_runtime();

/// Collective objects still alive, in creation order (the same on every rank): finalize destroys
/// them last-first before the runtime, so that objects held by Python past finalize (module
/// globals at interpreter exit) do not keep the runtime from shutting down.
class live_objects {
 public:
  /// Registers `destroy` (collective); returns the id to forget() it with.
  static std::uint64_t add(std::function<void()> destroy);
  static void forget(std::uint64_t id) noexcept;
  /// Destroys every registered object, newest first.
  static void destroy_all();
};

/// The element types of gaea.Array (NumPy's names), in the order of array_binding's variant.
enum class dtype : std::uint8_t { float64, float32, int64, int32, complex128, complex64 };
/// The dtype of a NumPy dtype-like object (np.float64, "float64", "f8", float, ...); gaea::error
/// naming it when the arrays have no such element type.
dtype dtype_of(const py::object& like);
/// "float64", ...
const char* dtype_name(dtype t) noexcept;

/// A Python subscript resolved against an array's shape: the patch it names (inclusive bounds),
/// the shape of the NumPy array it reads (integer subscripts drop their dimension) and whether it
/// is empty (a slice with no element: nothing to transfer).
struct selection {
  ga::patch box;
  std::vector<py::ssize_t> shape;
  bool empty = false;
  bool scalar = false;  ///< every subscript an integer: one element
};
/// Resolves `key` (an int, a slice with step 1, Ellipsis, or a tuple of them; negative indices
/// count from the end) against `dims`. gaea::error naming the array and the subscript otherwise.
selection select(const std::string& array, const ga::index& dims, const py::handle& key);
/// The patch as a tuple of slices (Python's half-open bounds).
py::tuple slices_of(const ga::patch& p);

}  // namespace gaea::python
