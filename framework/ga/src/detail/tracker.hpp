#pragma once
// Conflict tracking (location consistency at array granularity): one status per (target, array)
// with writes since the last fence, for the calling thread, so that a get waits only for earlier
// writes to the same array on the same target. Per thread because each thread issues through its
// own transport worker. Only written targets have an entry, and a fence drops them: the tracker
// holds O(targets written since the last fence), not a row of P per array (docs/scaling.md G1).

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "gaea/comm/completion.hpp"

namespace gaea::ga::detail {

struct target_status {
  bool dirty = false;     // puts or accumulates issued since the last fence
  bool puts = false;      // ... of which puts through UCX (need a transport flush)
  comm::completion accs;  // remote completions of the accumulates and packed puts
};

class tracker {
 public:
  /// The calling thread's tracker for the live runtime (reset when the runtime changes).
  static tracker& mine(std::uint64_t runtime_instance, int nranks);

  /// The status of (array, target), made if absent: for a write about to be issued. Its address
  /// (and that of its completion) is stable until clean() or forget().
  target_status& status(std::uint64_t array, int target);
  /// The status of (array, target), or null when nothing was written there since its last fence.
  target_status* find(std::uint64_t array, int target);
  /// Marks (array, target) written; keeps the per-target count of dirty arrays.
  void mark(std::uint64_t array, int target, bool ucx_put);
  /// Marks (array, target) clean after a fence (its completion has finished) and drops it.
  void clean(std::uint64_t array, int target);
  /// The targets of `array` with an entry (written since their last fence).
  std::vector<int> targets(std::uint64_t array) const;
  /// Number of arrays with unfenced writes to `target`.
  int dirty_arrays(int target) const { return dirty_per_target_[static_cast<std::size_t>(target)]; }
  void forget(std::uint64_t array);
  /// Diagnostics: the (array, target) entries held, over all arrays.
  std::size_t entries() const noexcept;

 private:
  std::uint64_t identity_ = 0;
  // Node-based maps: an entry never moves while it exists (remote completions point at it).
  std::unordered_map<std::uint64_t, std::unordered_map<int, target_status>> arrays_;
  std::vector<int> dirty_per_target_;  // 4 B per rank per thread (G3, kept)
};

}  // namespace gaea::ga::detail
