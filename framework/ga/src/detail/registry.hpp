#pragma once
// Arrays of this rank by id, so that handlers (running on the progress thread) can find the
// target array. Entries live from after creation to before destruction, both collective and
// fenced by barriers, so a registered pointer is valid whenever a peer can use it.

#include <cstdint>

namespace gaea {
class runtime;
}

namespace gaea::ga::detail {

class array_core;

void register_array(std::uint64_t id, array_core* a);
void unregister_array(std::uint64_t id);
/// The array with `id`; throws gaea::error naming `source` if there is none.
array_core& find_array(std::uint64_t id, int source);
/// Installs the global-array active-message handlers on `rt` (once per runtime).
void install_handlers(runtime& rt);
/// Parts of install_handlers, one per file that owns handlers and their senders (called under
/// its lock).
void install_acc_handlers(runtime& rt);
void install_packed_handlers(runtime& rt);
void install_element_handlers(runtime& rt);
void install_cost_model_handlers(runtime& rt);
/// Registers the "global arrays" section of the GAEA_REPORT summary (stats_report.cpp).
void add_report_section(runtime& rt);
/// Reads GAEA_STRIDED and GAEA_ACC unless the program set the protocols first (throws
/// gaea::error for a bad value).
void init_protocols_from_env();

}  // namespace gaea::ga::detail
