// gaea::detail::copy_bytes against the bytes it must produce, for every path (memcpy below 2 KiB or
// when aligned alike, vector loop otherwise) and every tail length.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "gaea/base/detail/copy.hpp"

TEST_CASE("copy_bytes copies exactly n bytes for any size and alignment", "[copy]") {
  constexpr std::size_t max = (std::size_t{1} << 18) + 200;
  std::vector<unsigned char> src(max + 128), dst(max + 256);
  for (std::size_t i = 0; i < src.size(); ++i)
    src[i] = static_cast<unsigned char>((i * 131 + 7) % 251);
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{2047}, std::size_t{2048},
        std::size_t{2048 + 63}, std::size_t{4096 + 17}, std::size_t{65536}, std::size_t{1} << 18})
    for (std::size_t so : {0, 1, 16})
      for (std::size_t d_off : {0, 1, 16, 64, 80}) {
        std::fill(dst.begin(), dst.end(), 0xEE);
        gaea::detail::copy_bytes(dst.data() + d_off, src.data() + so, n);
        bool same = true;
        for (std::size_t i = 0; i < n; ++i)
          same = same && dst[d_off + i] == src[so + i];
        INFO("n " << n << " source offset " << so << " destination offset " << d_off);
        CHECK(same);
        // Nothing outside [d_off, d_off + n) was written.
        CHECK((d_off == 0 || dst[d_off - 1] == 0xEE));
        CHECK(dst[d_off + n] == 0xEE);
      }
}
