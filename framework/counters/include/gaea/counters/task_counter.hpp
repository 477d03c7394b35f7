#pragma once
/// \file
/// gaea::counters::task_counter — hands out the task ids of a range [begin, end) across ranks and
/// threads in chunks ("work dispenser"), each id exactly once, over a
/// gaea::counters::shared_counter of any mode. Variants: one id per fetch, guided self-scheduling
/// batches, or a node-level counter in node shared memory refilled in chunks from the global one.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "gaea/counters/counter_mode.hpp"

namespace gaea::counters {

/// Half-open range of task ids [begin, end).
struct task_range {
  /// First id of the range.
  std::int64_t begin = 0;
  /// One past the last id.
  std::int64_t end = 0;
  /// True when the range holds no id (end <= begin).
  bool empty() const noexcept { return begin >= end; }
  /// Number of ids (0 when empty).
  std::int64_t size() const noexcept { return empty() ? 0 : end - begin; }
};

/// How a task_counter takes ids from its shared counter.
enum class dispense {
  single,        ///< one id per fetch_add(1) ([PGAS-BGQ §IV.B.3]), a round trip per task
  batched,       ///< guided self-scheduling: chunk = clamp(remaining / (k × consumers))
  hierarchical,  ///< a node counter in node shared memory, refilled from the global counter in
                 ///< guided chunks over nodes; ranks take guided sub-chunks with CPU atomics
};
/// The names of the variants.
inline constexpr enum_name<dispense> dispense_names[] = {{dispense::single, "single"},
                                                         {dispense::batched, "batched"},
                                                         {dispense::hierarchical, "hierarchical"}};
/// Name table of dispense for gaea::to_string and gaea::parse.
constexpr enum_names<dispense> enum_names_of(dispense) noexcept {
  return {"task_counter variant", dispense_names};
}
/// "single", "batched", "hierarchical".
constexpr std::string_view to_string(dispense d) noexcept {
  return gaea::to_string<dispense>(d);
}
/// Parses "single|batched|hierarchical"; nullopt otherwise.
constexpr std::optional<dispense> parse_dispense(std::string_view text) noexcept {
  return gaea::try_parse<dispense>(text);
}

/// Options of a task_counter. All but threads_per_rank must be the same on every rank (the
/// constructor checks it and throws gaea::error on every rank otherwise).
struct task_counter_options {
  /// Mode of the global counter (default: GAEA_COUNTER).
  std::optional<counter_mode> mode;
  /// How ids are taken from the global counter (default: guided batches).
  dispense variant = dispense::batched;
  /// Rank holding the global counter, or task_counter_options::spread: the counters of a program
  /// are placed round-robin over the ranks in creation order.
  int owner = 0;
  /// The `owner` value that places the counter round-robin (see owner).
  static constexpr int spread = -1;
  /// Guided self-scheduling divisor k (>= 1): a fetch takes remaining / (k × consumers).
  std::int64_t guided_k = 2;
  /// Chunk bounds (min >= 1; max 0 = unbounded). The last chunk is clipped to the range.
  std::int64_t min_chunk = 1;
  /// Largest chunk: 0 (unbounded) or >= min_chunk.
  std::int64_t max_chunk = 0;
  /// Threads per rank that call next() concurrently (sizes the guided chunks; task_pool sets it).
  int threads_per_rank = 1;
};

/// Collective object (construct, reset and destroy on every rank, in the same order, from the
/// runtime's owner thread). next() may be called from any thread of any rank, concurrently.
/// Invariants: the ranges returned by next() on all ranks and threads are disjoint and their
/// union is exactly [begin, end); once a rank has seen the end, its next() returns empty ranges
/// without communicating. No arithmetic overflows for any int64 range of at most 2^63 − 1 ids
/// (the counter holds offsets from `begin`, and chunks are capped so that the overshoot past the
/// end cannot wrap).
class task_counter {
 public:
  /// Collective: hands out [all.begin, all.end). Throws gaea::error for a negative-size range,
  /// more than 2^63 − 1 ids, bad options (k < 1, min_chunk < 1, max_chunk < 0, owner not a rank,
  /// threads_per_rank < 1), or no runtime.
  task_counter(std::string name, task_range all, task_counter_options opt = {});
  /// Collective: hands out [0, n_tasks); n_tasks >= 0.
  task_counter(std::string name, std::int64_t n_tasks, task_counter_options opt = {});
  ~task_counter();  ///< collective
  /// Takes over the source's counter (local, no communication); the source is left invalid.
  task_counter(task_counter&&) noexcept;
  task_counter& operator=(task_counter&&);  ///< collective when `*this` holds a counter

  /// The next range of ids for the calling thread; empty once all ids are handed out.
  /// Thread-safe. Throws gaea::error after destroy() or a move, or if the transport fails.
  task_range next();
  /// Collective: starts over with the ids [all.begin, all.end) (same checks as construction).
  void reset(task_range all);
  /// Collective: starts over with the ids [0, n_tasks).
  void reset(std::int64_t n_tasks) { reset(task_range{0, n_tasks}); }
  /// Collective: frees it now; later calls throw gaea::error.
  void destroy();

  /// False after destroy() or a move.
  bool valid() const noexcept { return impl_ != nullptr; }
  task_range range() const;  ///< all ids
  int owner() const;         ///< rank of the global counter
  /// Mode of the global counter; gaea::error after destroy() or a move (as every accessor here).
  counter_mode mode() const;
  /// How ids are taken from the global counter.
  dispense variant() const;
  /// The name given at construction.
  const std::string& name() const;
  /// Fetches from the global counter by this rank (one round trip each unless owned here).
  std::int64_t global_fetches() const;

 private:
  struct impl;
  impl& live(const char* op) const;
  std::unique_ptr<impl> impl_;
};

}  // namespace gaea::counters
