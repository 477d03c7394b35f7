#pragma once
/// \file
/// gaea::nonblocking — the one tag that selects the non-blocking overload of an operation
/// everywhere in Gaea (global arrays, collectives, counters). The modules re-export it as
/// `ga::nonblocking`, `coll::nonblocking` and `counters::nonblocking`; all are this tag.

namespace gaea {

/// Tag type of the non-blocking overloads: `auto r = a.get(p, buf, gaea::nonblocking);`.
/// Explicit default constructor, so `{}` never selects a non-blocking overload by accident.
struct nonblocking_t {
  explicit constexpr nonblocking_t() = default;
};
/// The tag value passed to select a call's nonblocking overload.
inline constexpr nonblocking_t nonblocking{};

}  // namespace gaea
