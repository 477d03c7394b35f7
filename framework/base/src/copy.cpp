// gaea::detail::copy_unaligned: the data paths' byte copy, SSE2 on x86-64, memcpy elsewhere.

#include "gaea/base/detail/copy.hpp"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace gaea::detail {

void copy_unaligned(void* dst, const void* src, std::size_t n) noexcept {
#if defined(__x86_64__)
  // SSE2 is part of x86-64, so this needs no CPU dispatch. Four vectors per step keep enough
  // loads in flight to reach the cache bandwidth (docs/measurements.md).
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), a);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i + 16), b);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i + 32), c);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i + 48), e);
  }
  std::memcpy(d + i, s + i, n - i);
#else
  std::memcpy(dst, src, n);
#endif
}

}  // namespace gaea::detail
