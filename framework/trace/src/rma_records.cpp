// Region names to RMA records (detail/rma_records.hpp). The names are the ones ga and counters
// record (framework/trace/README.md lists them).
#include "detail/rma_records.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace gaea::trace::detail {

rma_region classify_rma(std::string_view region) noexcept {
  using c = rma_region::completes;
  constexpr auto arrays = rma_window::arrays, counters = rma_window::counters;
  static constexpr std::array<std::pair<std::string_view, rma_region>, 14> table{{
      {"ga.get", {rma_kind::get, arrays, true, c::none}},
      {"ga.put", {rma_kind::put, arrays, true, c::none}},
      {"ga.acc", {rma_kind::accumulate, arrays, true, c::none}},
      {"ga.nbget", {rma_kind::get, arrays, false, c::none}},
      {"ga.nbput", {rma_kind::put, arrays, false, c::none}},
      {"ga.nbacc", {rma_kind::accumulate, arrays, false, c::none}},
      {"ga.wait", {rma_kind::none, arrays, false, c::one}},
      {"ga.fence", {rma_kind::none, arrays, false, c::all}},
      {"ga.sync", {rma_kind::none, arrays, false, c::all}},
      {"counter.fetch_add", {rma_kind::fetch_add, counters, true, c::none}},
      {"counter.compare_swap", {rma_kind::compare_swap, counters, true, c::none}},
      {"counter.read", {rma_kind::get, counters, true, c::none}},
      {"counter.nbfetch_add", {rma_kind::fetch_add, counters, false, c::none}},
      {"counter.wait", {rma_kind::none, counters, false, c::one}},
  }};
  for (const auto& [name, r] : table)
    if (name == region) return r;
  return {};
}

std::optional<rma_issue> rma_location::enter(std::size_t index, const rma_region& r,
                                             std::int32_t peer, std::int64_t bytes,
                                             std::size_t ranks) {
  if (r.kind == rma_kind::none || peer < 0 || static_cast<std::size_t>(peer) >= ranks)
    return std::nullopt;
  const rma_issue op{r.kind, r.window, static_cast<std::uint32_t>(peer),
                     static_cast<std::uint64_t>(bytes < 0 ? 0 : bytes), next_id_++};
  if (r.blocking)
    blocking_.emplace(index, rma_completion{op.window, op.id});
  else
    pending_[static_cast<std::size_t>(r.window)].push_back(op.id);
  return op;
}

std::vector<rma_completion> rma_location::leave(std::size_t index, const rma_region& r) {
  std::vector<rma_completion> done;
  if (const auto it = blocking_.find(index); it != blocking_.end()) {
    done.push_back(it->second);
    blocking_.erase(it);
  }
  auto& pending = pending_[static_cast<std::size_t>(r.window)];
  const std::size_t n = r.completion == rma_region::completes::all ? pending.size()
                        : r.completion == rma_region::completes::one
                            ? std::min<std::size_t>(1, pending.size())
                            : 0;
  for (std::size_t i = 0; i < n; ++i) {
    done.push_back({r.window, pending.front()});
    pending.pop_front();
  }
  return done;
}

}  // namespace gaea::trace::detail
