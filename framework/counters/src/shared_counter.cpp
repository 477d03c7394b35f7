#include "gaea/counters/shared_counter.hpp"

#include <cstring>
#include <iostream>

#include "gaea/comm/segment.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea {

shared_counter::shared_counter(std::string name, int owner, std::int64_t initial)
    : name_(std::move(name)), owner_(owner), rt_(&runtime::current()) {
  if (owner < 0 || owner >= rt_->size())
    throw Error("shared_counter '" + name_ + "': owner rank " + std::to_string(owner) +
                " is not in [0, " + std::to_string(rt_->size()) + ")");
  // Only the owner holds the 8 bytes; the others contribute an empty part.
  seg_ =
      std::make_unique<comm::segment>(rt_->comm(), rt_->rank() == owner ? sizeof(std::int64_t) : 0,
                                      "shared_counter '" + name_ + "'");
  if (rt_->rank() == owner) std::memcpy(seg_->local_base(), &initial, sizeof initial);
  rt_->barrier();
}

shared_counter::~shared_counter() {
  if (!seg_) return;  // moved from
  try {
    rt_->barrier();
  } catch (const std::exception& e) {
    std::cerr << "gaea: destroying shared_counter '" << name_ << "': " << e.what() << std::endl;
  }
}

shared_counter::shared_counter(shared_counter&&) noexcept = default;
shared_counter& shared_counter::operator=(shared_counter&&) noexcept = default;

std::int64_t shared_counter::fetch_add(std::int64_t n) {
  if (!seg_) throw Error("shared_counter '" + name_ + "': used after it was moved from");
  if (n < 0)
    throw Error("shared_counter '" + name_ + "': fetch_add(" + std::to_string(n) +
                ") — the increment must be >= 0");
  std::int64_t old = 0;
  comm::completion done;
  rt_->worker().fetch_add(owner_, *seg_, 0, n, &old, done);
  rt_->wait(done);
  return old;
}

std::int64_t shared_counter::compare_swap(std::int64_t expected, std::int64_t desired) {
  if (!seg_) throw Error("shared_counter '" + name_ + "': used after it was moved from");
  std::int64_t old = 0;
  comm::completion done;
  rt_->worker().compare_swap(owner_, *seg_, 0, expected, desired, &old, done);
  rt_->wait(done);
  return old;
}

std::int64_t shared_counter::read() {
  return fetch_add(0);
}

}  // namespace gaea
