#pragma once
// Striped spin locks that make accumulates element-wise atomic with respect to each other when
// several processes add into one rank's storage: the owner's progress thread (accumulates from
// other nodes), the owner's own threads, and origins on the same node that add straight into
// the owner's memory mapped with ucp_rkey_ptr. The lock words live in the owner's segment,
// after its storage: one 32-bit word per stripe of acc_stripe_bytes storage bytes, taken with
// CPU atomics through whichever mapping the caller has. Whoever adds holds at most one stripe
// at a time, so there is no lock order to respect and no deadlock; an element never straddles
// two stripes (the stripe is a multiple of every element size).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace gaea::ga::detail {

/// Storage bytes guarded by one lock word: small enough that origins adding into disjoint parts
/// of one tile do not serialise, at 4 bytes of lock per stripe (docs/measurements.md).
inline constexpr std::size_t acc_stripe_bytes = 4096;
static_assert(acc_stripe_bytes % 16 == 0, "a stripe must hold whole elements of every type");

/// Lock words needed for `storage_bytes` bytes of storage.
constexpr std::size_t acc_lock_count(std::size_t storage_bytes) noexcept {
  return (storage_bytes + acc_stripe_bytes - 1) / acc_stripe_bytes;
}

/// A view of one rank's lock words that holds at most one stripe at a time.
class stripe_guard {
 public:
  /// `words`: the rank's first lock word as this process sees it (4-byte aligned).
  explicit stripe_guard(std::byte* words) noexcept
      : words_(reinterpret_cast<std::uint32_t*>(words)) {}
  stripe_guard(const stripe_guard&) = delete;
  stripe_guard& operator=(const stripe_guard&) = delete;
  ~stripe_guard() { release(); }

  /// Calls fn(offset, bytes) for each part of storage bytes [offset, offset + bytes) that lies
  /// in one stripe, with that stripe's lock held.
  template <class Fn>
  void for_each_part(std::size_t offset, std::size_t bytes, Fn&& fn) {
    const std::size_t end = offset + bytes;
    while (offset < end) {
      const std::size_t s = offset / acc_stripe_bytes;
      const std::size_t stop = std::min(end, (s + 1) * acc_stripe_bytes);
      hold(s);
      fn(offset, stop - offset);
      offset = stop;
    }
  }
  /// Holds the stripe of storage byte `offset` (releasing another one held).
  void hold_byte(std::size_t offset) { hold(offset / acc_stripe_bytes); }

  void release() noexcept {
    if (held_ == none) return;
    std::atomic_ref<std::uint32_t>(words_[held_]).store(0, std::memory_order_release);
    held_ = none;
  }

 private:
  static constexpr std::size_t none = ~std::size_t{0};
  void hold(std::size_t s) {
    if (held_ == s) return;
    release();
    std::atomic_ref<std::uint32_t> w(words_[s]);
    // Test-and-test-and-set: spin on loads (the line stays shared) and yield now and then, as
    // the holder may be a descheduled process on an oversubscribed node.
    for (unsigned spins = 0; w.exchange(1, std::memory_order_acquire) != 0;) {
      while (w.load(std::memory_order_relaxed) != 0) {
        if (++spins % 256 == 0) {
          std::this_thread::yield();
        } else {
#if defined(__x86_64__) || defined(__i386__)
          _mm_pause();
#endif
        }
      }
    }
    held_ = s;
  }

  std::uint32_t* words_;
  std::size_t held_ = none;
};

}  // namespace gaea::ga::detail
