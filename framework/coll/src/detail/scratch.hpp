#pragma once
// Scratch buffers of the collectives (a schedule's temporaries, early messages), kept for reuse:
// a fresh large buffer per call costs page faults and, when it is freed, the heap's trim and TLB
// shoot-downs on every core the process runs on.

#include <cstddef>
#include <memory>

namespace gaea::coll::detail {

/// Gives a buffer back to the pool (or frees it, when the pool is full).
struct scratch_return {
  std::size_t capacity = 0;
  void operator()(std::byte* p) const noexcept;
};

/// A buffer of at least the bytes asked for; not zeroed. Thread-safe.
using scratch = std::unique_ptr<std::byte[], scratch_return>;

/// A buffer of at least `bytes` (null for 0), reusing one given back when one fits.
scratch take_scratch(std::size_t bytes);

}  // namespace gaea::coll::detail
