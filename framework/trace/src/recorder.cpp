// The per-thread buffers of gaea/trace/recorder.hpp and the session that owns them.
#include "gaea/trace/recorder.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <set>

namespace gaea::trace {

namespace detail {

std::atomic<bool> g_recording{false};

// One thread's events: written by that thread only; count is published with release so that
// collect() reads complete events.
struct thread_buffer {
  std::uint32_t index = 0;
  std::string name;
  std::uint64_t capacity = 0;
  std::unique_ptr<event[]> data;  // allocated on the first event
  std::atomic<std::uint64_t> count{0}, dropped{0};
  std::uint64_t begun = 0;  // owner thread only

  void push(const event& e) noexcept {
    const std::uint64_t n = count.load(std::memory_order_relaxed);
    if (n >= capacity) {
      dropped.store(dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      return;
    }
    if (!data) {
      try {
        data = std::make_unique_for_overwrite<event[]>(capacity);
      } catch (...) {  // no memory for the buffer: this thread's events are dropped
        capacity = 0;
        dropped.store(dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        return;
      }
    }
    data[n] = e;
    count.store(n + 1, std::memory_order_release);
  }
};

namespace {
struct session {
  std::mutex mutex;
  std::vector<std::unique_ptr<thread_buffer>> threads;
  std::uint64_t capacity = 0;
  std::atomic<std::uint64_t> generation{0};  // 0: no session yet
};
session& the_session() {
  static session s;
  return s;
}
struct cache {
  std::uint64_t generation = 0;
  thread_buffer* buf = nullptr;
};
thread_local cache t_cache;
}  // namespace

thread_buffer* this_buffer() noexcept {
  session& s = the_session();
  const std::uint64_t g = s.generation.load(std::memory_order_acquire);
  if (t_cache.generation == g && t_cache.buf) return t_cache.buf;
  if (g == 0) return nullptr;
  try {
    std::lock_guard lock(s.mutex);
    auto b = std::make_unique<thread_buffer>();
    b->index = static_cast<std::uint32_t>(s.threads.size());
    b->name = "thread " + std::to_string(b->index);
    b->capacity = s.capacity;
    s.threads.push_back(std::move(b));
    t_cache = {s.generation.load(std::memory_order_relaxed), s.threads.back().get()};
    return t_cache.buf;
  } catch (...) {  // out of memory: this thread records nothing rather than fail the run
    return nullptr;
  }
}

void note_begin(thread_buffer* b) noexcept {
  if (b) ++b->begun;
}

void record_region(thread_buffer* b, const char* name, std::int64_t t0_ns,
                   const region_args& a) noexcept {
  if (!b) return;
  event e;
  e.t0_ns = t0_ns;
  e.t1_ns = now_ns();
  e.bytes = a.bytes;
  e.peer = a.peer;
  e.name = name;
  e.kind = event::region;
  b->push(e);
}

void record_counter(const char* name, double value) noexcept {
  thread_buffer* b = this_buffer();
  if (!b) return;
  event e;
  e.t0_ns = e.t1_ns = now_ns();
  e.value = value;
  e.name = name;
  e.kind = event::counter;
  b->push(e);
}

}  // namespace detail

std::uint64_t regions_begun() noexcept {
  if (!recording()) return 0;
  const detail::thread_buffer* b = detail::this_buffer();
  return b ? b->begun : 0;
}

const char* intern(std::string_view name) {
  static std::mutex m;
  static std::set<std::string, std::less<>> names;  // nodes never move
  std::lock_guard lock(m);
  auto it = names.find(name);
  if (it == names.end()) it = names.emplace(name).first;
  return it->c_str();
}

void start(std::uint64_t events_per_thread, bool record) {
  detail::session& s = detail::the_session();
  detail::g_recording.store(false, std::memory_order_relaxed);
  {
    std::lock_guard lock(s.mutex);
    s.threads.clear();
    s.capacity = std::max<std::uint64_t>(events_per_thread, 1);
    s.generation.fetch_add(1, std::memory_order_acq_rel);
  }
  name_thread("main");
  detail::g_recording.store(record, std::memory_order_release);
}

void stop() noexcept {
  detail::g_recording.store(false, std::memory_order_release);
}

std::uint32_t thread_index() noexcept {
  const detail::thread_buffer* b = detail::this_buffer();
  return b ? b->index : 0;
}

void name_thread(std::string name) {
  detail::thread_buffer* b = detail::this_buffer();
  if (!b) return;
  std::lock_guard lock(detail::the_session().mutex);  // collect() reads names under it
  b->name = std::move(name);
}

std::vector<thread_record> collect() {
  detail::session& s = detail::the_session();
  std::lock_guard lock(s.mutex);
  std::vector<thread_record> out;
  out.reserve(s.threads.size());
  for (const auto& b : s.threads) {
    thread_record r;
    r.index = b->index;
    r.name = b->name;
    const std::uint64_t n = b->count.load(std::memory_order_acquire);
    if (n > 0) r.events.assign(b->data.get(), b->data.get() + n);
    r.dropped = b->dropped.load(std::memory_order_relaxed);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace gaea::trace
