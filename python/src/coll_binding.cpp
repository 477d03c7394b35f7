// gaea._gaea: collectives over all ranks (gaea::coll::world()) on NumPy buffers, in place.
#include <pybind11/complex.h>

#include <complex>
#include <string>

#include "detail/binding.hpp"
#include "gaea/base/error.hpp"
#include "gaea/coll/collectives.hpp"

namespace gaea::python {

namespace {
coll::reduce_op op_of(const std::string& name) {
  if (const auto o = gaea::try_parse<coll::reduce_op>(name)) return *o;
  throw error("gaea: reduction '" + name + "' is not one of sum, prod, min, max, land, lor");
}

/// A C-contiguous writable NumPy array's memory, or gaea::error naming the call.
std::span<std::byte> buffer_of(py::array& a, const char* call) {
  if (!(a.flags() & py::array::c_style) || !a.writeable())
    throw error(std::string("gaea.") + call +
                ": the buffer must be a C-contiguous, writable "
                "NumPy array");
  return {static_cast<std::byte*>(a.mutable_data()), static_cast<std::size_t>(a.nbytes())};
}

/// Calls f(T{}) with the element type of `a` (NumPy's reducible types), or gaea::error.
template <class F>
void with_element(const py::array& a, const char* call, F&& f) {
  const py::dtype d = a.dtype();
  bool done = false;
  const auto try_one = [&](auto tag) {
    using T = decltype(tag);
    if (!done && d.equal(py::dtype::of<T>())) {
      f(tag);
      done = true;
    }
  };
  try_one(double{});
  try_one(float{});
  try_one(std::int64_t{});
  try_one(std::int32_t{});
  try_one(std::int16_t{});
  try_one(std::int8_t{});
  try_one(std::uint64_t{});
  try_one(std::uint32_t{});
  try_one(std::uint16_t{});
  try_one(std::uint8_t{});
  try_one(bool{});
  try_one(std::complex<double>{});
  try_one(std::complex<float>{});
  if (!done)
    throw error(std::string("gaea.") + call + ": NumPy dtype '" +
                py::str(d.attr("name")).cast<std::string>() + "' cannot be reduced");
}

void reduce_in_place(py::array& a, const std::string& op, int root, bool all) {
  ensure_runtime();
  const char* call = all ? "allreduce" : "reduce";
  const std::span<std::byte> b = buffer_of(a, call);
  const coll::reduce_op o = op_of(op);
  with_element(a, call, [&](auto tag) {
    using T = decltype(tag);
    const std::span<T> v(reinterpret_cast<T*>(b.data()), b.size() / sizeof(T));
    py::gil_scoped_release unlocked;
    if (all)
      coll::allreduce(coll::world(), v, o);
    else
      coll::reduce(coll::world(), std::span<const T>(v), v, o, root);
  });
}
}  // namespace

void bind_coll(py::module_& m) {
  m.def(
      "_allreduce", [](py::array a, const std::string& op) { reduce_in_place(a, op, 0, true); },
      py::arg("buf"), py::arg("op"));
  m.def(
      "_reduce",
      [](py::array a, const std::string& op, int root) { reduce_in_place(a, op, root, false); },
      py::arg("buf"), py::arg("op"), py::arg("root"));
  m.def(
      "_broadcast",
      [](py::array a, int root) {
        ensure_runtime();
        const std::span<std::byte> b = buffer_of(a, "broadcast");
        py::gil_scoped_release unlocked;
        coll::broadcast(coll::world(), b, root);
      },
      py::arg("buf"), py::arg("root"));
  m.def(
      "_broadcast_bytes",
      [](const py::bytes& data, int root) {
        ensure_runtime();
        std::string s = data;
        {
          py::gil_scoped_release unlocked;
          s = coll::broadcast(coll::world(), std::move(s), root);
        }
        return py::bytes(s);
      },
      py::arg("data"), py::arg("root"));
  m.def(
      "_allgather",
      [](py::array mine, py::array all) {
        ensure_runtime();
        const std::span<std::byte> in = buffer_of(mine, "allgather");
        const std::span<std::byte> out = buffer_of(all, "allgather");
        py::gil_scoped_release unlocked;
        coll::allgather(coll::world(), std::span<const std::byte>(in), out);
      },
      py::arg("mine"), py::arg("all"));
}

}  // namespace gaea::python
