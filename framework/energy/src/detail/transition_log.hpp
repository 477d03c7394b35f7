#pragma once
/// \file
/// A bounded log of transitions (DVFS or throttle) with the count of all of them and the cost
/// estimate every backend reports: the measured mean of the writes so far, else a probe or
/// configured value, never below a floor such as cpuinfo_transition_latency.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gaea::energy::detail {

/// Thread safety: record() and entries() are serialised by the owner (its mutex); count() and
/// cost_ns() may be read from any thread at any time.
template <class Entry>
class transition_log {
 public:
  /// `capacity`: entries kept; older ones are overwritten (and still counted).
  explicit transition_log(std::size_t capacity) : capacity_(capacity) {}

  /// Logs `e`, whose write took `cost_ns`, and counts that cost into the measured mean.
  void record(const Entry& e, std::int64_t cost_ns) {
    if (capacity_ > 0) {
      if (ring_.size() < capacity_) {
        ring_.push_back(e);
      } else {
        ring_[next_] = e;
        next_ = (next_ + 1) % capacity_;
      }
    }
    measured_sum_ns_.fetch_add(cost_ns, std::memory_order_relaxed);
    count_.fetch_add(1, std::memory_order_release);
  }

  /// The kept entries, oldest first.
  std::vector<Entry> entries() const {
    // Once full, the oldest sits where the next one will be written.
    std::vector<Entry> out;
    out.reserve(ring_.size());
    out.insert(out.end(), ring_.begin() + static_cast<std::ptrdiff_t>(next_), ring_.end());
    out.insert(out.end(), ring_.begin(), ring_.begin() + static_cast<std::ptrdiff_t>(next_));
    return out;
  }

  /// Every transition recorded, including the entries dropped from the ring.
  std::uint64_t count() const noexcept { return count_.load(std::memory_order_relaxed); }

  /// Mean measured cost, `before_writes_ns` before the first record; never below the floor.
  std::int64_t cost_ns() const noexcept {
    const std::uint64_t n = count_.load(std::memory_order_acquire);
    const std::int64_t sum = measured_sum_ns_.load(std::memory_order_relaxed);
    const std::int64_t mean = n ? sum / static_cast<std::int64_t>(n) : estimate_ns_;
    return std::max(mean, floor_ns_);
  }

  /// Cost reported before the first record, and the floor of every estimate. Call before the
  /// log is shared between threads.
  void set_cost_estimate(std::int64_t before_writes_ns, std::int64_t floor_ns) noexcept {
    estimate_ns_ = before_writes_ns;
    floor_ns_ = floor_ns;
  }

 private:
  std::size_t capacity_;
  std::vector<Entry> ring_;  // grows to capacity_, then overwritten oldest-first
  std::size_t next_ = 0;     // where the next entry goes once the ring is full
  std::atomic<std::uint64_t> count_{0};
  std::atomic<std::int64_t> measured_sum_ns_{0};
  std::int64_t estimate_ns_ = 0, floor_ns_ = 0;
};

}  // namespace gaea::energy::detail
