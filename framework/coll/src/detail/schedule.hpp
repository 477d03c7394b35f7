#pragma once
// A collective as data: rounds of sends and receives between members plus local work after each
// round (copies, reductions). Every algorithm builds one; a single executor runs them blocking or
// non-blocking, applies the energy strategy per round, and the estimator predicts them.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "detail/scratch.hpp"

namespace gaea::coll::detail {

/// The high-level operation a round performs, for calibration and prediction ([Bcast-Energy]).
enum class step_kind : std::uint8_t {
  sync,          // zero-byte signal (barriers)
  tree,          // binomial tree send/receive (broadcast, reduce without the reduction)
  scatter,       // binomial scatter
  allgather,     // ring allgather step
  pipeline,      // pipelined chain step
  reduce,        // receive and combine
  exchange,      // pairwise / send-receive all-to-all step
  bruck,         // Bruck step (packed blocks)
  local_copy,    // local data movement only
  copy_private,  // a node member copies from its leader's memory ([Bcast-Energy] CopyPrivate)
  count_
};
const char* to_string(step_kind k) noexcept;

struct transfer {
  int peer = 0;           // member index
  std::uint32_t tag = 0;  // agreed by both sides
  std::byte* buf = nullptr;
  std::size_t bytes = 0;
};

struct round {
  step_kind kind = step_kind::sync;
  std::vector<transfer> sends;
  std::vector<transfer> recvs;
  std::vector<std::function<void()>> after;  // local work once this round's transfers are done
  std::size_t local_bytes = 0;               // bytes the `after` work touches (for the model)
  // Shared-memory steps (algorithm::shared_memory) instead of messages: the round starts once
  // `can_begin` holds and runs `begin`; it is complete once `ready` holds. Each may be empty
  // (always true / nothing). `waiting_for`: the members an unfinished round waits for.
  std::function<bool()> can_begin;
  std::function<void()> begin;
  std::function<bool()> ready;
  std::function<std::vector<int>()> waiting_for;
};

struct schedule {
  std::vector<round> rounds;
  std::vector<scratch> temps;
  /// A problem a round found (a member's mismatched call): the call fails with it.
  std::shared_ptr<std::string> problem;
  /// Runs once when the call ends, completed (true) or abandoned (gives the next call its turn).
  std::function<void(bool)> on_end;
  /// When true, only the pattern matters (peers, sizes): buffers are not allocated and `after`
  /// work is not kept (used to classify node-mates' rounds and to predict).
  bool shape_only = false;

  round& add(step_kind k) {
    rounds.emplace_back();
    rounds.back().kind = k;
    return rounds.back();
  }
  /// A temporary buffer owned by the schedule (null in shape_only mode).
  std::byte* temp(std::size_t bytes) {
    if (shape_only || bytes == 0) return nullptr;
    temps.push_back(take_scratch(bytes));
    return temps.back().get();
  }
  void then(round& r, std::function<void()> fn, std::size_t bytes) {
    r.local_bytes += bytes;
    if (!shape_only) r.after.push_back(std::move(fn));
  }
};

/// Tag space: phase in the high byte, step below.
constexpr std::uint32_t tag(std::uint32_t phase, std::uint32_t step) noexcept {
  return phase << 24 | (step & 0xFFFFFFu);
}

}  // namespace gaea::coll::detail
