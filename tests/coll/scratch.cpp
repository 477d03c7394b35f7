// The collectives' scratch pool: a buffer given back is reused for a request it fits (not one
// less than half its size), and huge buffers are not kept.

#include <catch2/catch.hpp>
#include <cstddef>

#include "detail/scratch.hpp"

using namespace gaea::coll::detail;

TEST_CASE("a scratch buffer given back is reused for a request that fits it", "[coll][scratch]") {
  // Sizes no other test of this program asks for, so that only the buffer given back fits.
  constexpr std::size_t size = (512 << 10) + 5 * 4096;
  std::byte* first = nullptr;
  {
    scratch a = take_scratch(size);
    REQUIRE(a);
    a[0] = std::byte{1};
    a[size - 1] = std::byte{2};  // the whole size is usable
    first = a.get();
  }
  scratch b = take_scratch(size - 7 * 4096);  // fits the buffer given back
  CHECK(b.get() == first);
  CHECK(b.get_deleter().capacity == size);
}

TEST_CASE("a scratch buffer is not reused for a request under half its size", "[coll][scratch]") {
  constexpr std::size_t size = (1 << 20) + 3 * 4096;
  std::byte* big = nullptr;
  {
    scratch a = take_scratch(size);
    big = a.get();
  }
  scratch small = take_scratch(size / 2 - 4096);
  CHECK(small.get() != big);
  CHECK(small.get_deleter().capacity < size);
  scratch again = take_scratch(size);
  CHECK(again.get() == big);
}

TEST_CASE("an empty scratch request gives no buffer", "[coll][scratch]") {
  CHECK_FALSE(take_scratch(0));
}

TEST_CASE("a scratch buffer beyond the pool's largest is freed, not kept", "[coll][scratch]") {
  { scratch a = take_scratch(std::size_t{48} << 20); }
  // Had the pool kept the 48 MiB buffer, this request would get it (capacity 48 MiB).
  scratch b = take_scratch(std::size_t{40} << 20);
  CHECK(b.get_deleter().capacity == (std::size_t{40} << 20));
}
