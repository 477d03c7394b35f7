#pragma once
/// \file
/// Process-wide counters of the global-array layer.

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

#include "gaea/base/enum_names.hpp"

namespace gaea::ga {

/// One-sided operations that statistics are kept for.
enum class op : std::uint8_t {
  get,
  put,
  acc,
  gather,
  scatter,
  scatter_acc,
  read_inc,
  update_ghosts,
};
/// The names of the operations (as in reports).
inline constexpr enum_name<op> op_names[] = {
    {op::get, "get"},           {op::put, "put"},
    {op::acc, "acc"},           {op::gather, "gather"},
    {op::scatter, "scatter"},   {op::scatter_acc, "scatter_acc"},
    {op::read_inc, "read_inc"}, {op::update_ghosts, "update_ghosts"}};
/// Number of operations (the size of stats::ops).
inline constexpr std::size_t op_count = std::size(op_names);
/// Name table of op for gaea::to_string and gaea::parse.
constexpr enum_names<op> enum_names_of(op) noexcept {
  return {"global-array operation", op_names};
}
static_assert(in_value_order<op>(), "stats index their figures by op");
/// "get", "put", ...
constexpr std::string_view to_string(op o) noexcept {
  return gaea::to_string<op>(o);
}

/// Calls, bytes and time of one kind of operation (time from issue to completion as seen by
/// the caller: the call itself when blocking, issue to wait()/test() when non-blocking).
struct op_figures {
  /// Operations issued.
  std::uint64_t calls = 0;
  /// Element bytes they moved (elements times element size).
  std::uint64_t bytes = 0;
  /// Time from issue to completion, summed.
  double seconds = 0;
};

/// Snapshot of the counters (all ranks keep their own).
struct stats {
  /// Figures per operation, indexed by op.
  std::array<op_figures, op_count> ops{};
  /// The figures of operation `o`.
  const op_figures& of(op o) const noexcept { return ops[static_cast<std::size_t>(o)]; }

  /// Fences a get needed (earlier writes to the same array on the same target).
  std::uint64_t flushes_issued = 0;
  /// Gets that went ahead although the target had pending writes — to *other* arrays — which a
  /// per-target (rather than per-array) tracker would have flushed.
  std::uint64_t flushes_avoided = 0;
  /// Accumulates applied by this rank on behalf of others (by its progress thread when on).
  std::uint64_t accs_served = 0;
  /// Accumulate pieces this rank added straight into another rank's mapped memory (same node).
  std::uint64_t accs_direct = 0;
  /// Packed transfers served for others (unpacked puts, packed gets).
  std::uint64_t packed_served = 0;
  /// Strided transfers sent zero-copy (one RMA per chunk).
  std::uint64_t zero_copy_transfers = 0, packed_transfers = 0;
  /// \var packed_transfers
  /// Strided transfers sent packed (one message per owner piece).
};

/// Current counters of this rank. Thread-safe.
stats current_stats();
/// Several lines ("ga: get 12 calls, 1.5 MB, 3.2 ms ...") for reports.
std::string format(const stats& s);

}  // namespace gaea::ga
