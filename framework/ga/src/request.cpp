#include "gaea/ga/request.hpp"

#include <iostream>

#include "detail/op_state.hpp"
#include "detail/stats_counters.hpp"
#include "gaea/progress/clock.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga {

namespace detail {

op_state::op_state(runtime& r, op k)
    : rt(r),
      w(r.worker()),
      owner(std::this_thread::get_id()),
      kind(k),
      t0_ns(progress::monotonic_ns()) {}

void op_state::check_thread(const char* what) const {
  if (std::this_thread::get_id() != owner)
    throw error(std::string("gaea::ga::request: ") + what +
                " called from a thread other than the one that issued the " +
                std::string(to_string(kind)) + " (its transport worker carries the operation)");
}

void op_state::wait() {
  if (completed) return;
  check_thread("wait()");
  rt.progress().wait(w, done);
  finish();
}

bool op_state::test() {
  if (completed) return true;
  check_thread("test()");
  if (!done.done()) rt.progress().poll(w);
  if (!done.done()) return false;
  finish();
  return true;
}

void op_state::finish() {
  completed = true;
  done.check();
  for (auto& f : finishers)
    f();
  finishers.clear();
  buffers.clear();
  record(kind, bytes, static_cast<std::uint64_t>(progress::monotonic_ns() - t0_ns));
}

}  // namespace detail

request::request() noexcept = default;
request::request(std::unique_ptr<detail::op_state> s) noexcept : st_(std::move(s)) {}
request::request(request&&) noexcept = default;

request& request::operator=(request&& o) {
  if (this != &o) {
    wait();
    st_ = std::move(o.st_);
  }
  return *this;
}

request::~request() {
  if (!st_ || st_->completed) return;
  try {
    st_->wait();
  } catch (const std::exception& e) {
    std::cerr << "gaea: an unfinished request was destroyed and failed: " << e.what() << std::endl;
  }
}

void request::wait() {
  if (st_) st_->wait();
}

bool request::test() {
  return !st_ || st_->test();
}

bool request::pending() const noexcept {
  return st_ && !st_->completed;
}

}  // namespace gaea::ga
