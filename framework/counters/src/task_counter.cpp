// gaea::counters::task_counter: hands out task ids, each once: one per fetch, guided batches,
// or from a per-node counter in node shared memory refilled in chunks from the global one.

#include "gaea/counters/task_counter.hpp"

#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <limits>

#include "gaea/coll/agreement.hpp"
#include "gaea/coll/group.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/counters/shared_counter.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/communicator.hpp"
#include "gaea/runtime/detail/tied_destructor.hpp"
#include "gaea/runtime/runtime.hpp"
#include "gaea/trace/recorder.hpp"

namespace gaea::counters {

namespace {
using u64 = std::uint64_t;
std::atomic<u64> g_task_counters{0};  // creation order, the same on every rank

// The node-level counter, in node shared memory on the node's first rank. Guarded by `lock`
// (a CPU spin lock: holders only update the block, or refill it with one global fetch).
struct node_block {
  std::int64_t lock;
  std::int64_t exhausted;
  u64 lo, hi;  // offsets still to hand out on this node: [lo, hi)
};
static_assert(sizeof(node_block) == 32);
}  // namespace

struct task_counter::impl {
  std::string name;
  task_counter_options opt;
  runtime* rt = nullptr;
  std::uint64_t rt_instance = 0;  // rt is alive while runtime::is_live(rt_instance)
  shared_counter global;
  std::int64_t begin = 0;
  u64 n = 0;                 // ids in the range
  u64 consumers = 1;         // threads over all ranks that call next()
  u64 cap = 1;               // largest chunk (bounds the overshoot past the end, see header)
  std::atomic<u64> seen{0};  // largest offset this rank has seen taken: remaining <= n - seen
  std::atomic<bool> exhausted{false};
  std::atomic<std::int64_t> fetches{0};
  // hierarchical
  MPI_Win win = MPI_WIN_NULL;
  node_block* node = nullptr;

  impl(std::string nm, const task_counter_options& o, runtime& r, int owner)
      : name(std::move(nm)),
        opt(o),
        rt(&r),
        rt_instance(r.instance()),
        global(name + ".global", owner, 0, o.mode) {}

  u64 guided(u64 remaining, u64 parties) const {
    if (opt.variant == dispense::single) return 1;
    u64 c = remaining / (static_cast<u64>(opt.guided_k) * std::max<u64>(parties, 1));
    c = std::max<u64>(c, static_cast<u64>(opt.min_chunk));
    if (opt.max_chunk > 0) c = std::min<u64>(c, static_cast<u64>(opt.max_chunk));
    return std::clamp<u64>(c, 1, cap);
  }

  void note_seen(u64 v) {
    u64 s = seen.load(std::memory_order_relaxed);
    while (s < v && !seen.compare_exchange_weak(s, v, std::memory_order_relaxed)) {
    }
  }

  // One fetch from the global counter: [start, start + chunk) clipped to n, or nothing.
  bool fetch_global(u64 chunk, u64& lo, u64& hi) {
    const u64 start = static_cast<u64>(global.fetch_add(static_cast<std::int64_t>(chunk)));
    fetches.fetch_add(1, std::memory_order_relaxed);
    note_seen(start + chunk);
    if (start >= n) return false;
    lo = start;
    hi = std::min(start + chunk, n);
    return true;
  }

  task_range to_ids(u64 lo, u64 hi) const {
    // begin + offset < end <= INT64_MAX: exact in unsigned arithmetic, then representable.
    return {static_cast<std::int64_t>(static_cast<u64>(begin) + lo),
            static_cast<std::int64_t>(static_cast<u64>(begin) + hi)};
  }

  task_range next_flat() {
    const u64 s = seen.load(std::memory_order_relaxed);
    const u64 chunk = guided(n > s ? n - s : 0, consumers);
    u64 lo = 0, hi = 0;
    if (!fetch_global(chunk, lo, hi)) {
      exhausted.store(true, std::memory_order_release);
      return {};
    }
    return to_ids(lo, hi);
  }

  void lock_node() {
    std::atomic_ref<std::int64_t> l(node->lock);
    auto try_lock = [&l] {
      std::int64_t free = 0;
      return l.load(std::memory_order_relaxed) == 0 &&
             l.compare_exchange_strong(free, 1, std::memory_order_acquire);
    };
    if (try_lock()) return;
    // The holder may be waiting for a global fetch that this rank must serve (progress off,
    // owner mode): wait inside Gaea, so that this thread keeps serving.
    rt->progress().wait_until(rt->worker(), try_lock);
  }
  void unlock_node() {
    std::atomic_ref<std::int64_t>(node->lock).store(0, std::memory_order_release);
  }

  task_range next_hierarchical() {
    lock_node();
    try {
      std::atomic_ref<std::int64_t> ex(node->exhausted);
      if (ex.load(std::memory_order_relaxed) != 0) {
        unlock_node();
        exhausted.store(true, std::memory_order_release);
        return {};
      }
      if (node->lo >= node->hi) {
        const u64 s = seen.load(std::memory_order_relaxed);
        const u64 chunk = guided(n > s ? n - s : 0, static_cast<u64>(rt->nodes()));
        u64 lo = 0, hi = 0;
        if (!fetch_global(chunk, lo, hi)) {
          ex.store(1, std::memory_order_relaxed);
          unlock_node();
          exhausted.store(true, std::memory_order_release);
          return {};
        }
        node->lo = lo;
        node->hi = hi;
      }
      const u64 local_parties =
          static_cast<u64>(rt->node_size()) * static_cast<u64>(opt.threads_per_rank);
      const u64 take = std::min(guided(node->hi - node->lo, local_parties), node->hi - node->lo);
      const u64 lo = node->lo;
      node->lo += take;
      unlock_node();
      return to_ids(lo, lo + take);
    } catch (...) {
      unlock_node();
      throw;
    }
  }

  void set_range(task_range all) {
    if (all.end < all.begin)
      throw error("task_counter '" + name + "': range [" + std::to_string(all.begin) + ", " +
                  std::to_string(all.end) + ") has a negative size");
    const u64 count = static_cast<u64>(all.end) - static_cast<u64>(all.begin);
    if (count > static_cast<u64>(std::numeric_limits<std::int64_t>::max()))
      throw error("task_counter '" + name + "': range [" + std::to_string(all.begin) + ", " +
                  std::to_string(all.end) + ") holds more than 2^63 - 1 ids");
    begin = all.begin;
    n = count;
    seen.store(0);
    exhausted.store(n == 0);
  }

  void init_node(bool leader) {
    if (leader) {
      node->lock = 0;
      node->exhausted = 0;
      node->lo = node->hi = 0;
    }
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
};

namespace {
std::string range_text(task_range r) {
  return "[" + std::to_string(r.begin) + ", " + std::to_string(r.end) + ")";
}

void check_options(const std::string& name, const task_counter_options& o, const runtime& rt) {
  auto bad = [&name](const std::string& what) {
    throw error("task_counter '" + name + "': " + what);
  };
  if (o.guided_k < 1) bad("guided_k = " + std::to_string(o.guided_k) + " must be >= 1");
  if (o.min_chunk < 1) bad("min_chunk = " + std::to_string(o.min_chunk) + " must be >= 1");
  if (o.max_chunk < 0) bad("max_chunk = " + std::to_string(o.max_chunk) + " must be >= 0");
  if (o.max_chunk > 0 && o.max_chunk < o.min_chunk)
    bad("max_chunk = " + std::to_string(o.max_chunk) +
        " < min_chunk = " + std::to_string(o.min_chunk));
  if (o.threads_per_rank < 1)
    bad("threads_per_rank = " + std::to_string(o.threads_per_rank) + " must be >= 1");
  if (o.owner != task_counter_options::spread && (o.owner < 0 || o.owner >= rt.size()))
    bad("owner rank " + std::to_string(o.owner) + " is not in [0, " + std::to_string(rt.size()) +
        ") nor task_counter_options::spread");
}
}  // namespace

task_counter::task_counter(std::string name, std::int64_t n_tasks, task_counter_options opt)
    : task_counter(std::move(name), task_range{0, n_tasks}, opt) {}

task_counter::task_counter(std::string name, task_range all, task_counter_options opt) {
  runtime& rt = runtime::current();
  rt.require_owner_thread("task_counter construction");
  // threads_per_rank may differ (each rank's own threads); the rest must agree.
  coll::agree_on(
      coll::world(),
      coll::call_record("task_counter", name, "created")
          .add("range", range_text(all))
          .add("owner", opt.owner == task_counter_options::spread ? std::string("spread")
                                                                  : std::to_string(opt.owner))
          .add("variant", std::string(to_string(opt.variant)))
          .add("mode", opt.mode ? std::string(to_string(*opt.mode)) : "default")
          .add("chunks", "guided_k " + std::to_string(opt.guided_k) + ", min " +
                             std::to_string(opt.min_chunk) + ", max " +
                             std::to_string(opt.max_chunk)));
  check_options(name, opt, rt);
  const u64 seq = g_task_counters.fetch_add(1);
  const int owner = opt.owner == task_counter_options::spread
                        ? static_cast<int>(seq % static_cast<u64>(rt.size()))
                        : opt.owner;
  auto p = std::make_unique<impl>(std::move(name), opt, rt, owner);
  p->set_range(all);
  p->consumers = static_cast<u64>(rt.size()) * static_cast<u64>(opt.threads_per_rank);
  // With at most 64 threads per rank in next() at once, the overshoot past the end is below
  // 2^62, so offsets (< 2^63 + 2^62) never wrap.
  p->cap = std::max<u64>(1, (u64{1} << 62) / (static_cast<u64>(rt.size()) * 64));
  if (opt.variant == dispense::hierarchical) {
    // Node shared memory through MPI: works whatever UCX transports are enabled. All ranks are
    // here after the counter's barrier, so a blocking MPI collective cannot starve a peer.
    const bool leader = rt.node_rank() == 0;
    void* base = nullptr;
    MPI_Win_allocate_shared(leader ? static_cast<MPI_Aint>(sizeof(node_block)) : 0, 1,
                            MPI_INFO_NULL, gaea::node_comm(rt), &base, &p->win);
    MPI_Aint size = 0;
    int disp = 0;
    MPI_Win_shared_query(p->win, 0, &size, &disp, &base);
    p->node = static_cast<node_block*>(base);
    p->init_node(leader);
    rt.barrier();
  }
  impl_ = std::move(p);
}

task_counter::~task_counter() {
  if (!impl_) return;
  gaea::detail::tied_destructor_call(
      impl_->rt_instance,
      "gaea: destroying task_counter '" + impl_->name + "': ", [this] { destroy(); },
      [this] { (void)impl_.release(); });  // MPI is gone: its window and segments stay
}

task_counter::task_counter(task_counter&& o) noexcept : impl_(std::move(o.impl_)) {}

task_counter& task_counter::operator=(task_counter&& o) {
  if (this != &o) {
    if (impl_) destroy();
    impl_ = std::move(o.impl_);
  }
  return *this;
}

void task_counter::destroy() {
  impl& p = live("destroy");
  p.rt->require_owner_thread("task_counter::destroy");
  // During unwinding or after a failure the other ranks may never come: the window (collective to
  // free) is left to the end of the job.
  if (p.win != MPI_WIN_NULL && p.rt->may_synchronize()) {
    p.rt->barrier();  // nobody touches the node block any more
    MPI_Win_free(&p.win);
  }
  p.global.destroy();  // collective, with its own barrier
  impl_.reset();
}

task_counter::impl& task_counter::live(const char* op) const {
  if (!impl_)
    throw error(std::string("task_counter: ") + op +
                " on a counter that was destroyed or moved from");
  return *impl_;
}

task_range task_counter::next() {
  impl& p = live("next");
  const trace::scoped_region region("task_counter.next");
  if (p.exhausted.load(std::memory_order_acquire)) return {};
  return p.opt.variant == dispense::hierarchical ? p.next_hierarchical() : p.next_flat();
}

void task_counter::reset(task_range all) {
  impl& p = live("reset");
  p.rt->require_owner_thread("task_counter::reset");
  coll::agree_on(coll::world(),
                 coll::call_record("task_counter", p.name, "reset").add("range", range_text(all)));
  p.rt->barrier();  // every rank is done with the old range
  p.set_range(all);
  if (p.node) p.init_node(p.rt->node_rank() == 0);
  p.fetches.store(0);
  p.global.reset(0);  // collective, ends with a barrier
}

task_range task_counter::range() const {
  const impl& p = live("range()");
  return p.to_ids(0, p.n);
}
int task_counter::owner() const {
  return live("owner()").global.owner();
}
counter_mode task_counter::mode() const {
  return live("mode()").global.mode();
}
dispense task_counter::variant() const {
  return live("variant()").opt.variant;
}
const std::string& task_counter::name() const {
  return live("name()").name;
}
std::int64_t task_counter::global_fetches() const {
  return live("global_fetches()").fetches.load(std::memory_order_relaxed);
}

}  // namespace gaea::counters
