#pragma once
/// \file
/// Internal (not API): the ownership, move and destruction rules shared by Gaea's request handles
/// (ga::request, coll::request, counters::fetch_request). Each module keeps its own wait() and
/// test() or not; the state it starts derives from request_state.

#include <memory>
#include <utility>

#include "gaea/base/detail/destructor_call.hpp"

namespace gaea::detail {

/// One started operation owned by a request handle (ga's op_state, coll's execution, counters'
/// fetch_state). Virtual so that the handle's inline members work where the state type is only
/// declared (the modules' public headers).
class request_state {
 public:
  virtual ~request_state() = default;
  /// True once the operation has finished and its result or failure has been seen.
  virtual bool request_finished() const noexcept = 0;
  /// Blocks (by the progress mode) until finished; throws the operation's failure.
  virtual void request_wait() = 0;
  /// One progress step, never blocking; true when finished. Throws like request_wait().
  virtual bool request_test() = 0;
};

/// The base of a request handle `Derived` whose operations are `State`s (a request_state):
///   - move-only; default-constructed or moved-from, it is empty (complete);
///   - move assignment first waits for the operation held so far with Derived::wait() (its errors
///     propagate), then takes over the source's;
///   - the destructor waits for an unfinished operation; a failure, which a destructor cannot
///     throw, is printed on stderr after `Derived::unwaited` (destructor_call).
/// Derived befriends this base for `unwaited`. Thread safety: the handle's own rules.
template <class Derived, class State>
class request_handle {
 public:
  request_handle() noexcept = default;
  /// Holds the started operation `s` (made by the module, where State is complete).
  explicit request_handle(std::unique_ptr<State> s) noexcept : st_(std::move(s)) {}
  /// Takes over the operation of the source, which is left empty.
  request_handle(request_handle&&) noexcept = default;
  /// Waits for the operation held so far (Derived::wait()), then takes over `o`'s.
  request_handle& operator=(request_handle&& o) {
    if (this != &o) {
      if (pending()) static_cast<Derived&>(*this).wait();
      st_ = std::move(o.st_);
    }
    return *this;
  }
  /// Waits for an unfinished operation (errors go to stderr: a destructor cannot throw).
  ~request_handle() {
    if (pending()) destructor_call(Derived::unwaited, [this] { st_->request_wait(); });
  }

  /// True while an operation is held and not yet finished.
  bool pending() const noexcept { return st_ && !st_->request_finished(); }
  /// One progress step, never blocking; true when the operation has finished or none is held
  /// (then wait() returns at once). Throws like wait().
  bool test() { return !st_ || st_->request_test(); }

 protected:
  /// The operation held, or nullptr when empty (in the module's sources, where State is complete).
  State* state() const noexcept { return static_cast<State*>(st_.get()); }
  /// Gives up the operation held (the handle is empty afterwards).
  std::unique_ptr<request_state> release() noexcept { return std::move(st_); }

 private:
  std::unique_ptr<request_state> st_;
};

}  // namespace gaea::detail
