#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "detail/registry.hpp"
#include "detail/stats_counters.hpp"
#include "detail/wire.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/ga/detail/array_core.hpp"
#include "gaea/ga/stats.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga {

namespace detail {

stat_counters& counters() {
  static stat_counters c;
  return c;
}

namespace {
std::mutex g_mutex;
std::unordered_map<std::uint64_t, array_core*> g_arrays;

void on_acc(const comm::am_message& m) {
  patch_header_fixed h{};
  const patch piece = read_patch_header(m.header, h);
  array_core& a = find_array(h.array_id, m.source);
  if (m.data.size() != static_cast<std::size_t>(piece.elements()) * a.elem_size())
    throw Error("global_array '" + a.name() + "': accumulate of " + piece.str() + " carries " +
                std::to_string(m.data.size()) + " bytes");
  a.apply_acc(piece, m.data.data(), h.alpha);
  bump(counters().accs_served);
}
}  // namespace

array_core& find_array(std::uint64_t id, int source) {
  std::lock_guard lock(g_mutex);
  auto it = g_arrays.find(id);
  if (it == g_arrays.end())
    throw Error("global_array request from rank " + std::to_string(source) + ": no array with id " +
                std::to_string(id) + " on this rank");
  return *it->second;
}

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
  if (rt.comm().has_handler(acc_handler)) return;
  init_protocols_from_env();
  rt.comm().register_handler(acc_handler, on_acc);
  install_packed_handlers(rt);
  install_element_handlers(rt);
  // Per-operation figures in the GAEA_REPORT summary (arrays are created collectively, so
  // every rank registers this section at the same point).
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < op_count; ++i) {
    const std::string o = to_string(static_cast<op>(i));
    keys.insert(keys.end(), {o + "_calls", o + "_MB", o + "_ms"});
  }
  keys.insert(keys.end(), {"flushes_issued", "flushes_avoided", "zero_copy_transfers",
                           "packed_transfers", "accs_served", "packed_served"});
  rt.add_report_section("global arrays", keys, [] {
    const stats s = current_stats();
    std::vector<double> v;
    for (const op_figures& f : s.ops)
      v.insert(v.end(), {static_cast<double>(f.calls), static_cast<double>(f.bytes) * 1e-6,
                         f.seconds * 1e3});
    for (std::uint64_t x : {s.flushes_issued, s.flushes_avoided, s.zero_copy_transfers,
                            s.packed_transfers, s.accs_served, s.packed_served})
      v.push_back(static_cast<double>(x));
    return v;
  });
}

}  // namespace detail

const char* to_string(op o) noexcept {
  static constexpr const char* names[op_count] = {
      "get", "put", "acc", "gather", "scatter", "scatter_acc", "read_inc", "update_ghosts"};
  const auto i = static_cast<std::size_t>(o);
  return i < op_count ? names[i] : "?";
}

stats current_stats() {
  auto& c = detail::counters();
  auto ld = [](const std::atomic<std::uint64_t>& a) { return a.load(std::memory_order_relaxed); };
  stats s;
  for (std::size_t i = 0; i < op_count; ++i)
    s.ops[i] = {ld(c.ops[i].calls), ld(c.ops[i].bytes),
                static_cast<double>(ld(c.ops[i].ns)) * 1e-9};
  s.gets = s.of(op::get).calls;
  s.puts = s.of(op::put).calls;
  s.accs = s.of(op::acc).calls;
  s.bytes_get = s.of(op::get).bytes;
  s.bytes_put = s.of(op::put).bytes;
  s.bytes_acc = s.of(op::acc).bytes;
  s.flushes_issued = ld(c.flushes_issued);
  s.flushes_avoided = ld(c.flushes_avoided);
  s.accs_served = ld(c.accs_served);
  s.packed_served = ld(c.packed_served);
  s.zero_copy_transfers = ld(c.zero_copy_transfers);
  s.packed_transfers = ld(c.packed_transfers);
  return s;
}

std::string format(const stats& s) {
  std::string out;
  char line[160];
  for (std::size_t i = 0; i < op_count; ++i) {
    const op_figures& f = s.ops[i];
    if (f.calls == 0) continue;
    std::snprintf(line, sizeof line, "  %-13s %10llu calls %12.3f MB %10.3f ms\n",
                  to_string(static_cast<op>(i)), static_cast<unsigned long long>(f.calls),
                  static_cast<double>(f.bytes) * 1e-6, f.seconds * 1e3);
    out += line;
  }
  std::snprintf(line, sizeof line,
                "  fences: %llu flushes issued, %llu avoided; transfers: %llu zero-copy, %llu "
                "packed; served: %llu accumulates, %llu packed\n",
                static_cast<unsigned long long>(s.flushes_issued),
                static_cast<unsigned long long>(s.flushes_avoided),
                static_cast<unsigned long long>(s.zero_copy_transfers),
                static_cast<unsigned long long>(s.packed_transfers),
                static_cast<unsigned long long>(s.accs_served),
                static_cast<unsigned long long>(s.packed_served));
  out += line;
  return out;
}

}  // namespace gaea::ga
