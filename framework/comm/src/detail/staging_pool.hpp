#pragma once
// Buffers that receive rendezvous active-message payloads at the target, kept for reuse. A
// fresh zeroed vector per message meant, for every large packed put or accumulate, zeroing it
// and (above glibc's mmap threshold) page-faulting each of its pages at the target; a kept
// buffer is faulted in once. Bounded: at most max_kept buffers and max_bytes in all are kept.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace gaea::comm::detail {

class staging_pool {
 public:
  static constexpr std::size_t max_kept = 8;
  static constexpr std::size_t max_bytes = std::size_t{64} << 20;

  struct buffer {
    std::unique_ptr<std::byte[]> bytes;
    std::size_t size = 0;
  };

  /// The smallest kept buffer of at least `n` bytes, else a new one (not zeroed). Throws
  /// std::bad_alloc. Any thread.
  buffer take(std::size_t n) {
    {
      std::lock_guard lock(m_);
      auto best = free_.end();
      for (auto it = free_.begin(); it != free_.end(); ++it)
        if (it->size >= n && (best == free_.end() || it->size < best->size)) best = it;
      if (best != free_.end()) {
        buffer b = std::move(*best);
        free_.erase(best);
        kept_bytes_ -= b.size;
        return b;
      }
    }
    return {std::unique_ptr<std::byte[]>(new std::byte[std::max<std::size_t>(n, 1)]), n};
  }
  /// Buffers kept now (diagnostics, tests).
  std::size_t kept() {
    std::lock_guard lock(m_);
    return free_.size();
  }
  /// Returns `b` for reuse, or frees it when the pool is full. Any thread.
  void give(buffer b) noexcept {
    std::lock_guard lock(m_);
    if (!b.bytes || free_.size() >= max_kept || kept_bytes_ + b.size > max_bytes) return;
    kept_bytes_ += b.size;
    try {
      free_.push_back(std::move(b));
    } catch (...) {  // no room to keep it: it is freed
      kept_bytes_ -= b.size;
    }
  }

 private:
  std::mutex m_;
  std::vector<buffer> free_;
  std::size_t kept_bytes_ = 0;
};

}  // namespace gaea::comm::detail
