#pragma once
/// \file
/// The one list of active-message handler ids (like a port registry): the range of each module,
/// the ids in use, and the range left to applications and benchmarks. comm knows the modules only
/// as named numbers here, never as code. A module registers its handlers with the constants
/// below; context::register_handler() throws gaea::error when an id is registered twice on one
/// context, naming the id and its holder from this table.
///
/// Adding a handler: take the next free id of your module's range, add a constant and a row in
/// `known_handlers` below. Applications, benchmarks and tests pick ids in [user_first, user_last].

#include <array>
#include <string_view>

#include "gaea/comm/types.hpp"

namespace gaea::comm::handler_ids {

/// A block of ids reserved for one owner.
struct id_range {
  /// First id of the block.
  handler_id first;
  /// Last id of the block (inclusive).
  handler_id last;
  /// Who registers handlers in the block (used in error messages).
  std::string_view owner;
};

/// Every range; ids outside them (72-127) are reserved for future modules.
inline constexpr std::array<id_range, 6> ranges{{
    {0, 15, "runtime"},
    {16, 31, "ga"},
    {32, 47, "counters"},
    {48, 63, "coll"},
    {64, 71, "comm"},
    {128, 255, "an application"},
}};

/// The range applications, benchmarks and tests register their handlers in.
inline constexpr handler_id user_first = 128;
/// Last id of the application range (inclusive).
inline constexpr handler_id user_last = 255;

// runtime (0-15)
inline constexpr handler_id runtime_barrier = 1;  ///< runtime::barrier()'s dissemination rounds
inline constexpr handler_id runtime_failure = 2;  ///< a rank's failure report to its peers
inline constexpr handler_id runtime_status = 3;   ///< "what are you waiting for?" (hang warning)
// ga (16-31)
inline constexpr handler_id ga_acc = 16;         ///< accumulate served by the target
inline constexpr handler_id ga_put_packed = 17;  ///< strided put as one packed message
inline constexpr handler_id ga_get_packed = 18;  ///< strided get as one packed reply
inline constexpr handler_id ga_elements = 19;    ///< scatter / gather / scatter-acc lists
inline constexpr handler_id ga_ping = 20;        ///< cost-model calibration
// counters (32-47)
inline constexpr handler_id counters_progress = 32;  ///< answered inside the handler
inline constexpr handler_id counters_owner = 33;     ///< deferred to the owner's main thread
inline constexpr handler_id counters_mutex = 34;     ///< mutex_set lock, try_lock and unlock
// coll (48-63)
inline constexpr handler_id coll_message = 48;  ///< every collective's point-to-point message
// comm (64-71)
/// put, get and atomics served by the owner of memory that could not be registered
inline constexpr handler_id comm_rma = 64;

/// One id in use, with the name an error message gives it.
struct known_handler {
  /// The handler id.
  handler_id id;
  /// Its name in error messages.
  std::string_view name;
};

/// Every id in use by the framework, with its name (looked up for error messages).
inline constexpr std::array<known_handler, 13> known_handlers{{
    {runtime_barrier, "runtime barrier"},
    {runtime_failure, "runtime failure report"},
    {runtime_status, "runtime status request"},
    {ga_acc, "ga accumulate"},
    {ga_put_packed, "ga packed put"},
    {ga_get_packed, "ga packed get"},
    {ga_elements, "ga element list"},
    {ga_ping, "ga cost-model ping"},
    {counters_progress, "counters progress-served request"},
    {counters_owner, "counters owner-served request"},
    {counters_mutex, "counters mutex request"},
    {coll_message, "coll message"},
    {comm_rma, "comm RMA fall-back"},
}};

/// Who holds `id`: the name of a known handler, else the owner of its range ("ga", "an
/// application"), else "a reserved range".
constexpr std::string_view holder_of(handler_id id) noexcept {
  for (const known_handler& k : known_handlers)
    if (k.id == id) return k.name;
  for (const id_range& r : ranges)
    if (id >= r.first && id <= r.last) return r.owner;
  return "a reserved range";
}

namespace detail {
constexpr bool table_is_consistent() {
  for (std::size_t i = 0; i < known_handlers.size(); ++i) {
    bool in_module_range = false;
    for (const id_range& r : ranges)
      in_module_range = in_module_range || (known_handlers[i].id >= r.first &&
                                            known_handlers[i].id <= r.last && r.first < user_first);
    if (!in_module_range) return false;
    for (std::size_t j = 0; j < i; ++j)
      if (known_handlers[j].id == known_handlers[i].id) return false;
  }
  return true;
}
}  // namespace detail
static_assert(detail::table_is_consistent(),
              "every known handler id is unique and inside a module's range");

}  // namespace gaea::comm::handler_ids
