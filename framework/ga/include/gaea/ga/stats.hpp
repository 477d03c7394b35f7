#pragma once
/// \file
/// Process-wide counters of the global-array layer.

#include <cstdint>

namespace gaea::ga {

/// Snapshot of the counters (all ranks keep their own).
struct stats {
  std::uint64_t gets = 0, puts = 0, accs = 0;
  std::uint64_t bytes_get = 0, bytes_put = 0, bytes_acc = 0;
  /// Fences a get needed (earlier writes to the same array on the same target).
  std::uint64_t flushes_issued = 0;
  /// Gets that went ahead although the target had pending writes — to *other* arrays — which a
  /// per-target (rather than per-array) tracker would have flushed.
  std::uint64_t flushes_avoided = 0;
  /// Accumulates applied by this rank on behalf of others (by its progress thread when on).
  std::uint64_t accs_served = 0;
};

/// Current counters of this rank. Thread-safe.
stats current_stats();

}  // namespace gaea::ga
