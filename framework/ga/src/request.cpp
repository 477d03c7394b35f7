// gaea::ga::request, wait_all, test_all, request_group and ghost_request, on op_state.

#include "gaea/ga/request.hpp"

#include <exception>
#include <utility>

#include "detail/op_state.hpp"
#include "detail/stats_counters.hpp"
#include "gaea/base/detail/destructor_call.hpp"
#include "gaea/base/detail/wait_each.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"
#include "gaea/trace/recorder.hpp"

namespace gaea::ga {

namespace detail {

op_state::op_state(runtime& r, op k)
    : rt(r), w(r.worker()), owner(std::this_thread::get_id()), kind(k), t0(op_clock()) {}

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
  if (!rt.progress().test(w, done)) return false;
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
  record(kind, bytes, op_clock() - t0);
}

}  // namespace detail

void request::wait() {
  if (pending()) {
    const trace::scoped_region region("ga.wait");
    state()->wait();
  }
}

void wait_all(std::span<request> rs) {
  gaea::detail::wait_each(rs);
}

bool test_all(std::span<request> rs) {
  // Every request gets its step (each polls the same worker only while it is still pending),
  // so a late request does not wait for an earlier one to be tested again.
  bool all = true;
  std::exception_ptr first;
  for (request& r : rs) {
    try {
      all = r.test() && all;
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
  return all;
}

request_group& request_group::operator=(request_group&& o) {
  if (this != &o) {
    wait();
    rs_ = std::move(o.rs_);
  }
  return *this;
}

void request_group::add(request r) {
  if (r.pending()) rs_.push_back(std::move(r));
}

void request_group::wait() {
  std::vector<request> rs = std::move(rs_);
  rs_.clear();
  wait_all(rs);
}

bool request_group::test() {
  // Complete requests leave the group; a failed one leaves it too, and its error is thrown.
  std::exception_ptr first;
  std::size_t kept = 0;
  for (request& r : rs_) {
    bool done = true;
    try {
      done = r.test();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
    if (!done) rs_[kept++] = std::move(r);
  }
  rs_.resize(kept);
  if (first) std::rethrow_exception(first);
  return rs_.empty();
}

ghost_request::ghost_request(ghost_request&& o) noexcept
    : gets_(std::move(o.gets_)), barrier_(std::exchange(o.barrier_, nullptr)) {}

ghost_request& ghost_request::operator=(ghost_request&& o) {
  if (this != &o) {
    wait();
    gets_ = std::move(o.gets_);
    barrier_ = std::exchange(o.barrier_, nullptr);
  }
  return *this;
}

ghost_request::~ghost_request() {
  if (barrier_)
    gaea::detail::destructor_call("gaea: an unfinished ghost update was destroyed and failed: ",
                                  [this] { wait(); });
}

void ghost_request::wait() {
  if (!barrier_) return;
  const std::function<void()> barrier = std::exchange(barrier_, nullptr);  // empty from here on

  std::exception_ptr failed;
  try {
    gets_.wait();
  } catch (...) {
    failed = std::current_exception();
  }
  barrier();  // nobody changes an interior before every rank has read its ghosts
  if (failed) std::rethrow_exception(failed);
}

bool ghost_request::test() {
  return gets_.test();
}

}  // namespace gaea::ga
