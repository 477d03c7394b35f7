#pragma once
/// \file
/// Internal (not API): gaea::detail::copy_bytes — std::memcpy for the data paths (direct loads and
/// stores on a node, packing and unpacking of strided patches), without glibc's slow case.
///
/// glibc before 2.39 copies from a few KiB to about half a MiB with `rep movsb`, which on AMD Zen
/// runs an order of magnitude slower when source and destination differ in their offset within a
/// 64-byte line: the common case of a user's heap buffer against a page-aligned global array
/// (malloc puts a 16-byte header before a page-aligned mmap).
/// Figures: docs/measurements.md.

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gaea::detail {

/// Copies with 16-byte vector loads and stores (x86-64), else std::memcpy.
void copy_unaligned(void* dst, const void* src, std::size_t n) noexcept;

/// Copies `n` bytes from `src` to `dst` (the ranges must not overlap), like std::memcpy.
/// Thread-safe; never throws.
inline void copy_bytes(void* dst, const void* src, std::size_t n) noexcept {
  const auto skew = (reinterpret_cast<std::uintptr_t>(dst) - reinterpret_cast<std::uintptr_t>(src));
  // From about half a MiB on (3/4 of a per-thread L3 share) glibc uses non-temporal stores,
  // which are fast whatever the skew and spare the cache: memcpy again.
  if (n < 2048 || n >= (std::size_t{512} << 10) || (skew & 63) == 0) {
    std::memcpy(dst, src, n);
    return;
  }
  copy_unaligned(dst, src, n);
}

}  // namespace gaea::detail
