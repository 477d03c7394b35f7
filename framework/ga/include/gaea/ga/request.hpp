#pragma once
/// \file
/// gaea::ga::request — the handle of a non-blocking get, put or accumulate — and the ways to
/// complete many at once: wait_all(), test_all() and request_group.

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "gaea/base/nonblocking.hpp"

namespace gaea::ga {

namespace detail {
struct op_state;
}

/// Handle of a non-blocking operation, returned by the `nonblocking` overloads of
/// global_array::get/put/acc. Any number may be outstanding (each owns its own state).
///
/// Completion (what wait() or a true test() guarantees):
///   - get: the data is in the caller's buffer;
///   - put, acc: the caller's buffer may be reused. The data is *remotely* complete only after
///     fence() or sync() on the array (or a later get of the same array from the same owner).
/// Thread safety: wait() and test() must be called by the thread that issued the operation
/// (its transport worker carries it); gaea::error otherwise. Move-only.
class request {
 public:
  /// An empty handle (already complete).
  request() noexcept;
  explicit request(std::unique_ptr<detail::op_state> s) noexcept;
  request(request&&) noexcept;
  /// Waits for the operation held so far, then takes over `o`'s.
  request& operator=(request&& o);
  /// Waits for an unfinished operation (errors are reported on stderr: a destructor cannot throw).
  ~request();

  /// Blocks (by the progress mode) until the operation completes. Throws gaea::error if it
  /// failed, or if called from another thread than the one that issued it.
  void wait();
  /// One progress step; true when the operation has completed (then wait() returns at once).
  /// Throws like wait().
  bool test();
  /// True while an operation is held and not yet waited for.
  bool pending() const noexcept;

 private:
  std::unique_ptr<detail::op_state> st_;
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
  bool empty() const noexcept { return rs_.empty(); }

 private:
  std::vector<request> rs_;
};

/// The non-blocking tag (gaea/base/nonblocking.hpp): `ga::nonblocking` is `gaea::nonblocking`.
using gaea::nonblocking;
using gaea::nonblocking_t;

}  // namespace gaea::ga
