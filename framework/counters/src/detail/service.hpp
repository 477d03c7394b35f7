#pragma once
// The owner side of the progress- and owner-served counters: handler ids, the request on the
// wire, the registry of this rank's counter values, the queue of requests waiting for the main
// thread, and the module's figures for the GAEA_REPORT summary.

#include <atomic>
#include <cstdint>

#include "gaea/comm/handler_ids.hpp"
#include "gaea/comm/types.hpp"

namespace gaea {
class runtime;
}

namespace gaea::counters::detail {

// The ids are assigned in gaea/comm/handler_ids.hpp.
inline constexpr comm::handler_id progress_handler = comm::handler_ids::counters_progress;
inline constexpr comm::handler_id owner_handler = comm::handler_ids::counters_owner;

enum class op_kind : std::uint32_t { fetch_add = 1, compare_swap = 2 };

/// Header of a counter request; the reply is the previous value (8 bytes).
struct request {
  std::uint64_t counter_id;
  std::uint32_t kind;  // op_kind
  std::uint32_t reserved;
  std::int64_t a;  // increment, or expected value
  std::int64_t b;  // desired value (compare_swap)
};

/// Applies `r` to `*value` with a CPU atomic; returns the previous value. Wraps modulo 2^64.
std::int64_t apply(std::int64_t* value, const request& r);

/// Installs the handlers, the main-thread app poll and the report section on `rt`, once per
/// runtime. Collective in effect (called by every counter constructor).
void install(runtime& rt);
/// Counter ids: the same sequence on every rank, since counters are created collectively.
std::uint64_t next_counter_id();
/// This rank's counters that it owns, so that handlers can find their values.
void register_counter(std::uint64_t id, std::int64_t* value);
void unregister_counter(std::uint64_t id);
/// Answers the owner-served requests queued so far. Owner thread of the runtime only.
unsigned serve_owner_queue(runtime& rt);
/// Requests waiting for the main thread (approximate, lock-free).
std::int64_t owner_queue_length() noexcept;

/// Process-wide figures, summed over ranks in the report.
struct figures {
  std::atomic<std::uint64_t> ops{0};    // counter operations issued by this rank
  std::atomic<std::uint64_t> op_ns{0};  // time spent in them
  std::atomic<std::uint64_t> served_progress{0};
  std::atomic<std::uint64_t> served_owner{0};
  std::atomic<std::uint64_t> pool_tasks{0};
  std::atomic<std::uint64_t> pool_fetches{0};
  std::atomic<std::uint64_t> pool_compute_ns{0};
  std::atomic<std::uint64_t> pool_wait_ns{0};
};
figures& stats();
inline void bump(std::atomic<std::uint64_t>& a, std::uint64_t n = 1) noexcept {
  a.fetch_add(n, std::memory_order_relaxed);
}

}  // namespace gaea::counters::detail
