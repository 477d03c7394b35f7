// gaea::counters: dynamic load balancing. A shared counter on rank 0 hands out task ids one at a
// time; then a task_counter hands out the same tasks in guided batches. Each rank counts the
// tasks it ran, and an allreduce checks that every task ran exactly once, whatever the number of
// ranks and however fast each one is.
//   mpirun -np 4 gaea-example-counters
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <span>
#include <thread>
#include <vector>

#include "gaea/coll/collectives.hpp"
#include "gaea/counters/shared_counter.hpp"
#include "gaea/counters/task_counter.hpp"
#include "gaea/runtime/runtime.hpp"

namespace {
// A task whose cost depends on the rank, so that the counter has something to balance.
void run_task(int rank) {
  std::this_thread::sleep_for(std::chrono::microseconds(20 * (rank + 1)));
}
}  // namespace

int main(int argc, char** argv) {
  return gaea::run_main("gaea-example-counters", &argc, &argv, [](gaea::runtime& rt) {
    constexpr std::int64_t n_tasks = 200;
    std::vector<std::int64_t> ran(n_tasks, 0);  // how often this rank ran each task

    // One id per fetch_add: simple, a round trip per task.
    gaea::counters::shared_counter next("next task");  // collective; lives on rank 0
    std::int64_t mine_single = 0;
    for (std::int64_t t = next.fetch_add(1); t < n_tasks; t = next.fetch_add(1)) {
      run_task(rt.rank());
      ++ran[static_cast<std::size_t>(t)];
      ++mine_single;
    }

    // Guided batches: large chunks first, smaller ones near the end (fewer round trips).
    gaea::counters::task_counter tasks("batched tasks", n_tasks);  // collective
    std::int64_t mine_batched = 0;
    for (auto r = tasks.next(); !r.empty(); r = tasks.next())
      for (std::int64_t t = r.begin; t < r.end; ++t) {
        run_task(rt.rank());
        ran[static_cast<std::size_t>(t)] += 1000;  // the second pass counts in thousands
        ++mine_batched;
      }

    // Every task must have run once in each pass, on exactly one rank.
    const auto& world = gaea::coll::world();
    gaea::coll::allreduce(world, std::span(ran), gaea::coll::reduce_op::sum);
    int bad = 0;
    for (const std::int64_t c : ran)
      bad += c != 1001;
    const auto singles = gaea::coll::allgather(world, mine_single);
    if (rt.rank() == 0) {
      std::printf("counters: %lld tasks twice on %d ranks, one-at-a-time split",
                  static_cast<long long>(n_tasks), rt.size());
      for (const std::int64_t s : singles)
        std::printf(" %lld", static_cast<long long>(s));
      std::printf(", rank 0 ran %lld batched (%lld counter fetches): %s\n",
                  static_cast<long long>(mine_batched),
                  static_cast<long long>(tasks.global_fetches()), bad == 0 ? "ok" : "FAILED");
    }
    return bad == 0 ? 0 : 1;
  });
}
