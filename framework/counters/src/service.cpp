// The owner side of the progress- and owner-served counters: the counter registry, the handlers,
// the owner's request queue, and the module's GAEA_REPORT figures.

#include "detail/service.hpp"

#include <atomic>
#include <cstring>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

#include "gaea/base/error.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/extension.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::counters::detail {

namespace {
std::mutex g_registry_mutex;
std::unordered_map<std::uint64_t, std::int64_t*> g_values;
std::atomic<std::uint64_t> g_next_id{1};

struct queued {
  comm::deferred_reply token;
  request req;
};
std::mutex g_queue_mutex;
std::vector<queued> g_queue;
std::atomic<std::int64_t> g_queued{0};

std::int64_t* find_value(std::uint64_t id) {
  std::lock_guard lock(g_registry_mutex);
  const auto it = g_values.find(id);
  return it == g_values.end() ? nullptr : it->second;
}

request parse(const comm::am_message& m) {
  request r{};
  if (m.header.size() != sizeof r)
    throw error("shared_counter request from rank " + std::to_string(m.source) + ": " +
                std::to_string(m.header.size()) + "-byte header, expected " +
                std::to_string(sizeof r));
  std::memcpy(&r, m.header.data(), sizeof r);
  if (r.kind != static_cast<std::uint32_t>(op_kind::fetch_add) &&
      r.kind != static_cast<std::uint32_t>(op_kind::compare_swap))
    throw error("shared_counter request from rank " + std::to_string(m.source) +
                ": unknown operation " + std::to_string(r.kind));
  return r;
}

void on_progress_request(const comm::am_message& m) {
  const request r = parse(m);
  std::int64_t* v = find_value(r.counter_id);
  if (!v)
    throw error("shared_counter request from rank " + std::to_string(m.source) +
                ": no counter with id " + std::to_string(r.counter_id) + " on this rank");
  const std::int64_t old = apply(v, r);
  m.reply(std::as_bytes(std::span(&old, 1)));
  bump(stats().served_progress);
}
}  // namespace

std::int64_t apply(std::int64_t* value, const request& r) {
  std::atomic_ref<std::int64_t> a(*value);
  if (r.kind == static_cast<std::uint32_t>(op_kind::fetch_add))
    return a.fetch_add(r.a, std::memory_order_acq_rel);
  std::int64_t expected = r.a;
  a.compare_exchange_strong(expected, r.b, std::memory_order_acq_rel);
  return expected;  // the previous value, whether or not it was swapped
}

std::uint64_t next_counter_id() {
  return g_next_id.fetch_add(1, std::memory_order_relaxed);
}

void register_counter(std::uint64_t id, std::int64_t* value) {
  std::lock_guard lock(g_registry_mutex);
  g_values[id] = value;
}

void unregister_counter(std::uint64_t id) {
  std::lock_guard lock(g_registry_mutex);
  g_values.erase(id);
}

std::int64_t owner_queue_length() noexcept {
  return g_queued.load(std::memory_order_acquire);
}

unsigned serve_owner_queue(runtime& rt) {
  if (g_queued.load(std::memory_order_acquire) == 0) return 0;
  std::vector<queued> batch;
  {
    std::lock_guard lock(g_queue_mutex);
    batch.swap(g_queue);
    g_queued.store(0, std::memory_order_release);
  }
  for (const queued& q : batch) {
    std::int64_t* v = find_value(q.req.counter_id);
    if (!v) {  // the origin's wait throws gaea::error
      rt.comm().send_deferred_reply(q.token, {}, comm::completion::handler_failed);
      continue;
    }
    const std::int64_t old = apply(v, q.req);
    rt.comm().send_deferred_reply(q.token, std::as_bytes(std::span(&old, 1)));
  }
  bump(stats().served_owner, batch.size());
  return static_cast<unsigned>(batch.size());
}

figures& stats() {
  static figures f;
  return f;
}

void install(runtime& rt) {
  if (rt.comm().has_handler(progress_handler)) return;
  rt.comm().register_handler(progress_handler, on_progress_request);
  rt.comm().register_handler(owner_handler, [&rt](const comm::am_message& m) {
    const request r = parse(m);
    {
      std::lock_guard lock(g_queue_mutex);
      g_queue.push_back({m.defer(), r});
      g_queued.fetch_add(1, std::memory_order_acq_rel);
    }
    // The main thread may be blocked in a wait: wake it so that it runs its app poll.
    rt.progress().notify_waiters();
  });
  gaea::add_app_poll(rt, [&rt] { return serve_owner_queue(rt); });
  // Counters are created collectively, so every rank registers this section at the same point.
  gaea::add_report_section(rt, "counters",
                           {report_count("ops"), "op_ms", report_count("served_by_progress_thread"),
                            report_count("served_by_main_thread"), report_count("pool_tasks"),
                            report_count("pool_fetches"), "pool_compute_ms", "pool_wait_ms"},
                           [] {
                             const figures& f = stats();
                             auto ld = [](const std::atomic<std::uint64_t>& a) {
                               return static_cast<double>(a.load(std::memory_order_relaxed));
                             };
                             return std::vector<double>{ld(f.ops),
                                                        ld(f.op_ns) * 1e-6,
                                                        ld(f.served_progress),
                                                        ld(f.served_owner),
                                                        ld(f.pool_tasks),
                                                        ld(f.pool_fetches),
                                                        ld(f.pool_compute_ns) * 1e-6,
                                                        ld(f.pool_wait_ns) * 1e-6};
                           });
}

}  // namespace gaea::counters::detail
