#include "detail/tracker.hpp"

namespace gaea::ga::detail {

tracker& tracker::mine(std::uint64_t runtime_identity, int nranks) {
  thread_local tracker t;
  if (t.identity_ != runtime_identity) {
    t.arrays_.clear();
    t.dirty_per_target_.assign(static_cast<std::size_t>(nranks), 0);
    t.identity_ = runtime_identity;
  }
  return t;
}

target_status& tracker::status(std::uint64_t array, int target) {
  auto& v = arrays_[array];
  if (v.empty()) v.resize(dirty_per_target_.size());
  return v[static_cast<std::size_t>(target)];
}

void tracker::mark(std::uint64_t array, int target, bool ucx_put) {
  target_status& s = status(array, target);
  if (!s.dirty) ++dirty_per_target_[static_cast<std::size_t>(target)];
  s.dirty = true;
  s.puts = s.puts || ucx_put;
}

void tracker::clean(std::uint64_t array, int target) {
  target_status& s = status(array, target);
  if (s.dirty) --dirty_per_target_[static_cast<std::size_t>(target)];
  s.dirty = false;
  s.puts = false;
}

void tracker::forget(std::uint64_t array) {
  auto it = arrays_.find(array);
  if (it == arrays_.end()) return;
  for (std::size_t t = 0; t < it->second.size(); ++t)
    if (it->second[t].dirty) --dirty_per_target_[t];
  arrays_.erase(it);
}

}  // namespace gaea::ga::detail
