#pragma once
// When a member may write its shared-memory buffers again: only once every member is done with
// their previous use. Buffer 1 also holds the eager slots of small broadcasts, so that a root can
// run up to shm_eager_slots calls ahead of its readers instead of waiting for them every call.

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "gaea/base/assert.hpp"

namespace gaea::coll::detail {

/// Slots of buffer 1 that small broadcasts use in turn, by call number (the same on every member).
inline constexpr std::size_t shm_eager_slots = 4;

/// The bytes of one eager slot of a buffer of `buffer` bytes (64-byte aligned).
constexpr std::size_t shm_eager_slot_bytes(std::size_t buffer) noexcept {
  return buffer / shm_eager_slots / 64 * 64;
}

/// Whether a part of `bytes` skips the region and is copied straight between the members'
/// buffers (`single_copy` = the region's single_copy_bytes, 0 = never). Every path of a call
/// asks this, so members agree.
constexpr bool shm_goes_single_copy(std::size_t bytes, std::size_t single_copy) noexcept {
  return single_copy > 0 && bytes >= single_copy;
}

/// Allreductions of more bytes combine through the region even where single copy is on: there
/// the kernel copies into and out of the slices cost more than the region's pipelined chunks
/// (docs/measurements.md).
inline constexpr std::size_t shm_single_copy_reduce_max = std::size_t{2} << 20;

/// Whether a reduction of `bytes` (`all`: an allreduce) goes by single copy, given whether its
/// size does (shm_goes_single_copy). A rooted reduce keeps the region: there a member that is
/// not the root returns once its input is in its buffer, instead of waiting for the root.
constexpr bool shm_reduce_goes_single_copy(bool all, std::size_t bytes, bool by_size) noexcept {
  return all && by_size && bytes <= shm_single_copy_reduce_max;
}

/// Region reductions of at most this many bytes combine whole chunks on every reader (one step);
/// larger ones split each chunk into one slice per member, so that the members share the combining.
inline constexpr std::size_t shm_whole_chunk_reduce_max = std::size_t{16} << 10;

/// Whether a region reduction of `bytes` among `members` combines whole chunks on every reader:
/// small ones, and every one between two members (slices would not save a step there). Both
/// paths (shm_reduce's schedule, the inline one) ask this, so members agree.
constexpr bool shm_reduce_whole_chunks(int members, std::size_t bytes) noexcept {
  return members <= 2 || bytes <= shm_whole_chunk_reduce_max;
}

/// A single-copy broadcast among `members`: the root writes the first this-many bytes of each
/// reader's buffer while every reader reads the rest from the root's, so both sides copy at once.
constexpr std::size_t shm_broadcast_root_share(std::size_t bytes, int members) noexcept {
  return members > 1 ? bytes / static_cast<std::size_t>(members) / 64 * 64 : 0;
}

/// The eager slot a broadcast of `bytes` in call `call` goes through, or -1 when it takes the
/// whole buffer (too large, empty, or a single-copy part). Every path of a call asks this, so
/// members agree.
constexpr int shm_eager_slot(std::uint64_t call, std::size_t bytes, std::size_t buffer,
                             std::size_t single_copy) noexcept {
  if (bytes == 0 || bytes > shm_eager_slot_bytes(buffer) ||
      shm_goes_single_copy(bytes, single_copy))
    return -1;
  return static_cast<int>(call % shm_eager_slots);
}

/// Where eager slot `slot` starts in buffer 1 of `buffer` bytes.
constexpr std::size_t shm_eager_slot_offset(int slot, std::size_t buffer) noexcept {
  return static_cast<std::size_t>(slot) * shm_eager_slot_bytes(buffer);
}

/// A member's record of the step values (shm_step_value) of its latest writes. claim() and
/// claim_slot() record a write that will post `v` and return the value every other member must
/// have consumed before it starts.
struct shm_buffer_uses {
  std::uint64_t last[2] = {0, 0};                      // latest write anywhere in buffer b
  std::uint64_t whole = 0;                             // latest whole write of buffer 1
  std::uint64_t slot[shm_eager_slots] = {0, 0, 0, 0};  // latest write of each eager slot

  std::uint64_t claim(std::uint64_t buffer, std::uint64_t v) noexcept {
    const std::uint64_t free_at = last[buffer & 1];
    last[buffer & 1] = v;
    if (buffer & 1) whole = v;
    return free_at;
  }
  std::uint64_t claim_slot(std::size_t s, std::uint64_t v) {
    GAEA_ASSERT(s < shm_eager_slots, "an eager slot index is below the slot count");
    const std::uint64_t free_at = std::max(whole, slot[s]);
    slot[s] = v;
    last[1] = std::max(last[1], v);
    return free_at;
  }
};

}  // namespace gaea::coll::detail
