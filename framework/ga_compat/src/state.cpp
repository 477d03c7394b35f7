// The layer's process state: handle table, start-up and shut-down, job-ending errors.

#include "detail/state.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "gaea/base/launcher.hpp"
#include "gaea/runtime/communicator.hpp"

namespace gaea::ga_compat::detail {

namespace {
std::unique_ptr<state> g_state;

// Index of the element type in any_array (C_LONG and C_LONGLONG share int64 storage).
std::size_t storage_kind(int type) {
  return visit_type(type, "type check", [](auto tag) {
    using T = typename decltype(tag)::type;
    return variant_index<any_array, ga::global_array<T>>();
  });
}
// MPI calls this at the start of MPI_Finalize (the delete callback of an attribute of
// MPI_COMM_SELF), while MPI still works. GA still initialized then means that the program did
// not call GA_Terminate: say so, rather than let the clean-up at exit fail inside MPI.
int on_mpi_finalize(MPI_Comm, int, void*, void*) {
  if (g_state)
    fail(
        "MPI_Finalize was called while GA is initialized: call GA_Terminate() before "
        "MPI_Finalize()",
        1);
  return MPI_SUCCESS;
}

void watch_mpi_finalize() {
  static bool watching = false;
  if (watching) return;
  int keyval = MPI_KEYVAL_INVALID;
  if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_mpi_finalize, &keyval, nullptr) !=
          MPI_SUCCESS ||
      MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr) != MPI_SUCCESS)
    return;  // only the message is lost
  watching = true;
}
}  // namespace

std::string type_name(int type) {
  switch (type) {
    case C_CHAR:
      return "C_CHAR";
    case C_INT:
      return "C_INT";
    case C_LONG:
      return "C_LONG";
    case C_LONGLONG:
      return "C_LONGLONG";
    case C_FLOAT:
      return "C_FLOAT";
    case C_DBL:
      return "C_DBL";
    case C_LDBL:
      return "C_LDBL";
    case C_SCPL:
      return "C_SCPL";
    case C_DCPL:
      return "C_DCPL";
    case C_LDCPL:
      return "C_LDCPL";
    case F_BYTE:
      return "F_BYTE";
    case F_INT:
      return "F_INT";
    case F_LOG:
      return "F_LOG";
    case F_REAL:
      return "F_REAL";
    case F_DBL:
      return "F_DBL";
    case F_SCPL:
      return "F_SCPL";
    case F_DCPL:
      return "F_DCPL";
    default:
      if (const std::size_t b = registered_size(type); b != 0)
        return "registered type " + std::to_string(type) + " (" + std::to_string(b) + " bytes)";
      return "type " + std::to_string(type);
  }
}

std::size_t type_size(int type) {
  switch (type) {
    case C_CHAR:
    case F_BYTE:
      return 1;
    case C_INT:
    case C_FLOAT:
    case F_REAL:
      return 4;
    case C_LONG:
    case C_LONGLONG:
    case F_INT:
    case F_LOG:
    case C_DBL:
    case F_DBL:
    case C_SCPL:
    case F_SCPL:
      return 8;
    case C_LDBL:
    case C_DCPL:
    case F_DCPL:
      return 16;
    case C_LDCPL:
      return 32;
    default:
      return registered_size(type);
  }
}

array_slot& registry::create() {
  std::size_t i = 0;
  while (i < slots_.size() && slots_[i])
    ++i;
  if (i == slots_.size()) slots_.emplace_back();
  slots_[i] = std::make_unique<array_slot>();
  slots_[i]->handle = handle_base + static_cast<int>(i);
  return *slots_[i];
}

array_slot* registry::find(int handle) noexcept {
  const long i = static_cast<long>(handle) - handle_base;
  if (i < 0 || i >= static_cast<long>(slots_.size())) return nullptr;
  return slots_[static_cast<std::size_t>(i)].get();
}

array_slot& registry::at(int handle, const char* fn) {
  if (array_slot* s = find(handle)) return *s;
  throw error(std::string(fn) + ": " + std::to_string(handle) +
              " is not a valid array handle (never created, or destroyed)");
}

array_slot& registry::allocated(int handle, const char* fn) {
  array_slot& s = at(handle, fn);
  if (!s.allocated())
    throw error(std::string(fn) + ": array handle " + std::to_string(handle) +
                (s.name.empty() ? "" : " ('" + s.name + "')") +
                " is not allocated yet (GA_Allocate)");
  return s;
}

void registry::erase(int handle) {
  const long i = static_cast<long>(handle) - handle_base;
  if (i >= 0 && i < static_cast<long>(slots_.size())) slots_[static_cast<std::size_t>(i)].reset();
}

std::vector<array_slot*> registry::live() {
  std::vector<array_slot*> out;
  for (auto& s : slots_)
    if (s && s->allocated()) out.push_back(s.get());
  return out;
}

void registry::clear() {
  for (auto it = slots_.rbegin(); it != slots_.rend(); ++it)
    it->reset();
  slots_.clear();
}

void check_same_type(const array_slot& a, const array_slot& b, const char* fn_name) {
  const bool registered = a.type >= first_registered_type || b.type >= first_registered_type;
  if (registered ? a.type != b.type : storage_kind(a.type) != storage_kind(b.type))
    throw error(std::string(fn_name) + ": arrays '" + a.name + "' (" + type_name(a.type) +
                ") and '" + b.name + "' (" + type_name(b.type) +
                ") must have the same element type");
}

state* current_or_null() noexcept {
  return g_state.get();
}

state& current(const char* fn) {
  if (!g_state)
    throw error(std::string(fn) +
                ": GA is not initialized (call GA_Initialize first, after "
                "MPI_Init when the program uses MPI)");
  return *g_state;
}

void initialize(int* argc, char*** argv, std::size_t limit, MPI_Comm comm) {
  if (g_state) throw error("GA is already initialized");
  auto st = std::make_unique<state>();
  if (gaea::runtime::initialized()) {
    if (comm != MPI_COMM_WORLD && comm != runtime_communicator())
      throw error("a Gaea runtime is already running on another communicator");
    st->rt = &gaea::runtime::current();
  } else {
    set_runtime_communicator(comm);
    st->owned_rt = std::make_unique<gaea::runtime>(argc, argv);
    st->rt = st->owned_rt.get();
  }
  st->memory_limit = limit;
  st->memory_used.assign(static_cast<std::size_t>(st->rt->size()), 0);
  watch_mpi_finalize();
  g_state = std::move(st);
}

void add_terminate_hook(std::function<void()> hook) {
  current("GA_Terminate hook").terminate_hooks.push_back(std::move(hook));
}

void terminate() {
  state& st = current("GA_Terminate");
  for (auto it = st.terminate_hooks.rbegin(); it != st.terminate_hooks.rend(); ++it)
    (*it)();
  st.terminate_hooks.clear();
  st.arrays.clear();
  st.rt->barrier();
  std::unique_ptr<state> done = std::move(g_state);
  done->owned_rt.reset();  // the runtime GA started ends here (MPI too if it started it)
}

void fail(const std::string& message, int exit_code) noexcept {
  if (gaea::runtime::initialized()) gaea::runtime::current().fail(message, exit_code);
  launcher::print_error("GA (Gaea)", message);
  int mpi_up = 0, mpi_down = 0;
  MPI_Initialized(&mpi_up);
  MPI_Finalized(&mpi_down);
  if (mpi_up && !mpi_down) {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
  }
  std::_Exit(exit_code);
}

}  // namespace gaea::ga_compat::detail
