#pragma once
/// \file
/// gaea::comm::op_stats — operations issued by one worker, by kind and by size (log2 buckets),
/// and the events of its remote-key cache.

#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

#include "gaea/base/enum_names.hpp"

namespace gaea::comm {

/// Kinds of origin-side operations.
enum class op_kind : std::uint8_t { put, get, atomic, active_message, flush };
/// Text names of the operation kinds, in value order.
inline constexpr enum_name<op_kind> op_kind_names[] = {{op_kind::put, "put"},
                                                       {op_kind::get, "get"},
                                                       {op_kind::atomic, "atomic"},
                                                       {op_kind::active_message, "active_message"},
                                                       {op_kind::flush, "flush"}};
/// Name table of op_kind for gaea::to_string and gaea::parse.
constexpr enum_names<op_kind> enum_names_of(op_kind) noexcept {
  return {"operation kind", op_kind_names};
}
static_assert(in_value_order<op_kind>(), "op_stats index their counts by op_kind");
/// Number of operation kinds (size of the per-kind arrays).
inline constexpr std::size_t op_kinds = std::size(op_kind_names);
/// Size buckets: bucket b holds sizes in [2^(b-1), 2^b) bytes; bucket 0 holds size 0.
inline constexpr std::size_t op_size_buckets = 48;

/// Text name of `k` ("put", "get", "atomic", "active_message", "flush").
constexpr std::string_view to_string(op_kind k) noexcept {
  return gaea::to_string<op_kind>(k);
}

/// A plain copy of op_stats, summable over workers and ranks.
struct op_totals {
  /// Operations and bytes per op_kind, indexed by the kind's value.
  std::array<std::uint64_t, op_kinds> count{}, bytes{};
  /// Operations per op_kind and size bucket (see op_size_buckets).
  std::array<std::array<std::uint64_t, op_size_buckets>, op_kinds> sizes{};
  /// Remote-key cache (GAEA_RKEY_CACHE): lookups that found the key unpacked, lookups that
  /// unpacked it (first use or after an eviction), and keys evicted.
  std::uint64_t key_hits = 0, key_misses = 0, key_evictions = 0;
  /// Adds `o` member by member.
  op_totals& operator+=(const op_totals& o) noexcept {
    key_hits += o.key_hits;
    key_misses += o.key_misses;
    key_evictions += o.key_evictions;
    for (std::size_t k = 0; k < op_kinds; ++k) {
      count[k] += o.count[k];
      bytes[k] += o.bytes[k];
      for (std::size_t b = 0; b < op_size_buckets; ++b)
        sizes[k][b] += o.sizes[k][b];
    }
    return *this;
  }
  /// \var bytes
  /// Bytes moved per op_kind, indexed by the kind's value.
  //
  /// \var key_misses
  /// Remote-key cache lookups that had to unpack the key.
  //
  /// \var key_evictions
  /// Remote keys evicted from the cache.
};

/// Counters written by the worker's owner thread only (relaxed loads/stores, no read-modify-write
/// on the hot path) and readable from any thread (approximate while operations run).
class op_stats {
 public:
  /// Counts one operation of kind `k` moving `bytes` bytes (owner thread only).
  void record(op_kind k, std::size_t bytes) noexcept {
    const auto i = static_cast<std::size_t>(k);
    bump(count_[i]);
    bytes_[i].store(bytes_[i].load(std::memory_order_relaxed) + bytes, std::memory_order_relaxed);
    bump(sizes_[i][bucket(bytes)]);
  }
  /// Operations of kind `k` so far.
  std::uint64_t count(op_kind k) const noexcept {
    return count_[static_cast<std::size_t>(k)].load(std::memory_order_relaxed);
  }
  /// Bytes moved by operations of kind `k` so far.
  std::uint64_t bytes(op_kind k) const noexcept {
    return bytes_[static_cast<std::size_t>(k)].load(std::memory_order_relaxed);
  }
  /// Operations of kind `k` whose size falls into bucket `b`.
  std::uint64_t in_bucket(op_kind k, std::size_t b) const noexcept {
    return sizes_[static_cast<std::size_t>(k)][b].load(std::memory_order_relaxed);
  }
  /// Counts a remote-key cache hit (owner thread only).
  void key_hit() noexcept { bump(key_hits_); }
  /// Counts a remote-key cache miss (owner thread only).
  void key_miss() noexcept { bump(key_misses_); }
  /// Counts a remote-key cache eviction (owner thread only).
  void key_eviction() noexcept { bump(key_evictions_); }
  /// Adds these counters to `t` (any thread; approximate while operations run).
  void add_to(op_totals& t) const noexcept {
    t.key_hits += key_hits_.load(std::memory_order_relaxed);
    t.key_misses += key_misses_.load(std::memory_order_relaxed);
    t.key_evictions += key_evictions_.load(std::memory_order_relaxed);
    for (std::size_t k = 0; k < op_kinds; ++k) {
      t.count[k] += count_[k].load(std::memory_order_relaxed);
      t.bytes[k] += bytes_[k].load(std::memory_order_relaxed);
      for (std::size_t b = 0; b < op_size_buckets; ++b)
        t.sizes[k][b] += sizes_[k][b].load(std::memory_order_relaxed);
    }
  }
  /// The size bucket of an operation of `bytes` bytes (see op_size_buckets).
  static std::size_t bucket(std::size_t bytes) noexcept {
    const auto b = static_cast<std::size_t>(std::bit_width(bytes));
    return b < op_size_buckets ? b : op_size_buckets - 1;
  }

 private:
  static void bump(std::atomic<std::uint64_t>& a) noexcept {
    a.store(a.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  std::array<std::atomic<std::uint64_t>, op_kinds> count_{}, bytes_{};
  std::array<std::array<std::atomic<std::uint64_t>, op_size_buckets>, op_kinds> sizes_{};
  std::atomic<std::uint64_t> key_hits_{0}, key_misses_{0}, key_evictions_{0};
};

}  // namespace gaea::comm
