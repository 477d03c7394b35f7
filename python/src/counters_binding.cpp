// gaea._gaea: shared counters, task counters and task pools running Python callables.
#include <pybind11/stl.h>

#include <cstdio>
#include <optional>
#include <string>

#include "detail/binding.hpp"
#include "gaea/base/error.hpp"
#include "gaea/counters/shared_counter.hpp"
#include "gaea/counters/task_pool.hpp"

namespace gaea::python {

namespace {
std::optional<counters::counter_mode> mode_of(const std::optional<std::string>& name) {
  if (!name) return std::nullopt;
  if (const auto m = counters::parse_counter_mode(*name)) return m;
  throw error("gaea: counter mode '" + *name + "' is not one of atomic, progress, owner");
}

counters::dispense variant_of(const std::string& name) {
  if (const auto v = counters::parse_dispense(name)) return *v;
  throw error("gaea: task counter variant '" + name +
              "' is not one of single, batched, hierarchical");
}

/// A collective object of the counters module, registered for destruction at finalize.
template <class C>
class registered {
 public:
  template <class... Args>
  explicit registered(Args&&... args) {
    ensure_runtime();
    {
      py::gil_scoped_release unlocked;
      c_ = std::make_unique<C>(std::forward<Args>(args)...);
    }
    id_ = live_objects::add([this] { destroy(); });
  }
  ~registered() {
    try {
      destroy();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gaea: %s\n", e.what());
    }
  }
  registered(const registered&) = delete;
  registered& operator=(const registered&) = delete;
  C& get() {
    if (!c_) throw error("gaea: counter or task pool used after destroy()");
    return *c_;
  }
  void destroy() {
    if (!c_) return;
    live_objects::forget(id_);
    py::gil_scoped_release unlocked;
    c_.reset();
  }

 private:
  std::unique_ptr<C> c_;
  std::uint64_t id_ = 0;
};

using py_counter = registered<counters::shared_counter>;
using py_task_counter = registered<counters::task_counter>;
using py_pool = registered<counters::task_pool>;

py::dict stats_dict(const counters::task_stats& s) {
  py::dict d;
  d["tasks"] = s.tasks;
  d["fetches"] = s.fetches;
  d["compute_s"] = s.compute_s;
  d["wait_s"] = s.wait_s;
  d["wall_s"] = s.wall_s;
  d["threads"] = s.threads;
  return d;
}

counters::task_counter_options counter_options(const std::string& variant,
                                               const std::optional<std::string>& mode, int owner) {
  counters::task_counter_options o;
  o.variant = variant_of(variant);
  o.mode = mode_of(mode);
  o.owner = owner;
  return o;
}
}  // namespace

void bind_counters(py::module_& m) {
  py::class_<py_counter>(m, "Counter", "A shared 64-bit counter living on one rank.")
      .def(py::init([](const std::string& name, int owner, std::int64_t initial,
                       const std::optional<std::string>& mode) {
             return std::make_unique<py_counter>(name, owner, initial, mode_of(mode));
           }),
           py::arg("name") = "counter", py::arg("owner") = 0, py::arg("initial") = 0,
           py::arg("mode") = py::none())
      .def(
          "fetch_add",
          [](py_counter& c, std::int64_t n) {
            auto& x = c.get();
            py::gil_scoped_release unlocked;
            return x.fetch_add(n);
          },
          py::arg("n") = 1, "Adds n (>= 0) and returns the previous value.")
      .def("compare_swap",
           [](py_counter& c, std::int64_t expected, std::int64_t desired) {
             auto& x = c.get();
             py::gil_scoped_release unlocked;
             return x.compare_swap(expected, desired);
           })
      .def("read",
           [](py_counter& c) {
             auto& x = c.get();
             py::gil_scoped_release unlocked;
             return x.read();
           })
      .def(
          "reset",
          [](py_counter& c, std::int64_t v) {
            auto& x = c.get();
            py::gil_scoped_release unlocked;
            x.reset(v);
          },
          py::arg("value") = 0)
      .def_property_readonly("owner", [](py_counter& c) { return c.get().owner(); })
      .def_property_readonly("mode",
                             [](py_counter& c) { return std::string(to_string(c.get().mode())); })
      .def("destroy", &py_counter::destroy);

  py::class_<py_task_counter>(m, "TaskCounter",
                              "Hands out the ids 0..n-1 across ranks in chunks, each once.")
      .def(py::init([](std::int64_t n, const std::string& name, const std::string& variant,
                       const std::optional<std::string>& mode, int owner) {
             return std::make_unique<py_task_counter>(name, n,
                                                      counter_options(variant, mode, owner));
           }),
           py::arg("n_tasks"), py::arg("name") = "tasks", py::arg("variant") = "batched",
           py::arg("mode") = py::none(), py::arg("owner") = 0)
      .def(
          "next",
          [](py_task_counter& c) {
            auto& x = c.get();
            counters::task_range r;
            {
              py::gil_scoped_release unlocked;
              r = x.next();
            }
            return py::module_::import("builtins").attr("range")(r.begin, r.end);
          },
          "The next ids for this rank (a range; empty once all are handed out).")
      .def(
          "reset",
          [](py_task_counter& c, std::int64_t n) {
            auto& x = c.get();
            py::gil_scoped_release unlocked;
            x.reset(n);
          },
          py::arg("n_tasks"))
      .def("destroy", &py_task_counter::destroy);

  py::class_<py_pool>(m, "TaskPool", "Runs numbered tasks across ranks (dynamic load balance).")
      .def(py::init([](const std::string& name, int threads, const std::string& variant,
                       const std::optional<std::string>& mode, int owner) {
             counters::task_pool_options o;
             o.counter = counter_options(variant, mode, owner);
             o.threads = threads;
             return std::make_unique<py_pool>(name, o);
           }),
           py::arg("name") = "tasks", py::arg("threads") = 1, py::arg("variant") = "batched",
           py::arg("mode") = py::none(), py::arg("owner") = 0)
      .def(
          "run",
          [](py_pool& p, std::int64_t n_tasks, const py::function& fn, bool pass_worker) {
            auto& pool = p.get();
            counters::task_stats s;
            {
              py::gil_scoped_release unlocked;
              // Each task takes the GIL for the callable only; the waits for ids run without it.
              s = pool.run(n_tasks, [&fn, pass_worker](std::int64_t t, int w) {
                py::gil_scoped_acquire locked;
                if (pass_worker)
                  fn(t, w);
                else
                  fn(t);
              });
            }
            return stats_dict(s);
          },
          py::arg("n_tasks"), py::arg("fn"), py::arg("pass_worker") = false)
      .def_property_readonly("threads", [](py_pool& p) { return p.get().threads(); })
      .def("destroy", &py_pool::destroy);
}

}  // namespace gaea::python
