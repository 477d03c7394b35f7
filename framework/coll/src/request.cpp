// gaea::coll::request: the handle of a non-blocking collective, its wait, test and wait_all.

#include "gaea/coll/request.hpp"

#include <cstdio>
#include <exception>

#include "detail/execution.hpp"
#include "gaea/base/detail/wait_each.hpp"

namespace gaea::coll {

request::request() noexcept = default;
request::request(std::unique_ptr<detail::execution> e) noexcept : ex_(std::move(e)) {}
request::request(request&&) noexcept = default;

request& request::operator=(request&& o) {
  if (this != &o) {
    if (pending()) wait();
    ex_ = std::move(o.ex_);
  }
  return *this;
}

request::~request() {
  if (!pending()) return;
  try {
    ex_->wait();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gaea::coll: a collective request destroyed unwaited failed: %s\n",
                 e.what());
  }
}

void request::wait() {
  if (!ex_) return;
  auto ex = std::move(ex_);
  ex->wait();
}

bool request::test() {
  if (!ex_) return true;
  if (!ex_->test()) return false;
  ex_.reset();
  return true;
}

bool request::pending() const noexcept {
  return ex_ && !ex_->done();
}

void wait_all(std::span<request> rs) {
  gaea::detail::wait_each(rs);
}

}  // namespace gaea::coll
