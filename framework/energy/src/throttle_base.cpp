// throttle_base: the levels, checks, restore, transition log and CPU time by level that every
// throttle backend shares.

#include "detail/throttle_base.hpp"

#include "detail/fd_io.hpp"
#include "gaea/base/error.hpp"

namespace gaea::energy::detail {

void check_level(std::string_view who, int cpu, int level) {
  if (level >= 0 && level < throttle_levels) return;
  const std::string call =
      cpu < 0 ? "set_all(level " + std::to_string(level)
              : "set_level(cpu " + std::to_string(cpu) + ", level " + std::to_string(level);
  throw error("throttle '" + std::string(who) + "': " + call +
              "): the level must be 0..7 (T0..T7)");
}

throttle_base::throttle_base(std::vector<int> cpus, std::vector<int> original_levels,
                             std::size_t capacity)
    : slots_(std::move(cpus)),
      levels_(std::make_unique<std::atomic<int>[]>(slots_.size())),
      original_levels_(std::move(original_levels)),
      log_(capacity) {
  original_levels_.resize(slots_.size(), 0);
  for (std::size_t s = 0; s < slots_.size(); ++s)
    levels_[s].store(original_levels_[s], std::memory_order_relaxed);
  if (!slots_.cpus().empty()) since_cpu_ns_ = process_cpu_ns();
}

bool throttle_base::set_level(int cpu, int level) {
  check_level(name(), cpu, level);
  const int s = slots_.slot_of(cpu);
  if (s < 0) return false;
  const auto slot = static_cast<std::size_t>(s);
  // The common case in a collective: already there. No lock, no write, no transition.
  if (levels_[slot].load(std::memory_order_acquire) == level) return true;
  std::lock_guard lock(mutex_);
  const int from = levels_[slot].load(std::memory_order_relaxed);
  if (from == level) return true;
  if (!writable()) return false;
  const std::int64_t t0 = now_ns();
  if (!write_level(slot, level)) return false;
  const std::int64_t t1 = now_ns();
  account_locked(by_level_, since_cpu_ns_, process_cpu_ns());
  levels_[slot].store(level, std::memory_order_release);
  log_.record(throttle_transition{t0, cpu, from, level, t1 - t0}, t1 - t0);
  return true;
}

void throttle_base::assume_level(int cpu, int level) noexcept {
  const int s = slots_.slot_of(cpu);
  if (s < 0 || level < 0 || level >= throttle_levels) return;
  const auto slot = static_cast<std::size_t>(s);
  if (levels_[slot].load(std::memory_order_acquire) == level) return;
  try {
    std::lock_guard lock(mutex_);
    account_locked(by_level_, since_cpu_ns_, process_cpu_ns());
    levels_[slot].store(level, std::memory_order_release);
  } catch (...) {  // locking a valid mutex does not fail
  }
}

int throttle_base::level(int cpu) const noexcept {
  const int s = slots_.slot_of(cpu);
  return s < 0 ? 0 : levels_[static_cast<std::size_t>(s)].load(std::memory_order_acquire);
}

void throttle_base::restore() noexcept {
  std::unique_lock lock(mutex_, std::defer_lock);
  try {
    lock.lock();
  } catch (...) {  // cannot happen with a valid mutex; write the originals regardless
    write_originals();
    return;
  }
  const std::int64_t t0 = now_ns();
  const std::int64_t took = write_originals();
  std::size_t changed = 0;
  for (std::size_t s = 0; s < slots_.size(); ++s)
    changed += levels_[s].load(std::memory_order_relaxed) != original_levels_[s];
  if (changed == 0) return;
  account_locked(by_level_, since_cpu_ns_, process_cpu_ns());
  const std::int64_t each = took / static_cast<std::int64_t>(changed);
  for (std::size_t s = 0; s < slots_.size(); ++s) {
    const int from = levels_[s].load(std::memory_order_relaxed);
    if (from == original_levels_[s]) continue;
    levels_[s].store(original_levels_[s], std::memory_order_release);
    try {
      log_.record(throttle_transition{t0, slots_.cpus()[s], from, original_levels_[s], each}, each);
    } catch (...) {  // the log could not grow: the level is restored all the same
    }
  }
}

std::vector<throttle_transition> throttle_base::transitions() const {
  std::lock_guard lock(mutex_);
  return log_.entries();
}

level_times throttle_base::cpu_ns_by_level() const {
  std::lock_guard lock(mutex_);
  level_times out = by_level_;
  if (slots_.size() == 0) return out;
  std::int64_t since = since_cpu_ns_;
  account_locked(out, since, process_cpu_ns());  // the interval still open
  return out;
}

void throttle_base::account_locked(level_times& into, std::int64_t& since,
                                   std::int64_t now) const noexcept {
  const std::size_t n = slots_.size();
  if (n == 0 || now <= since) return;
  const std::int64_t delta = now - since;
  const auto share = delta / static_cast<std::int64_t>(n);
  for (std::size_t s = 0; s < n; ++s) {
    const auto j = static_cast<std::size_t>(levels_[s].load(std::memory_order_relaxed));
    into[j] += s == 0 ? delta - share * static_cast<std::int64_t>(n - 1) : share;
  }
  since = now;
}

}  // namespace gaea::energy::detail
