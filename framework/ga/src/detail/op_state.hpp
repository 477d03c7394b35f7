#pragma once
// State of one get/put/acc (blocking or not): its completion, the buffers that must live until
// it completes, the work to do after it completes (unpacking) and its statistics.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "gaea/base/detail/request_handle.hpp"
#include "gaea/comm/completion.hpp"
#include "gaea/ga/stats.hpp"

namespace gaea {
class runtime;
namespace comm {
class worker;
}
}  // namespace gaea

namespace gaea::ga::detail {

struct op_state final : gaea::detail::request_state {
  op_state(runtime& rt, op kind);
  op_state(const op_state&) = delete;
  op_state& operator=(const op_state&) = delete;

  runtime& rt;
  comm::worker& w;  // the issuing thread's worker
  std::thread::id owner;
  op kind;
  std::uint64_t bytes = 0;
  std::uint64_t t0;  // op_clock() at the start (stats_counters.hpp)
  comm::completion done;
  std::vector<std::vector<std::byte>> buffers;   // packed data, alive until done
  std::vector<std::function<void()>> finishers;  // run once after done (e.g. unpack a reply)
  bool completed = false;

  /// A buffer of `n` bytes owned by this operation.
  std::byte* buffer(std::size_t n) {
    buffers.emplace_back(n);
    return buffers.back().data();
  }
  void wait();
  bool test();
  // What a ga::request asks of the operation it holds.
  bool request_finished() const noexcept override { return completed; }
  void request_wait() override { wait(); }
  bool request_test() override { return test(); }

 private:
  void check_thread(const char* what) const;
  void finish();
};

}  // namespace gaea::ga::detail
