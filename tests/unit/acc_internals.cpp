// Internals of the accumulate path, without a runtime: the striped locks that make accumulates
// atomic (framework/ga/src/detail/acc_locks.hpp) and the kept staging buffers of the target's
// rendezvous receives (framework/comm/src/detail/staging_pool.hpp).
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

#include "detail/acc_locks.hpp"
#include "detail/staging_pool.hpp"

using gaea::ga::detail::acc_lock_count;
using gaea::ga::detail::acc_stripe_bytes;
using gaea::ga::detail::stripe_guard;

namespace {
std::uint32_t word(std::vector<std::uint32_t>& w, std::size_t i) {
  return std::atomic_ref<std::uint32_t>(w[i]).load();
}
}  // namespace

TEST_CASE("acc locks: a range is cut at stripe boundaries, each part under its own lock only",
          "[acc][locks]") {
  std::vector<std::uint32_t> words(acc_lock_count(4 * acc_stripe_bytes), 0);
  CHECK(words.size() == 4);
  CHECK(acc_lock_count(4 * acc_stripe_bytes + 1) == 5);
  std::vector<std::pair<std::size_t, std::size_t>> parts;
  {
    stripe_guard g(reinterpret_cast<std::byte*>(words.data()));
    const std::size_t from = acc_stripe_bytes - 96, bytes = acc_stripe_bytes + 200;
    g.for_each_part(from, bytes, [&](std::size_t off, std::size_t n) {
      parts.emplace_back(off, n);
      const std::size_t s = off / acc_stripe_bytes;
      for (std::size_t i = 0; i < words.size(); ++i)
        CHECK(word(words, i) == (i == s ? 1u : 0u));  // exactly one stripe held: its own
    });
  }
  const std::vector<std::pair<std::size_t, std::size_t>> want{{acc_stripe_bytes - 96, 96},
                                                              {acc_stripe_bytes, acc_stripe_bytes},
                                                              {2 * acc_stripe_bytes, 104}};
  CHECK(parts == want);
  for (std::size_t i = 0; i < words.size(); ++i)
    CHECK(word(words, i) == 0u);  // released by the guard's end
}

TEST_CASE("acc locks: threads adding under one stripe lose no update", "[acc][locks]") {
  std::vector<std::uint32_t> words(1, 0);
  std::uint64_t plain = 0;  // not atomic: only the stripe lock protects it
  constexpr int per_thread = 200000;
  auto add = [&] {
    stripe_guard g(reinterpret_cast<std::byte*>(words.data()));
    for (int i = 0; i < per_thread; ++i) {
      g.hold_byte(8);
      plain = plain + 1;
      g.release();
    }
  };
  std::thread a(add), b(add), c(add);
  a.join();
  b.join();
  c.join();
  CHECK(plain == 3u * per_thread);
}

TEST_CASE("staging pool: buffers are reused, the smallest that fits first, within its bounds",
          "[acc][staging]") {
  using gaea::comm::detail::staging_pool;
  staging_pool pool;
  staging_pool::buffer big = pool.take(1 << 20), small = pool.take(100);
  std::byte* const big_at = big.bytes.get();
  std::byte* const small_at = small.bytes.get();
  CHECK(big.size == std::size_t{1} << 20);
  pool.give(std::move(big));
  pool.give(std::move(small));
  staging_pool::buffer again = pool.take(50);  // the 100-byte one fits best
  CHECK(again.bytes.get() == small_at);
  staging_pool::buffer large = pool.take(4096);  // only the big one fits
  CHECK(large.bytes.get() == big_at);
  staging_pool::buffer fresh = pool.take(4096);  // nothing kept fits: a new one
  CHECK(fresh.bytes.get() != big_at);
  CHECK(fresh.bytes.get() != small_at);
  pool.give(std::move(again));
  pool.give(std::move(large));
  pool.give(std::move(fresh));
  CHECK(pool.kept() == 3);
  // At most max_kept buffers and max_bytes in all are kept; the rest is freed on return.
  std::vector<staging_pool::buffer> many;
  for (std::size_t i = 0; i < staging_pool::max_kept; ++i)
    many.push_back(pool.take(64));  // the 3 kept ones, then new ones
  CHECK(pool.kept() == 0);
  for (auto& b : many)
    pool.give(std::move(b));
  CHECK(pool.kept() == staging_pool::max_kept);
  pool.give(pool.take(std::size_t{2} << 20));  // none kept fits: a new one, then freed
  CHECK(pool.kept() == staging_pool::max_kept);
  staging_pool other;
  other.give(other.take(staging_pool::max_bytes + 1));  // more than max_bytes: freed
  CHECK(other.kept() == 0);
  pool.give(staging_pool::buffer{});  // an empty buffer is ignored
  CHECK(pool.kept() == staging_pool::max_kept);
}
