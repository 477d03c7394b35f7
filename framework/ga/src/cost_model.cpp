// The calibrated strided cost model (strided_model, gaea/ga/protocol.hpp): measured per target
// with a few round trips on first use, then cached for the runtime.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "detail/registry.hpp"
#include "detail/wire.hpp"
#include "gaea/base/clock.hpp"
#include "gaea/base/detail/copy.hpp"
#include "gaea/base/detail/median.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/ga/detail/array_core.hpp"
#include "gaea/ga/protocol.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga::detail {

namespace {

// A round trip through the owner's progress thread, for calibrate() below: the header asks for a
// reply of that many bytes (at most the reply buffer).
void on_ping(const comm::am_message& m) {
  std::uint64_t want = 0;
  if (m.header.size() == sizeof want) std::memcpy(&want, m.header.data(), sizeof want);
  std::vector<std::byte> reply(std::min<std::size_t>(want, m.reply_capacity));
  m.reply(reply);
}

using gaea::detail::median;

// memcpy cost per byte on this rank, measured once (warm 256 KiB copies).
double copy_cost_per_byte() {
  static const double cost = [] {
    constexpr std::size_t n = 256 * 1024;
    std::vector<std::byte> a(n, std::byte{1}), b(n);
    std::vector<double> t;
    for (int i = 0; i < 7; ++i) {
      const std::int64_t t0 = gaea::monotonic_ns();
      gaea::detail::copy_bytes(b.data(), a.data(), n);
      t.push_back(static_cast<double>(gaea::monotonic_ns() - t0) * 1e-9 / n);
      a[static_cast<std::size_t>(i)] = b[n - 1];  // keep the copies observable
    }
    return median(t);
  }();
  return cost;
}

// Models per target for the live runtime. Entries are allocated once and never move, so arrays
// may keep pointers to them.
struct model_cache {
  std::mutex mutex;
  std::uint64_t instance = 0;
  std::vector<std::unique_ptr<strided_model>> models;
};
model_cache& cache() {
  static model_cache c;
  return c;
}

}  // namespace

strided_model array_core::model_for(int target) {
  if (target < 0 || target >= rt_.size())
    throw error("global_array '" + name_ + "': cost model for rank " + std::to_string(target) +
                ", which is not in [0, " + std::to_string(rt_.size()) + ")");
  std::atomic<const strided_model*>& mine = models_[static_cast<std::size_t>(target)];
  if (const strided_model* m = mine.load(std::memory_order_acquire)) return *m;
  model_cache& c = cache();
  // Held while measuring: other threads wanting a model wait for this one instead of measuring
  // again (the measurement only needs this thread's worker and the target's progress).
  std::lock_guard lock(c.mutex);
  if (c.instance != rt_.instance()) {
    c.instance = rt_.instance();
    c.models.clear();
    c.models.resize(static_cast<std::size_t>(rt_.size()));
  }
  auto& m = c.models[static_cast<std::size_t>(target)];
  if (!m) {
    auto fresh = std::make_unique<strided_model>();
    calibrate(target, *fresh);
    m = std::move(fresh);
  }
  mine.store(m.get(), std::memory_order_release);
  return *m;
}

void array_core::calibrate(int target, strided_model& m) {
  comm::worker& w = rt_.worker();
  constexpr std::size_t batch = 64, probe = 256 * 1024;
  // Small gets read the target's lock word over and over (remote stride 0): real RMA, no data
  // needed. The per-byte probe reads as much of the target's storage as there is, up to 256 KiB:
  // over tcp a 64 KiB probe made software RMA look as cheap per byte as a message, and the model
  // chose zero-copy for large chunks at a third of packed's bandwidth.
  std::vector<std::byte> sink(probe);
  const std::uint64_t lock = lock_offset(target);
  const std::size_t big = std::min<std::size_t>(probe, lock);
  auto seconds_since = [](std::int64_t t0) {
    return static_cast<double>(gaea::monotonic_ns() - t0) * 1e-9;
  };
  auto time_gets = [&](std::size_t rows) {
    const std::int64_t t0 = gaea::monotonic_ns();
    comm::completion c;
    w.get_strided(target, *seg_, lock, 0, sink.data(), 8, 8, rows, c);
    rt_.wait(c);
    return seconds_since(t0);
  };
  auto time_big_get = [&] {
    const std::int64_t t0 = gaea::monotonic_ns();
    comm::completion c;
    w.get(target, *seg_, 0, sink.data(), big, c);
    rt_.wait(c);
    return seconds_since(t0);
  };
  auto time_ping = [&](std::uint64_t reply_bytes) {
    const std::int64_t t0 = gaea::monotonic_ns();
    comm::completion local, remote;
    w.am_send(target, ping_handler, std::as_bytes(std::span(&reply_bytes, 1)), {}, local, &remote,
              std::span(sink.data(), reply_bytes));
    rt_.wait(remote);
    rt_.wait(local);
    return seconds_since(t0);
  };
  // Warm up keys, endpoints and caches, then take medians of 7.
  time_gets(1);
  time_ping(8);
  time_ping(probe);
  if (big >= 4096) time_big_get();
  std::vector<double> one, many, ping, ping_big, get_big;
  for (int i = 0; i < 7; ++i) {
    one.push_back(time_gets(1));
    many.push_back(time_gets(batch + 1));
    ping.push_back(time_ping(8));
    ping_big.push_back(time_ping(probe));
    if (big >= 4096) get_big.push_back(time_big_get());
  }
  m.rma_first_s = median(one);
  m.rma_chunk_s = std::max(0.0, (median(many) - m.rma_first_s) / batch);
  m.message_s = median(ping);
  m.message_s_per_byte = std::max(0.0, (median(ping_big) - m.message_s) / (probe - 8));
  m.copy_s_per_byte = copy_cost_per_byte();
  // Too little storage to measure: assume RMA streams like a message (the terms then cancel).
  m.rma_s_per_byte =
      big >= 4096 ? std::max(0.0, (median(get_big) - m.rma_first_s) / static_cast<double>(big - 8))
                  : m.message_s_per_byte;
  m.calibrated = true;
}

void install_cost_model_handlers(runtime& rt) {
  rt.comm().register_handler(ping_handler, on_ping);
}

}  // namespace gaea::ga::detail
