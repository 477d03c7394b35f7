#pragma once
/// \file
/// gaea::ga::request — the handle of a non-blocking get, put or accumulate.

#include <memory>

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

/// Tag that selects the non-blocking overloads: `auto r = a.get(p, buf, ga::nonblocking);`.
struct nonblocking_t {
  explicit constexpr nonblocking_t() = default;
};
inline constexpr nonblocking_t nonblocking{};

}  // namespace gaea::ga
