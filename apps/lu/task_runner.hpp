#pragma once
/// \file
/// Runs independent tile tasks of one rank: in a oneTBB arena when the rank has more than one
/// thread, in a plain loop otherwise (no scheduler overhead on a rank with one core).

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <cstddef>
#include <memory>

namespace lu {

class task_runner {
 public:
  /// `threads` >= 1: the arena's concurrency.
  explicit task_runner(int threads)
      : threads_(threads < 1 ? 1 : threads),
        arena_(threads_ > 1 ? std::make_unique<tbb::task_arena>(threads_) : nullptr) {}
  int threads() const noexcept { return threads_; }
  /// Calls fn(i) for i in [0, n), one tile per task. Must be called from one thread at a time.
  template <class Fn>
  void run(std::size_t n, Fn&& fn) {
    if (!arena_ || n < 2) {
      for (std::size_t i = 0; i < n; ++i)
        fn(i);
      return;
    }
    arena_->execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 1),
                        [&](const tbb::blocked_range<std::size_t>& r) {
                          for (std::size_t i = r.begin(); i != r.end(); ++i)
                            fn(i);
                        });
    });
  }

 private:
  int threads_;
  std::unique_ptr<tbb::task_arena> arena_;
};

}  // namespace lu
