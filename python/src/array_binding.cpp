// gaea._gaea.Array: a gaea::global_array of any element type, read and written with NumPy
// arrays through Python subscripts; non-blocking requests; zero-copy views of the local tiles.
#include <pybind11/complex.h>
#include <pybind11/stl.h>

#include <complex>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "detail/binding.hpp"
#include "gaea/base/error.hpp"
#include "gaea/ga/global_array.hpp"

namespace gaea::python {

namespace {
// In the order of enum class dtype.
using any_array =
    std::variant<ga::global_array<double>, ga::global_array<float>, ga::global_array<std::int64_t>,
                 ga::global_array<std::int32_t>, ga::global_array<std::complex<double>>,
                 ga::global_array<std::complex<float>>>;

template <class A>
struct element_of;
template <class T>
struct element_of<ga::global_array<T>> {
  using type = T;
};
template <class A>
using element_t = typename element_of<std::remove_cvref_t<A>>::type;

template <std::size_t I>
any_array make_array(const std::string& name, const ga::index& dims, const ga::layout_spec& spec) {
  return any_array(std::in_place_index<I>, name, dims, spec);
}

any_array make_any(dtype t, const std::string& name, const ga::index& dims,
                   const ga::layout_spec& spec) {
  switch (t) {
    case dtype::float64:
      return make_array<0>(name, dims, spec);
    case dtype::float32:
      return make_array<1>(name, dims, spec);
    case dtype::int64:
      return make_array<2>(name, dims, spec);
    case dtype::int32:
      return make_array<3>(name, dims, spec);
    case dtype::complex128:
      return make_array<4>(name, dims, spec);
    case dtype::complex64:
      break;
  }
  return make_array<5>(name, dims, spec);
}

ga::index index_of(const py::handle& seq, const char* what) {
  if (py::isinstance<py::int_>(seq)) return ga::index{seq.cast<ga::index_t>()};
  std::vector<ga::index_t> v;
  try {
    v = seq.cast<std::vector<ga::index_t>>();
  } catch (const py::cast_error&) {
    throw error(std::string("gaea.Array: ") + what +
                " must be an integer or a sequence of them, not " +
                py::repr(seq).cast<std::string>());
  }
  return ga::index(v);
}

/// The values of a put or accumulate as a C-contiguous array of T shaped like the selection
/// (NumPy's broadcasting, e.g. a scalar for a whole patch).
template <class T>
py::array_t<T, py::array::c_style> values_for(const py::handle& values, const selection& s) {
  using arr = py::array_t<T, py::array::c_style | py::array::forcecast>;
  arr v = arr::ensure(values);
  if (!v) throw py::error_already_set();
  bool same = static_cast<std::size_t>(v.ndim()) == s.shape.size();
  for (std::size_t d = 0; same && d < s.shape.size(); ++d)
    same = v.shape(static_cast<py::ssize_t>(d)) == s.shape[d];
  if (same) return v;
  const py::object b =
      py::module_::import("numpy").attr("broadcast_to")(v, py::tuple(py::cast(s.shape)));
  return arr::ensure(b);
}

/// The caller's buffer for a get (`out=`): C-contiguous, writable, of T, with the selection's
/// number of elements (its shape is the caller's choice).
template <class T>
py::array_t<T> out_for(const py::handle& into, const selection& s, const std::string& array) {
  py::ssize_t n = 1;
  for (const py::ssize_t e : s.shape)
    n *= e;
  if (!py::isinstance<py::array_t<T>>(into))
    throw error("Array '" + array + "': get: out= must be a NumPy array of the array's dtype");
  auto out = py::reinterpret_borrow<py::array_t<T>>(into);
  if (!(out.flags() & py::array::c_style) || !out.writeable() || out.size() != n)
    throw error("Array '" + array + "': get: out= must be C-contiguous, writable and hold " +
                std::to_string(n) + " elements (it holds " + std::to_string(out.size()) + ")");
  return out;
}

/// Holds a local view's owner (the gaea.Array) and counts the live views.
struct view_token {
  py::object owner;
  std::shared_ptr<int> views;
};

/// gaea.Request: a non-blocking get, put or accumulate.
class py_request {
 public:
  py_request(ga::request r, py::object result, py::object keep)
      : r_(std::move(r)), result_(std::move(result)), keep_(std::move(keep)) {}
  /// A one-element get into `buffer` (no NumPy array): wait() returns `to_scalar(buffer)`.
  py_request(ga::request r, std::unique_ptr<std::byte[]> buffer,
             py::object (*to_scalar)(const std::byte*), py::object keep)
      : r_(std::move(r)),
        keep_(std::move(keep)),
        buffer_(std::move(buffer)),
        to_scalar_(to_scalar) {}
  /// Completes an operation never waited for before its buffers go.
  ~py_request() {
    if (!r_.pending()) return;
    try {
      py::gil_scoped_release unlocked;
      r_.wait();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gaea: Request: %s\n", e.what());
    }
  }
  py_request(py_request&&) noexcept = default;
  py_request& operator=(py_request&&) = delete;
  py::object wait() {
    // Done already (a small get on the node usually is): no GIL hand-over.
    if (!r_.test()) {
      py::gil_scoped_release unlocked;
      r_.wait();
    }
    keep_ = py::none();
    if (to_scalar_) return to_scalar_(buffer_.get());
    return result_;
  }
  bool test() { return r_.test(); }
  bool pending() const noexcept { return r_.pending(); }

 private:
  ga::request r_;
  py::object result_;                    // the get's NumPy array, or None
  py::object keep_;                      // the put's values and the array, alive until completion
  std::unique_ptr<std::byte[]> buffer_;  // a one-element get's target (a stable address)
  py::object (*to_scalar_)(const std::byte*) = nullptr;
};

class py_array {
 public:
  py_array(const py::handle& shape, const py::object& dt, const std::string& name,
           const py::object& chunk, const py::object& ghosts, const py::object& starts,
           const py::object& tile, const py::object& grid)
      : t_(dtype_of(dt)), a_(create(shape, name, chunk, ghosts, starts, tile, grid)) {
    live_id_ = live_objects::add([this] { destroy(true); });
  }
  ~py_array() {
    try {
      destroy(true);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gaea: Array: %s\n", e.what());
    }
  }
  py_array(const py_array&) = delete;
  py_array& operator=(const py_array&) = delete;

  template <class F>
  decltype(auto) visit(F&& f) {
    return std::visit(std::forward<F>(f), a_);
  }
  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit(std::forward<F>(f), a_);
  }
  bool valid() const {
    return visit([](const auto& a) { return a.valid(); });
  }
  const std::string& name() const {
    return visit([](const auto& a) -> const std::string& { return a.name(); });
  }
  const ga::index& dims() const {
    return visit([](const auto& a) -> const ga::index& { return a.dims(); });
  }
  dtype type() const noexcept { return t_; }
  const ga::distribution& layout() const {
    return visit([](const auto& a) -> const ga::distribution& { return a.layout(); });
  }

  py::object get(const py::handle& key, const py::handle& into) {
    return visit([&](auto& a) -> py::object {
      using T = element_t<decltype(a)>;
      const selection s = select(a.name(), a.dims(), key);
      if (s.scalar && into.is_none()) {  // one element: no NumPy array in between
        T v{};
        {
          py::gil_scoped_release unlocked;
          a.get(s.box, std::span<T>(&v, 1));
        }
        return py::cast(v);
      }
      py::array_t<T> out = into.is_none() ? py::array_t<T>(s.shape) : out_for<T>(into, s, a.name());
      if (s.empty) return out;
      T* p = out.mutable_data();
      const auto n = static_cast<std::size_t>(out.size());
      {
        py::gil_scoped_release unlocked;
        a.get(s.box, std::span<T>(p, n));
      }
      return out;
    });
  }

  void put(const py::handle& key, const py::handle& values) {
    visit([&](auto& a) {
      using T = element_t<decltype(a)>;
      const selection s = select(a.name(), a.dims(), key);
      if (s.empty) return;
      const auto v = values_for<T>(values, s);
      py::gil_scoped_release unlocked;
      a.put(s.box, std::span<const T>(v.data(), static_cast<std::size_t>(v.size())));
    });
  }

  void acc(const py::handle& key, const py::handle& values, const py::handle& alpha) {
    visit([&](auto& a) {
      using T = element_t<decltype(a)>;
      const selection s = select(a.name(), a.dims(), key);
      const T al = alpha.cast<T>();
      if (s.empty) return;
      const auto v = values_for<T>(values, s);
      py::gil_scoped_release unlocked;
      a.acc(s.box, std::span<const T>(v.data(), static_cast<std::size_t>(v.size())), al);
    });
  }

  py_request iget(const py::object& self, const py::handle& key) {
    return visit([&](auto& a) {
      using T = element_t<decltype(a)>;
      const selection s = select(a.name(), a.dims(), key);
      if (s.scalar) {
        auto buffer = std::make_unique<std::byte[]>(sizeof(T));
        ga::request r =
            a.get(s.box, std::span<T>(reinterpret_cast<T*>(buffer.get()), 1), ga::nonblocking);
        auto to_scalar = [](const std::byte* p) {
          T v;
          std::memcpy(&v, p, sizeof v);
          return py::object(py::cast(v));
        };
        return py_request(std::move(r), std::move(buffer), +to_scalar, self);
      }
      py::array_t<T> out(s.shape);
      if (s.empty) return py_request(ga::request(), out, py::none());
      const auto n = static_cast<std::size_t>(out.size());
      ga::request r = a.get(s.box, std::span<T>(out.mutable_data(), n), ga::nonblocking);
      return py_request(std::move(r), out, self);
    });
  }

  py_request iput(const py::object& self, const py::handle& key, const py::handle& values,
                  const py::handle* alpha) {
    return visit([&](auto& a) {
      using T = element_t<decltype(a)>;
      const selection s = select(a.name(), a.dims(), key);
      const T al = alpha ? alpha->cast<T>() : T(1);
      if (s.empty) return py_request(ga::request(), py::none(), py::none());
      auto v = values_for<T>(values, s);
      const std::span<const T> buf(v.data(), static_cast<std::size_t>(v.size()));
      ga::request r =
          alpha ? a.acc(s.box, buf, ga::nonblocking, al) : a.put(s.box, buf, ga::nonblocking);
      return py_request(std::move(r), py::none(), py::make_tuple(self, v));
    });
  }

  /// Zero-copy views of this rank's tiles: (slices of the interior, view).
  py::list local_tiles(const py::object& self, bool ghosts) {
    py::list out;
    visit([&](auto& a) {
      using T = element_t<decltype(a)>;
      for (const auto& tv : a.local_tiles()) {
        std::vector<py::ssize_t> shape, strides;
        T* origin = tv.origin;
        const std::size_t n = tv.strides.size();
        for (std::size_t d = 0; d < n; ++d) {
          const ga::index_t g = ghosts ? tv.ghosts[d] : 0;
          shape.push_back(static_cast<py::ssize_t>(tv.box.extent(static_cast<int>(d)) + 2 * g));
          strides.push_back(static_cast<py::ssize_t>(tv.strides[d] * sizeof(T)));
          origin -= g * tv.strides[d];
        }
        ++*views_;
        py::capsule base(new view_token{self, views_}, [](void* p) {
          auto* tok = static_cast<view_token*>(p);
          --*tok->views;
          delete tok;
        });
        out.append(py::make_tuple(slices_of(tv.box), py::array_t<T>(shape, strides, origin, base)));
      }
    });
    return out;
  }

  void destroy(bool at_exit) {
    if (!valid()) return;
    if (!at_exit && *views_ > 0)
      throw error("Array '" + name() + "': destroy: " + std::to_string(*views_) +
                  " local view(s) still alive; delete them first");
    live_objects::forget(live_id_);
    py::gil_scoped_release unlocked;
    visit([](auto& a) { a.destroy(); });
  }

 private:
  any_array create(const py::handle& shape, const std::string& name, const py::object& chunk,
                   const py::object& ghosts, const py::object& starts, const py::object& tile,
                   const py::object& grid) {
    const ga::index dims = index_of(shape, "shape");
    ga::layout_spec spec;
    if (!tile.is_none()) {
      spec = ga::layout_spec::block_cyclic(
          index_of(tile, "tile"),
          grid.is_none() ? std::vector<int>{} : grid.cast<std::vector<int>>());
    } else if (!starts.is_none()) {
      spec = ga::layout_spec::irregular(starts.cast<std::vector<std::vector<ga::index_t>>>());
    } else if (!chunk.is_none()) {
      spec = ga::layout_spec::block(index_of(chunk, "chunk"));
    }
    if (!ghosts.is_none()) spec = spec.with_ghosts(index_of(ghosts, "ghosts"));
    ensure_runtime();
    py::gil_scoped_release unlocked;
    return make_any(t_, name, dims, spec);
  }

  dtype t_;
  any_array a_;
  std::uint64_t live_id_ = 0;
  std::shared_ptr<int> views_ = std::make_shared<int>(0);
};

py::tuple tuple_of(const ga::index& v) {
  py::tuple t(v.size());
  for (std::size_t d = 0; d < v.size(); ++d)
    t[d] = v[d];
  return t;
}

void collective(py_array& a, void (*fn)(py_array&)) {
  py::gil_scoped_release unlocked;
  fn(a);
}
}  // namespace

void bind_arrays(py::module_& m) {
  py::class_<py_request>(m, "Request", "A non-blocking get, put or accumulate.")
      .def("wait", &py_request::wait,
           "Completes it: a get's values (a NumPy array, or a scalar for an element), None for "
           "a put or accumulate (the values may be reused; remotely complete after fence/sync).")
      .def("test", &py_request::test, "One progress step; True when complete.")
      .def_property_readonly("pending", &py_request::pending);

  py::class_<py_array>(m, "Array", "A distributed N-D array (docs/python.md).")
      .def(py::init<const py::handle&, const py::object&, const std::string&, const py::object&,
                    const py::object&, const py::object&, const py::object&, const py::object&>(),
           py::arg("shape"), py::arg("dtype") = py::str("float64"), py::arg("name") = "array",
           py::arg("chunk") = py::none(), py::arg("ghosts") = py::none(),
           py::arg("starts") = py::none(), py::arg("tile") = py::none(),
           py::arg("grid") = py::none())
      .def_property_readonly("name", &py_array::name)
      .def_property_readonly("shape", [](const py_array& a) { return tuple_of(a.dims()); })
      .def_property_readonly("ndim", [](const py_array& a) { return a.dims().size(); })
      .def_property_readonly("dtype",
                             [](const py_array& a) { return py::dtype(dtype_name(a.type())); })
      .def_property_readonly("ghosts",
                             [](const py_array& a) { return tuple_of(a.layout().ghosts()); })
      .def_property_readonly(
          "kind", [](const py_array& a) { return ga::kind_name(a.layout().spec().type); })
      .def_property_readonly("valid", &py_array::valid)
      .def("__len__", [](const py_array& a) { return a.dims()[0]; })
      .def("__repr__",
           [](const py_array& a) {
             if (!a.valid()) return std::string("gaea.Array(destroyed)");
             return "gaea.Array('" + a.name() +
                    "', shape=" + py::repr(tuple_of(a.dims())).cast<std::string>() +
                    ", dtype=" + dtype_name(a.type()) + ")";
           })
      .def("__getitem__", [](py_array& a, const py::handle& key) { return a.get(key, py::none()); })
      .def("__setitem__", &py_array::put)
      .def("get", &py_array::get, py::arg("key"), py::arg("out") = py::none(),
           "a[key] (a NumPy array, a scalar for an element), or into `out` (returned)")
      .def("put", &py_array::put, py::arg("key"), py::arg("values"), "a[key] = values")
      .def("acc", &py_array::acc, py::arg("key"), py::arg("values"), py::arg("alpha") = 1,
           "a[key] += alpha * values, atomically per element, applied by the owners")
      .def(
          "iget",
          [](const py::object& self, const py::handle& key) {
            return self.cast<py_array&>().iget(self, key);
          },
          py::arg("key"))
      .def(
          "iput",
          [](const py::object& self, const py::handle& key, const py::handle& values) {
            return self.cast<py_array&>().iput(self, key, values, nullptr);
          },
          py::arg("key"), py::arg("values"))
      .def(
          "iacc",
          [](const py::object& self, const py::handle& key, const py::handle& values,
             const py::handle& alpha) {
            return self.cast<py_array&>().iput(self, key, values, &alpha);
          },
          py::arg("key"), py::arg("values"), py::arg("alpha") = 1)
      .def(
          "local_tiles",
          [](py::object self, bool ghosts) {
            return self.cast<py_array&>().local_tiles(self, ghosts);
          },
          py::arg("ghosts") = false)
      .def(
          "distribution",
          [](const py_array& a, const std::optional<int>& rank) -> py::object {
            const ga::patch p = a.layout().block(rank ? *rank : ensure_runtime().rank());
            if (p.empty()) return py::none();
            return slices_of(p);
          },
          py::arg("rank") = py::none())
      .def(
          "tiles",
          [](const py_array& a, const std::optional<int>& rank) {
            py::list out;
            for (const ga::tile& t : a.layout().tiles(rank ? *rank : ensure_runtime().rank()))
              out.append(slices_of(t.box));
            return out;
          },
          py::arg("rank") = py::none())
      .def("locate",
           [](const py_array& a, const py::handle& key) {
             const selection s = select(a.name(), a.dims(), key);
             py::list out;
             if (s.empty) return out;
             a.layout().validate(s.box, "locate");
             for (const ga::owned_patch& o : a.layout().locate(s.box))
               out.append(py::make_tuple(o.rank, slices_of(o.piece)));
             return out;
           })
      .def("fence",
           [](py_array& a) {
             py::gil_scoped_release unlocked;
             a.visit([](auto& x) { x.fence(); });
           })
      .def("sync",
           [](py_array& a) {
             collective(a, [](py_array& x) { x.visit([](auto& y) { y.sync(); }); });
           })
      .def(
          "update_ghosts",
          [](py_array& a, const std::string& boundary) {
            ga::boundary b;
            if (boundary == "periodic")
              b = ga::boundary::periodic;
            else if (boundary == "fixed")
              b = ga::boundary::fixed;
            else
              throw error("Array.update_ghosts: boundary '" + boundary +
                          "' is neither 'periodic' nor 'fixed'");
            py::gil_scoped_release unlocked;
            a.visit([b](auto& x) { x.update_ghosts(b); });
          },
          py::arg("boundary"),
          "Collective: fills the ghost cells; 'periodic' wraps around the edges, 'fixed' leaves "
          "the cells beyond them as they are.")
      .def("fill",
           [](py_array& a, const py::handle& value) {
             a.visit([&](auto& x) {
               using T = element_t<decltype(x)>;
               const T v = value.cast<T>();
               py::gil_scoped_release unlocked;
               x.fill(v);
             });
           })
      .def("zero",
           [](py_array& a) {
             collective(a, [](py_array& x) { x.visit([](auto& y) { y.zero(); }); });
           })
      .def("destroy", [](py_array& a) { a.destroy(false); });
}

}  // namespace gaea::python
