// ga::detail::tracker: per-thread (target, array) write tracking so a get waits only for
// earlier writes to the same array on the same target.

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
  return arrays_[array][target];
}

target_status* tracker::find(std::uint64_t array, int target) {
  if (dirty_per_target_[static_cast<std::size_t>(target)] == 0) return nullptr;  // no lookups
  const auto a = arrays_.find(array);
  if (a == arrays_.end()) return nullptr;
  const auto t = a->second.find(target);
  return t == a->second.end() ? nullptr : &t->second;
}

void tracker::mark(std::uint64_t array, int target, bool ucx_put) {
  target_status& s = status(array, target);
  if (!s.dirty) ++dirty_per_target_[static_cast<std::size_t>(target)];
  s.dirty = true;
  s.puts = s.puts || ucx_put;
}

void tracker::clean(std::uint64_t array, int target) {
  const auto a = arrays_.find(array);
  if (a == arrays_.end()) return;
  const auto t = a->second.find(target);
  if (t == a->second.end()) return;
  if (t->second.dirty) --dirty_per_target_[static_cast<std::size_t>(target)];
  a->second.erase(t);
  if (a->second.empty()) arrays_.erase(a);
}

std::vector<int> tracker::targets(std::uint64_t array) const {
  std::vector<int> out;
  const auto a = arrays_.find(array);
  if (a == arrays_.end()) return out;
  out.reserve(a->second.size());
  for (const auto& [target, s] : a->second)
    out.push_back(target);
  return out;
}

void tracker::forget(std::uint64_t array) {
  const auto a = arrays_.find(array);
  if (a == arrays_.end()) return;
  for (const auto& [target, s] : a->second)
    if (s.dirty) --dirty_per_target_[static_cast<std::size_t>(target)];
  arrays_.erase(a);
}

std::size_t tracker::entries() const noexcept {
  std::size_t n = 0;
  for (const auto& [array, row] : arrays_)
    n += row.size();
  return n;
}

}  // namespace gaea::ga::detail
