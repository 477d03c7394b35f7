#pragma once
/// \file
/// gaea::coll::request — the handle of a non-blocking collective.

#include <span>

#include "gaea/base/detail/request_handle.hpp"
#include "gaea/base/nonblocking.hpp"

namespace gaea::coll {

namespace detail {
class execution;
}

/// Handle of a collective started with `coll::nonblocking`. The collective advances only while
/// its starting thread is inside test(), wait() or another Gaea collective wait (as MPI's
/// non-blocking collectives without an asynchronous engine); buffers passed to the call must
/// stay untouched until it completes. Several may be outstanding, on one group or several.
/// Move-only, as every Gaea request (gaea/base/detail/request_handle.hpp): a default or moved-from
/// handle is empty (complete); the constructor from a started collective is collectives.hpp's;
/// move assignment waits for the collective held so far, then takes over the source's; the
/// destructor waits for an unfinished collective (errors go to stderr: it cannot throw).
/// Thread safety: test()/wait() from the thread that started it (gaea::error otherwise).
class request : public gaea::detail::request_handle<request, detail::execution> {
 public:
  using request_handle::request_handle;

  /// Blocks (by the progress mode) until the collective completes on this rank. Throws
  /// gaea::error when it failed here or on a member that reported it (mismatched arguments,
  /// a member's error), with the message of the rank that found it.
  void wait();
  /// Advances without blocking; true when complete (then wait() returns at once).
  bool test();
  /// True while a collective is held and not yet waited for.
  using request_handle::pending;

 private:
  friend request_handle;
  static constexpr const char* unwaited =
      "gaea::coll: a collective request destroyed unwaited failed: ";
};

/// Waits for every request in `rs` (each is then empty). Throws the first error after all
/// have finished.
void wait_all(std::span<request> rs);

/// The non-blocking tag (gaea/base/nonblocking.hpp): `coll::nonblocking` is `gaea::nonblocking`.
using gaea::nonblocking;
using gaea::nonblocking_t;

}  // namespace gaea::coll
