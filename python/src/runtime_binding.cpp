// gaea._gaea: the runtime (init, finalize, rank, size, barrier, fail) and the registry of live
// collective objects.
#include <mpi.h>

#include <map>
#include <memory>
#include <string>

#include "detail/binding.hpp"

namespace gaea::python {

namespace {
std::unique_ptr<gaea::runtime> g_runtime;
bool g_owns_mpi = false;  // MPI started here (not by mpi4py): finalized at interpreter exit
std::map<std::uint64_t, std::function<void()>> g_live;
std::uint64_t g_next_id = 1;

void init_runtime() {
  if (g_runtime) return;
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (finalized) throw error("gaea.init: MPI was already finalized (by mpi4py?)");
  // MPI stays up after finalize() (a later init() starts a new runtime, mpi4py keeps working);
  // the package's exit handler ends it when this module started it.
  if (!inited) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    g_owns_mpi = true;
  }
  g_runtime = std::make_unique<gaea::runtime>();
}

void finalize_runtime() {
  if (!g_runtime) return;
  live_objects::destroy_all();
  py::gil_scoped_release unlocked;
  g_runtime.reset();
}
}  // namespace

gaea::runtime& ensure_runtime() {
  if (!g_runtime) {
    if (gaea::runtime::initialized()) return gaea::runtime::current();  // embedded in C++
    init_runtime();
  }
  return *g_runtime;
}

std::uint64_t live_objects::add(std::function<void()> destroy) {
  const std::uint64_t id = g_next_id++;
  g_live.emplace(id, std::move(destroy));
  return id;
}

void live_objects::forget(std::uint64_t id) noexcept {
  g_live.erase(id);
}

void live_objects::destroy_all() {
  while (!g_live.empty()) {
    auto last = std::prev(g_live.end());
    const std::function<void()> destroy = std::move(last->second);
    g_live.erase(last);
    destroy();
  }
}

void bind_runtime(py::module_& m) {
  m.def("init", &init_runtime,
        "Starts the runtime (collective; MPI too unless mpi4py or the program started it). "
        "Does nothing when it is running.");
  m.def("finalize", &finalize_runtime,
        "Destroys the live Gaea objects (newest first), then the runtime (collective). MPI "
        "stays up; init() may start a new runtime.");
  m.def("initialized", [] { return static_cast<bool>(g_runtime) || runtime::initialized(); });
  m.def("_finalize_mpi", [] {
    finalize_runtime();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (g_owns_mpi && !finalized) MPI_Finalize();
    g_owns_mpi = false;
  });
  m.def(
      "rank", [] { return ensure_runtime().rank(); }, "This rank (starts the runtime).");
  m.def(
      "size", [] { return ensure_runtime().size(); }, "Number of ranks (starts the runtime).");
  m.def(
      "barrier",
      [] {
        gaea::runtime& rt = ensure_runtime();
        py::gil_scoped_release unlocked;
        rt.barrier();
      },
      "Collective: completes this thread's puts and accumulates, then synchronises all ranks.");
  m.def(
      "elapsed", [] { return ensure_runtime().elapsed(); },
      "Wall seconds since the runtime started.");
  m.def(
      "poll", [] { return ensure_runtime().poll(); },
      "One progress step (serves owner-served counters from a long Python computation).");
  m.def(
      "_fail",
      [](const std::string& message, int code) {
        if (!runtime::initialized()) return;
        runtime::current().fail(message, code);
      },
      py::arg("message"), py::arg("exit_code") = 1);
  m.def("_failed", [] { return runtime::initialized() && runtime::current().failed(); });
}

}  // namespace gaea::python
