#pragma once
/// \file
/// gaea::ga::request — the handle of a non-blocking get, put or accumulate — and the ways to
/// complete many at once: wait_all(), test_all() and request_group; ghost_request, the handle of
/// a non-blocking ghost update.

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "gaea/base/detail/request_handle.hpp"
#include "gaea/base/nonblocking.hpp"

namespace gaea {
class runtime;
}

namespace gaea::ga {

namespace detail {
struct op_state;
class array_core;
}  // namespace detail

/// Handle of a non-blocking operation, returned by the `nonblocking` overloads of
/// global_array::get/put/acc. Any number may be outstanding (each owns its own state).
///
/// Completion (what wait() or a true test() guarantees):
///   - get: the data is in the caller's buffer;
///   - put, acc: the caller's buffer may be reused. The data is *remotely* complete only after
///     fence() or sync() on the array (or a later get of the same array from the same owner).
/// Thread safety: wait() and test() must be called by the thread that issued the operation
/// (its transport worker carries it); gaea::error otherwise.
/// Move-only, as every Gaea request (gaea/base/detail/request_handle.hpp): a default or moved-from
/// handle is empty (complete); the constructor from an operation is global_array's, not the
/// users'; move assignment waits for the operation held so far, then takes over the source's; the
/// destructor waits for an unfinished operation (errors are reported on stderr: a destructor
/// cannot throw).
class request : public gaea::detail::request_handle<request, detail::op_state> {
 public:
  using request_handle::request_handle;

  /// Blocks (by the progress mode) until the operation completes. Throws gaea::error if it
  /// failed, or if called from another thread than the one that issued it.
  void wait();
  /// One progress step; true when the operation has completed (then wait() returns at once).
  /// Throws like wait().
  using request_handle::test;
  /// True while an operation is held and not yet waited for.
  using request_handle::pending;

 private:
  friend request_handle;
  static constexpr const char* unwaited = "gaea: an unfinished request was destroyed and failed: ";
};

/// Waits for every request in `rs`, in order (each is then complete; empty ones count as
/// complete). If some fail, the others are still waited for, then the first error is thrown.
/// Same thread rule as request::wait(): the thread that issued them.
void wait_all(std::span<request> rs);
/// One progress step for each pending request of `rs`; true when all are complete (then
/// wait_all() returns at once). Throws the first failure (the failed request counts as
/// complete). Never blocks.
bool test_all(std::span<request> rs);

/// Owns any number of requests and completes them together (e.g. all the gets of one step, or
/// GA's aggregate non-blocking handles). Not copyable; movable. The destructor waits like
/// request's destructor. Thread safety: one thread (the one that issued the requests).
class request_group {
 public:
  request_group() = default;
  /// Takes over the requests of the source, which is left empty.
  request_group(request_group&&) noexcept = default;
  /// Waits for the requests held so far, then takes over `o`'s.
  request_group& operator=(request_group&& o);
  ~request_group() = default;

  /// Takes over `r` (an empty request is dropped).
  void add(request r);
  /// Waits for every request (wait_all), then the group is empty.
  void wait();
  /// test_all() over the group; true (and the group is empty) when all are complete.
  bool test();
  /// Requests held that are not yet known to be complete.
  std::size_t size() const noexcept { return rs_.size(); }
  /// True when size() is 0.
  bool empty() const noexcept { return rs_.empty(); }

 private:
  std::vector<request> rs_;
};

/// Handle of a non-blocking ghost update, returned by global_array::update_ghosts_async(). While
/// it is pending, the array's ghost cells are being written and its interiors being read by the
/// other ranks: read only its interiors and write nothing in it before wait(). Other arrays may
/// be used, and other collectives called, as long as every rank calls them and wait() in the
/// same order.
///
/// wait() is collective: it completes this rank's ghost reads, then a barrier makes sure every
/// rank has finished reading before anyone changes an interior again. After it the ghosts hold
/// the neighbours' values and the handle is empty; waiting again (or waiting an empty handle)
/// does nothing. The destructor of a pending handle waits the same way (errors are reported on
/// stderr), so destroying it is collective too. Thread safety: wait() and test() from the
/// thread that started the update, which must be the runtime's thread (the barrier's rule).
/// Move-only.
class ghost_request {
 public:
  /// An empty handle (already complete).
  ghost_request() noexcept = default;
  /// Takes over the update of `o` (not collective), which is left empty.
  ghost_request(ghost_request&& o) noexcept;
  /// Waits for the update held so far (collective), then takes over `o`'s.
  ghost_request& operator=(ghost_request&& o);
  ~ghost_request();

  /// Collective: completes the update (see the class comment). Throws gaea::error if a read
  /// failed (after the barrier, so no rank is left waiting in it).
  void wait();
  /// Not collective, never blocks: one progress step; true when this rank's ghost cells are
  /// all written (they may be read now). wait() is still required to finish the update.
  bool test();
  /// True until wait() (or the destructor) has completed the update.
  bool pending() const noexcept { return static_cast<bool>(barrier_); }

 private:
  friend class detail::array_core;
  ghost_request(request gets, std::function<void()> barrier) noexcept
      : gets_(std::move(gets)), barrier_(std::move(barrier)) {}
  request gets_;
  std::function<void()> barrier_;  // the array group's barrier, set while it is owed
};

/// The non-blocking tag (gaea/base/nonblocking.hpp): `ga::nonblocking` is `gaea::nonblocking`.
using gaea::nonblocking;
using gaea::nonblocking_t;

}  // namespace gaea::ga
