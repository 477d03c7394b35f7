#include <mutex>
#include <unordered_map>

#include "detail/registry.hpp"
#include "detail/wire.hpp"
#include "gaea/ga/array_core.hpp"
#include "gaea/ga/stats.hpp"
#include "gaea/runtime/runtime.hpp"
#include "stats_counters.hpp"

namespace gaea::ga {

namespace detail {

stat_counters& counters() {
  static stat_counters c;
  return c;
}

namespace {
std::mutex g_mutex;
std::unordered_map<std::uint64_t, array_core*> g_arrays;

array_core* find(std::uint64_t id) {
  std::lock_guard lock(g_mutex);
  auto it = g_arrays.find(id);
  return it == g_arrays.end() ? nullptr : it->second;
}

void on_acc(const comm::am_message& m) {
  acc_header_fixed h{};
  if (m.header.size() < sizeof h) throw Error("global_array accumulate: truncated header");
  std::memcpy(&h, m.header.data(), sizeof h);
  if (m.header.size() != acc_header_size(h.ndim))
    throw Error("global_array accumulate: header of " + std::to_string(m.header.size()) +
                " bytes does not match ndim " + std::to_string(h.ndim));
  patch piece{index(h.ndim), index(h.ndim)};
  const std::byte* p = m.header.data() + sizeof h;
  std::memcpy(piece.lo.data(), p, h.ndim * sizeof(index_t));
  std::memcpy(piece.hi.data(), p + h.ndim * sizeof(index_t), h.ndim * sizeof(index_t));
  array_core* a = find(h.array_id);
  if (!a)
    throw Error("global_array accumulate from rank " + std::to_string(m.source) +
                ": no array with id " + std::to_string(h.array_id) + " on this rank");
  if (m.data.size() != static_cast<std::size_t>(piece.elements()) * a->elem_size())
    throw Error("global_array '" + a->name() + "': accumulate of " + piece.str() + " carries " +
                std::to_string(m.data.size()) + " bytes");
  a->apply_acc(piece, m.data.data(), h.alpha);
  bump(counters().accs_served);
}
}  // namespace

void register_array(std::uint64_t id, array_core* a) {
  std::lock_guard lock(g_mutex);
  g_arrays[id] = a;
}

void unregister_array(std::uint64_t id) {
  std::lock_guard lock(g_mutex);
  g_arrays.erase(id);
}

void install_handlers(runtime& rt) {
  std::lock_guard lock(g_mutex);
  if (!rt.comm().has_handler(acc_handler)) rt.comm().register_handler(acc_handler, on_acc);
}

}  // namespace detail

stats current_stats() {
  auto& c = detail::counters();
  auto ld = [](const std::atomic<std::uint64_t>& a) { return a.load(std::memory_order_relaxed); };
  return {ld(c.gets),       ld(c.puts),      ld(c.accs),           ld(c.bytes_get),
          ld(c.bytes_put),  ld(c.bytes_acc), ld(c.flushes_issued), ld(c.flushes_avoided),
          ld(c.accs_served)};
}

}  // namespace gaea::ga
