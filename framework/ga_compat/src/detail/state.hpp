#pragma once
// The GA compatibility layer's process state: the runtime it started (or found), the array
// handle table, the memory budget, and clean-up hooks other parts register for GA_Terminate.

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "detail/types.hpp"
#include "gaea/coll/group.hpp"
#include "gaea/ga/distribution.hpp"
#include "gaea/ga/global_array.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga_compat::detail {

/// The process-group handle of the world group (GA_Pgroup_get_world).
inline constexpr int world_pgroup = 0;

/// What the handle-based creation path (GA_Create_handle, GA_Set_*, GA_Allocate) collects.
struct pending_array {
  int type = 0;  // GA type code; 0 until GA_Set_data
  ga::index dims;
  std::string name;
  ga::layout_spec spec;
  int pgroup = -1;  // -1: the default group at GA_Allocate time
};

/// One array handle. `array` is empty (monostate) until the array is allocated.
struct array_slot {
  int handle = 0;
  int type = 0;  // the GA type code the program gave (C_LONG and C_LONGLONG stay distinct)
  std::string name;
  std::string property;
  pending_array pending;
  any_array array;
  std::vector<std::size_t> bytes_per_rank;  // memory charged to each rank (GA_Initialize_ltd)
  int pgroup = world_pgroup;                // the process group the array lives on
  bool allocated() const noexcept { return array.index() != 0; }
};

/// The handle table. Handles are `handle_base + slot`, so that 0 and small stale integers are
/// never valid; destroyed slots are reused lowest first (as GA does).
class registry {
 public:
  static constexpr int handle_base = 1000;
  /// A new, unallocated slot.
  array_slot& create();
  /// The slot of `handle`; gaea::error naming `fn` and the handle when there is none.
  array_slot& at(int handle, const char* fn);
  /// The slot of an allocated array; gaea::error otherwise.
  array_slot& allocated(int handle, const char* fn);
  /// Null when `handle` names no slot.
  array_slot* find(int handle) noexcept;
  /// Frees the slot (destroying its array: collective when allocated).
  void erase(int handle);
  /// Destroys every array, newest first (collective: GA_Terminate).
  void clear();
  /// Live allocated arrays, oldest first.
  std::vector<array_slot*> live();

 private:
  std::vector<std::unique_ptr<array_slot>> slots_;
};

/// The layer's state while GA is initialized.
struct state {
  gaea::runtime* rt = nullptr;
  std::unique_ptr<gaea::runtime> owned_rt;  // when GA_Initialize started the runtime
  registry arrays;
  std::size_t memory_limit = 0;                        // bytes per process; 0: unlimited
  std::vector<std::size_t> memory_used;                // bytes per rank charged by live arrays
  std::vector<std::function<void()>> terminate_hooks;  // run newest first by GA_Terminate
  int default_pgroup = world_pgroup;                   // GA_Pgroup_set_default
  int debug = 0;
  int mask_sync_first = 1, mask_sync_last = 1;  // GA_Mask_sync (recorded; syncs stay on)
};

/// The live state; gaea::error("<fn>: GA is not initialized ...") before GA_Initialize.
state& current(const char* fn);
/// Null before GA_Initialize / after GA_Terminate.
state* current_or_null() noexcept;
/// Starts the layer (GA_Initialize*): starts the runtime unless one is live, on `comm`'s ranks
/// (GA_Initialize_comm; a live runtime must then be on the world communicator).
void initialize(int* argc, char*** argv, std::size_t limit, MPI_Comm comm = MPI_COMM_WORLD);
/// Ends the layer (GA_Terminate): hooks, arrays, then the runtime it started.
void terminate();
/// The coll::group of process-group handle `p_handle` (world_pgroup: coll::world());
/// gaea::error for an unknown handle.
const coll::group& group_of(int p_handle, const char* fn);
/// The default group (GA_Pgroup_set_default): the one GA_Nodeid, GA_Nnodes, GA_Sync and array
/// creation use, as in GA.
const coll::group& default_group(const char* fn);

/// Registers a clean-up for GA_Terminate (e.g. mutexes, process groups, non-blocking handles).
void add_terminate_hook(std::function<void()> hook);

/// gaea::error unless `a` and `b` hold the same element type (names both arrays and types).
void check_same_type(const array_slot& a, const array_slot& b, const char* fn_name);

/// Ends the whole job with `message` (every rank stops; never returns). Before GA_Initialize,
/// prints and aborts MPI (or exits when MPI is not running).
[[noreturn]] void fail(const std::string& message, int exit_code = 1) noexcept;

/// Runs `body` for C entry point `fn`: any exception ends the job with "<fn>: <what>".
/// Every extern "C" function of the layer is written as `return api("NAME", [&] { ... });`.
/// Calls fn(global_array<T>&) with the array of an allocated slot.
template <class Fn>
decltype(auto) with_slot_array(array_slot& s, const char* fn_name, Fn&& fn) {
  if (s.type >= first_registered_type) check_opaque_use(s.type, fn_name);
  return visit_type(s.type, fn_name, [&](auto tag) -> decltype(auto) {
    using T = typename decltype(tag)::type;
    return fn(std::get<ga::global_array<T>>(s.array));
  });
}

/// Calls fn(global_array<T>&) with the allocated array of `handle`; gaea::error naming `fn_name`
/// for an unknown handle or an unallocated array.
template <class Fn>
decltype(auto) with_array(int handle, const char* fn_name, Fn&& fn) {
  return with_slot_array(current(fn_name).arrays.allocated(handle, fn_name), fn_name,
                         std::forward<Fn>(fn));
}

/// Like with_array for several handles that must hold the same element type (gaea::error
/// naming the handles and both types otherwise): fn(a, b, ...).
template <class Fn, class... Handles>
decltype(auto) with_arrays(const char* fn_name, Fn&& fn, int first, Handles... rest) {
  state& st = current(fn_name);
  array_slot& s0 = st.arrays.allocated(first, fn_name);
  (check_same_type(s0, st.arrays.allocated(rest, fn_name), fn_name), ...);
  if (s0.type >= first_registered_type) check_opaque_use(s0.type, fn_name);
  return visit_type(s0.type, fn_name, [&](auto tag) -> decltype(auto) {
    using T = typename decltype(tag)::type;
    return fn(std::get<ga::global_array<T>>(s0.array),
              std::get<ga::global_array<T>>(st.arrays.allocated(rest, fn_name).array)...);
  });
}

/// "<fn>: <what>", or `what` alone when it already starts with "<fn>: " (most of the layer's
/// messages name their call).
inline std::string named_message(const char* fn, const char* what) {
  const std::string prefix = std::string(fn) + ": ";
  const std::string_view w(what);
  return w.starts_with(prefix) ? std::string(w) : prefix + std::string(w);
}

template <class Body>
auto api(const char* fn, Body&& body) noexcept -> decltype(body()) {
  // A long wait inside names the call ("GA_Sync: gaea::runtime::barrier number 3").
  const progress::scoped_wait_label label([fn] { return std::string(fn); });
  try {
    return body();
  } catch (const std::exception& e) {
    fail(named_message(fn, e.what()));
  } catch (...) {
    fail(std::string(fn) + ": an exception of unknown type");
  }
}

}  // namespace gaea::ga_compat::detail
