#pragma once
/// \file
/// gaea::coll::request — the handle of a non-blocking collective.

#include <memory>
#include <span>

#include "gaea/base/nonblocking.hpp"

namespace gaea::coll {

namespace detail {
class execution;
}

/// Handle of a collective started with `coll::nonblocking`. The collective advances only while
/// its starting thread is inside test(), wait() or another Gaea collective wait (as MPI's
/// non-blocking collectives without an asynchronous engine); buffers passed to the call must
/// stay untouched until it completes. Several may be outstanding, on one group or several.
/// Thread safety: test()/wait() from the thread that started it (gaea::error otherwise). Move-only.
class request {
 public:
  request() noexcept;  ///< empty (complete)
  /// Holds the started collective `e` (made by the start functions of collectives.hpp).
  explicit request(std::unique_ptr<detail::execution> e) noexcept;
  /// Takes over the collective of the source, which is left empty.
  request(request&&) noexcept;
  /// Waits for the collective held so far, then takes over `o`'s.
  request& operator=(request&& o);
  /// Waits for an unfinished collective; errors go to stderr (a destructor cannot throw).
  ~request();

  /// Blocks (by the progress mode) until the collective completes on this rank. Throws
  /// gaea::error when it failed here or on a member that reported it (mismatched arguments,
  /// a member's error), with the message of the rank that found it.
  void wait();
  /// Advances without blocking; true when complete (then wait() returns at once).
  bool test();
  /// True while a collective is held and not yet waited for.
  bool pending() const noexcept;

 private:
  std::unique_ptr<detail::execution> ex_;
};

/// Waits for every request in `rs` (each is then empty). Throws the first error after all
/// have finished.
void wait_all(std::span<request> rs);

/// The non-blocking tag (gaea/base/nonblocking.hpp): `coll::nonblocking` is `gaea::nonblocking`.
using gaea::nonblocking;
using gaea::nonblocking_t;

}  // namespace gaea::coll
