#pragma once
/// \file
/// gaea::counters::task_pool — dynamic load balancing of numbered tasks: ids 0..n−1 are handed out
/// across ranks by a gaea::counters::task_counter (any mode and variant) and run inside each rank
/// by several threads that pull ranges concurrently (oneTBB's).
///
///   gaea::counters::task_pool pool("fock");
///   std::vector<matrix> partial(pool.threads());           // one per worker
///   gaea::counters::for_each_task(pool, n_tasks, [&](std::int64_t t, int w) { work(t, partial[w]);
///   });

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>

#include "gaea/counters/task_counter.hpp"

namespace gaea::counters {

/// Figures of one rank (for one run, or summed over runs).
struct task_stats {
  std::int64_t tasks = 0;    ///< tasks this rank ran
  std::int64_t fetches = 0;  ///< non-empty ranges its threads took from the counter
  double compute_s = 0;      ///< time in the task function, summed over threads
  double wait_s = 0;         ///< time waiting for the counter, summed over threads
  double wall_s = 0;         ///< wall time of the run(s) on this rank, end barrier excluded
  int threads = 0;           ///< worker threads per rank
};

/// What runs a task_pool's worker threads.
enum class pool_executor {
  tbb,      ///< a oneTBB arena of `threads` slots (the workers pull tasks concurrently)
  threads,  ///< the calling thread plus `threads - 1` tasks on the arena's oneTBB threads; the
            ///< caller, its own share done, waits inside Gaea (serving owner-mode counters)
};

/// Options of a task_pool.
struct task_pool_options {
  /// Mode, variant, owner and chunk sizes of the counter (threads_per_rank is set by the pool).
  task_counter_options counter;
  /// Worker threads per rank, the calling thread included; 0 = oneTBB's default concurrency
  /// for this process (its CPU affinity: 1 when mpirun binds each rank to a core).
  int threads = 0;
  /// What runs the workers (default: a oneTBB arena). With one thread, the calling thread runs
  /// every task either way.
  pool_executor executor = pool_executor::tbb;
};

/// Collective object (construct, run and destroy on every rank, in the same order, from the
/// runtime's owner thread).
class task_pool {
 public:
  /// Collective. Throws gaea::error for bad options (threads < 0, bad counter options).
  explicit task_pool(std::string name = "tasks", task_pool_options opt = {});
  ~task_pool();  ///< collective
  /// Takes over the source's pool (local, no communication); the source is left unusable (its
  /// calls throw gaea::error).
  task_pool(task_pool&&) noexcept;
  task_pool& operator=(task_pool&&) = delete;

  /// Collective: runs `fn` once for every task id in [0, n_tasks) over all ranks and returns
  /// when every rank is done (it ends with a barrier). `fn(id)` or `fn(id, worker)`, where
  /// `worker` in [0, threads()) is unique among the threads running at the same time — index
  /// per-thread contexts with it. `fn` runs concurrently on several threads and must not make
  /// collective Gaea calls; one-sided ones are fine. Throws gaea::error if n_tasks < 0 or the
  /// pool was moved from. If `fn` throws on a rank, that rank stops taking tasks (the others
  /// take the rest; the ids left in the ranges that rank had taken are not run), and the first
  /// exception is rethrown there after the closing barrier.
  template <class Fn>
  task_stats run(std::int64_t n_tasks, Fn&& fn) {
    if constexpr (std::is_invocable_v<Fn&, std::int64_t, int>)
      return run_impl(n_tasks, [&fn](std::int64_t t, int w) { fn(t, w); });
    else
      return run_impl(n_tasks, [&fn](std::int64_t t, int) { fn(t); });
  }

  int threads() const;  ///< workers per rank
  /// The name given at construction (its counter is named after it). Like the other accessors,
  /// local; gaea::error on a moved-from pool.
  const std::string& name() const;
  task_counter& counter();          ///< the counter (mode, variant, owner, fetches)
  const task_stats& last() const;   ///< this rank's figures of the last run
  const task_stats& total() const;  ///< summed over runs

 private:
  struct impl;
  impl& live(const char* op) const;
  task_stats run_impl(std::int64_t n_tasks, const std::function<void(std::int64_t, int)>& fn);
  std::unique_ptr<impl> impl_;
};

/// Runs tasks 0..n_tasks−1 on `pool` (collective): see task_pool::run.
template <class Fn>
task_stats for_each_task(task_pool& pool, std::int64_t n_tasks, Fn&& fn) {
  return pool.run(n_tasks, std::forward<Fn>(fn));
}

}  // namespace gaea::counters
