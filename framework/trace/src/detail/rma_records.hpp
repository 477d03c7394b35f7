#pragma once
// Internal (not API): which recorded regions are one-sided operations, and the bookkeeping that
// turns one location's Enter/Leave stream into RMA issue and completion records (OTF2 RmaGet,
// RmaPut, RmaAtomic, RmaOpComplete*), so that trace viewers can show who accessed whom.
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gaea::trace::detail {

/// The RMA windows of a Gaea trace: the global arrays, and the shared counters.
enum class rma_window : std::uint8_t { arrays = 0, counters = 1 };
inline constexpr std::size_t rma_window_count = 2;

/// What an operation region does to its target.
enum class rma_kind : std::uint8_t { none, get, put, accumulate, fetch_add, compare_swap };

/// What a region means for RMA: an operation it issues (blocking: completed at its leave), or
/// the non-blocking operations of a window it completes at its leave (one: a request's wait,
/// the oldest pending; all: a fence or sync).
struct rma_region {
  rma_kind kind = rma_kind::none;
  rma_window window = rma_window::arrays;
  bool blocking = false;
  enum class completes : std::uint8_t { none, one, all } completion = completes::none;
};

/// The RMA meaning of a region name (ga.get, ga.nbput, counter.fetch_add, ga.wait, ...).
rma_region classify_rma(std::string_view region) noexcept;

/// One operation to record at a region's enter.
struct rma_issue {
  rma_kind kind;
  rma_window window;
  std::uint32_t remote;  ///< the target rank
  std::uint64_t bytes;
  std::uint64_t id;  ///< matching id, unique on the location
};

/// One completion to record at a region's leave.
struct rma_completion {
  rma_window window;
  std::uint64_t id;
};

/// One location's matching ids and pending non-blocking operations. Not thread-safe.
class rma_location {
 public:
  /// At the enter of region `index` (of this location's regions): the operation it issues, if
  /// it is one and names a target rank below `ranks`.
  std::optional<rma_issue> enter(std::size_t index, const rma_region& r, std::int32_t peer,
                                 std::int64_t bytes, std::size_t ranks);
  /// At the leave of region `index`: the operations it completes, oldest first.
  std::vector<rma_completion> leave(std::size_t index, const rma_region& r);

 private:
  std::uint64_t next_id_ = 0;
  std::unordered_map<std::size_t, rma_completion> blocking_;  // by region index, until its leave
  std::array<std::deque<std::uint64_t>, rma_window_count> pending_;
};

}  // namespace gaea::trace::detail
