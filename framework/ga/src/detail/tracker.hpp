#pragma once
// Conflict tracking (location consistency at array granularity): one status per (target, array)
// for the calling thread, so that a get waits only for earlier writes to the same array on the
// same target. Per thread because each thread issues through its own transport worker.

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "gaea/comm/completion.hpp"

namespace gaea::ga::detail {

struct target_status {
  bool dirty = false;  // puts or accumulates issued since the last fence
  bool puts = false;   // ... of which puts through UCX (need a transport flush)
  std::unique_ptr<comm::completion> accs = std::make_unique<comm::completion>();
};

class tracker {
 public:
  /// The calling thread's tracker for the live runtime (reset when the runtime changes).
  static tracker& mine(std::uint64_t runtime_instance, int nranks);

  target_status& status(std::uint64_t array, int target);
  /// Marks (array, target) written; keeps the per-target count of dirty arrays.
  void mark(std::uint64_t array, int target, bool ucx_put);
  /// Marks (array, target) clean after a fence.
  void clean(std::uint64_t array, int target);
  /// Number of arrays with unfenced writes to `target`.
  int dirty_arrays(int target) const { return dirty_per_target_[static_cast<std::size_t>(target)]; }
  void forget(std::uint64_t array);

 private:
  std::uint64_t identity_ = 0;
  std::unordered_map<std::uint64_t, std::vector<target_status>> arrays_;
  std::vector<int> dirty_per_target_;
};

}  // namespace gaea::ga::detail
