// gaea::counters::task_pool: numbered tasks handed out across ranks by a task_counter and run
// on oneTBB threads within each rank (Gaea has no thread pool of its own), with each run's
// statistics.

#include "gaea/counters/task_pool.hpp"

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <exception>
#include <mutex>
#include <optional>
#include <vector>

#include "detail/service.hpp"
#include "gaea/base/clock.hpp"
#include "gaea/coll/agreement.hpp"
#include "gaea/coll/group.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"
#include "gaea/trace/recorder.hpp"

namespace gaea::counters {

namespace {
double seconds(std::int64_t ns) {
  return static_cast<double>(ns) * 1e-9;
}
}  // namespace

struct task_pool::impl {
  std::string name;
  task_pool_options opt;
  runtime* rt;
  int threads;
  task_counter counter;
  task_stats last, total;

  impl(std::string nm, task_pool_options o, runtime& r, int nthreads)
      : name(std::move(nm)),
        opt(o),
        rt(&r),
        threads(nthreads),
        counter(name, std::int64_t{0}, with_threads(o.counter, nthreads)) {}
  static task_counter_options with_threads(task_counter_options c, int n) {
    c.threads_per_rank = n;
    return c;
  }
};

task_pool::task_pool(std::string name, task_pool_options opt) {
  runtime& rt = runtime::current();
  rt.require_owner_thread("task_pool construction");
  if (opt.threads < 0)
    throw error("task_pool '" + name + "': threads = " + std::to_string(opt.threads) +
                " must be >= 0 (0 = oneTBB's default)");
  const int n = opt.threads > 0 ? opt.threads : std::max(1, tbb::info::default_concurrency());
  impl_ = std::make_unique<impl>(std::move(name), opt, rt, n);
}

task_pool::~task_pool() = default;  // the counter's destructor is the collective part
task_pool::task_pool(task_pool&&) noexcept = default;

task_pool::impl& task_pool::live(const char* op) const {
  if (!impl_) throw error(std::string("task_pool: ") + op + " on a pool that was moved from");
  return *impl_;
}

int task_pool::threads() const {
  return live("threads()").threads;
}
const std::string& task_pool::name() const {
  return live("name()").name;
}
task_counter& task_pool::counter() {
  return live("counter()").counter;
}
const task_stats& task_pool::last() const {
  return live("last()").last;
}
const task_stats& task_pool::total() const {
  return live("total()").total;
}

task_stats task_pool::run_impl(std::int64_t n_tasks,
                               const std::function<void(std::int64_t, int)>& fn) {
  impl& p = live("run");
  runtime& rt = *p.rt;
  rt.require_owner_thread("task_pool::run");
  const trace::scoped_region run_region("task_pool.run");
  coll::agree_on(
      coll::world(),
      coll::call_record("task_pool", p.name, "run").add("n_tasks", std::to_string(n_tasks)));
  if (n_tasks < 0)
    throw error("task_pool '" + p.name + "': run(" + std::to_string(n_tasks) +
                ") — the number of tasks must be >= 0");
  p.counter.reset(n_tasks);  // collective

  struct per_thread {
    std::int64_t tasks = 0, fetches = 0, compute_ns = 0, wait_ns = 0;
  };
  std::vector<per_thread> figs(static_cast<std::size_t>(p.threads));
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&](int w) {
    per_thread& f = figs[static_cast<std::size_t>(w)];
    try {
      while (!failed.load(std::memory_order_relaxed)) {
        const std::int64_t t0 = gaea::monotonic_ns();
        const task_range r = p.counter.next();
        const std::int64_t t1 = gaea::monotonic_ns();
        f.wait_ns += t1 - t0;
        if (r.empty()) break;
        ++f.fetches;
        for (std::int64_t id = r.begin; id < r.end; ++id) {
          const trace::scoped_region task_region("task");
          fn(id, w);
          ++f.tasks;
        }
        f.compute_ns += gaea::monotonic_ns() - t1;
      }
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
      failed.store(true);
    }
  };

  const std::int64_t start = gaea::monotonic_ns();
  if (p.threads == 1) {
    work(0);
  } else {
    // oneTBB sizes its worker pool by the process affinity; allow more when asked for.
    std::optional<tbb::global_control> allow;
    if (p.threads > tbb::info::default_concurrency())
      allow.emplace(tbb::global_control::max_allowed_parallelism,
                    static_cast<std::size_t>(p.threads));
    tbb::task_arena arena(p.threads);
    if (p.opt.executor == pool_executor::threads) {
      // Workers 1..n-1 are tasks for the arena's oneTBB threads; this thread runs worker 0, then
      // waits inside Gaea, answering owner-served requests meanwhile. After its increment a
      // task touches only the runtime, which outlives the run.
      std::atomic<int> finished{0};
      for (int w = 1; w < p.threads; ++w)
        arena.enqueue([&work, &finished, w, engine = &rt.progress()] {
          work(w);
          finished.fetch_add(1, std::memory_order_acq_rel);
          engine->notify_waiters();  // the caller may be blocked waiting
        });
      work(0);
      rt.progress().wait_until(
          rt.worker(), [&] { return finished.load(std::memory_order_acquire) == p.threads - 1; },
          /*notified=*/true);
    } else {
      arena.execute([&] {
        tbb::parallel_for(
            0, p.threads, 1,
            [&](int) {
              // A thread that gets two items runs them one after the other: slots stay unique.
              work(tbb::this_task_arena::current_thread_index());
            },
            tbb::simple_partitioner());
      });
    }
  }
  const std::int64_t wall = gaea::monotonic_ns() - start;
  rt.barrier();  // every rank is done; the owner has answered every request

  task_stats s;
  s.threads = p.threads;
  s.wall_s = seconds(wall);
  std::int64_t compute = 0, wait = 0;
  for (const per_thread& f : figs) {
    s.tasks += f.tasks;
    s.fetches += f.fetches;
    compute += f.compute_ns;
    wait += f.wait_ns;
  }
  s.compute_s = seconds(compute);
  s.wait_s = seconds(wait);
  p.last = s;
  p.total.tasks += s.tasks;
  p.total.fetches += s.fetches;
  p.total.compute_s += s.compute_s;
  p.total.wait_s += s.wait_s;
  p.total.wall_s += s.wall_s;
  p.total.threads = s.threads;
  auto& g = counters::detail::stats();
  counters::detail::bump(g.pool_tasks, static_cast<std::uint64_t>(s.tasks));
  counters::detail::bump(g.pool_fetches, static_cast<std::uint64_t>(s.fetches));
  counters::detail::bump(g.pool_compute_ns, static_cast<std::uint64_t>(compute));
  counters::detail::bump(g.pool_wait_ns, static_cast<std::uint64_t>(wait));
  if (error) std::rethrow_exception(error);
  return s;
}

}  // namespace gaea::counters
