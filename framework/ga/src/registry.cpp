// Arrays of this rank by id, for the handlers; installs the handlers once per runtime.
#include <mutex>
#include <string>
#include <unordered_map>

#include "detail/registry.hpp"
#include "detail/wire.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/ga/detail/array_core.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga::detail {

namespace {
std::mutex g_mutex;
std::unordered_map<std::uint64_t, array_core*> g_arrays;
}  // namespace

array_core& find_array(std::uint64_t id, int source) {
  std::lock_guard lock(g_mutex);
  auto it = g_arrays.find(id);
  if (it == g_arrays.end())
    throw error("global_array request from rank " + std::to_string(source) + ": no array with id " +
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
  install_acc_handlers(rt);
  install_packed_handlers(rt);
  install_element_handlers(rt);
  install_cost_model_handlers(rt);
  // Arrays are created collectively, so every rank registers this section at the same point.
  add_report_section(rt);
}

}  // namespace gaea::ga::detail
