// Protocol settings (see gaea/ga/protocol.hpp); the cost model is in cost_model.cpp.
#include "gaea/ga/protocol.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "detail/registry.hpp"
#include "detail/wire.hpp"
#include "gaea/base/env.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/ga/detail/array_core.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga {

namespace {
// -1: not set yet (the environment decides when the first array is created).
std::atomic<int> g_strided{-1};
std::atomic<int> g_acc{-1};
std::atomic<std::size_t> g_acc_chunk{0};
}  // namespace

strided_protocol current_strided_protocol() noexcept {
  const int v = g_strided.load(std::memory_order_relaxed);
  return v < 0 ? strided_protocol::automatic : static_cast<strided_protocol>(v);
}
void set_strided_protocol(strided_protocol p) noexcept {
  g_strided.store(static_cast<int>(p), std::memory_order_relaxed);
}
acc_protocol current_acc_protocol() noexcept {
  const int v = g_acc.load(std::memory_order_relaxed);
  return v < 0 ? acc_protocol::automatic : static_cast<acc_protocol>(v);
}
void set_acc_protocol(acc_protocol p) noexcept {
  g_acc.store(static_cast<int>(p), std::memory_order_relaxed);
}
std::size_t current_acc_chunk_bytes() noexcept {
  return g_acc_chunk.load(std::memory_order_relaxed);
}
void set_acc_chunk_bytes(std::size_t bytes) noexcept {
  g_acc_chunk.store(bytes, std::memory_order_relaxed);
}

namespace {
const env::setting<strided_protocol> strided_setting{
    {"GAEA_STRIDED", "auto",
     "strided get/put protocol: auto (per owner piece, whichever the calibrated cost model "
     "says is faster) | zero_copy (one RMA per contiguous chunk) | packed (one message per "
     "owner piece, packed and unpacked by the two sides)",
     env::value_kind::choice, "auto|zero_copy|packed", 0, "ga"}};
const env::setting<acc_protocol> acc_setting{
    {"GAEA_ACC", "auto",
     "accumulate protocol: auto (per owner: add straight into its memory under its striped "
     "locks when mapped on this node, else target) | target (an active message the owner "
     "applies) | source (lock the owner, get, add, put, unlock: the classic scheme, for "
     "comparison)",
     env::value_kind::choice, "auto|target|source", 0, "ga"}};
}  // namespace

namespace detail {

void init_protocols_from_env() {
  int unset = -1;
  g_strided.compare_exchange_strong(unset, static_cast<int>(strided_setting.read()));
  unset = -1;
  g_acc.compare_exchange_strong(unset, static_cast<int>(acc_setting.read()));
}

// Called by gaea::gaea's gaea_settings_anchor.cpp so that every program loads this module and
// so registers its settings (cmake/gaea_settings_anchor.cpp says why).
void link_settings() noexcept {}

}  // namespace detail
}  // namespace gaea::ga
