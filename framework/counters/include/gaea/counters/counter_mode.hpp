#pragma once
/// \file
/// How a shared counter's operations are served (GAEA_COUNTER selects the default).

#include <optional>
#include <string_view>

#include "gaea/base/enum_names.hpp"

namespace gaea::counters {

/// Who executes a counter operation on the owner rank.
enum class counter_mode {
  atomic,    ///< UCX 64-bit atomics: CPU atomics on a node, NIC atomics on InfiniBand, emulated by
             ///< the owner's progress thread where the transport has no atomics (tcp)
  progress,  ///< an active message served by the owner's progress thread (or, with
             ///< GAEA_PROGRESS=off, by whichever of its threads is inside a Gaea wait)
  owner,     ///< served only when the owner's main thread calls into Gaea (counter calls, waits,
             ///< barrier, gaea::poll()): the baseline without asynchronous progress
};

/// The names of the modes (GAEA_COUNTER's choices).
inline constexpr enum_name<counter_mode> counter_mode_names[] = {
    {counter_mode::atomic, "atomic"},
    {counter_mode::progress, "progress"},
    {counter_mode::owner, "owner"}};
/// Name table of counter_mode for gaea::to_string and gaea::parse.
constexpr enum_names<counter_mode> enum_names_of(counter_mode) noexcept {
  return {"counter mode", counter_mode_names};
}
/// "atomic", "progress" or "owner".
constexpr std::string_view to_string(counter_mode m) noexcept {
  return gaea::to_string<counter_mode>(m);
}
/// Parses "atomic|progress|owner"; nullopt otherwise.
constexpr std::optional<counter_mode> parse_counter_mode(std::string_view text) noexcept {
  return gaea::try_parse<counter_mode>(text);
}
/// The mode named by GAEA_COUNTER (default atomic). Throws gaea::error for an unknown name.
counter_mode default_counter_mode();

}  // namespace gaea::counters
