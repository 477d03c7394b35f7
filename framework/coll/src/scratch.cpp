// The process's pool of collective scratch buffers (detail/scratch.hpp).

#include "detail/scratch.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

namespace gaea::coll::detail {

namespace {
// Idle memory the pool keeps at most, and the largest buffer it keeps.
constexpr std::size_t idle_limit = std::size_t{64} << 20;
constexpr std::size_t buffer_limit = std::size_t{32} << 20;

struct pool {
  std::mutex mutex;
  std::vector<std::pair<std::byte*, std::size_t>> idle;  // buffer, capacity
  std::size_t idle_bytes = 0;
};

// Never destroyed: buffers held by objects that outlive static destruction (a group kept by a
// static) are still given back at exit.
pool& the_pool() {
  static pool* const p = new pool;
  return *p;
}
}  // namespace

void scratch_return::operator()(std::byte* p) const noexcept {
  if (!p) return;
  pool& pl = the_pool();
  if (capacity <= buffer_limit) {
    std::lock_guard lock(pl.mutex);
    if (pl.idle_bytes + capacity <= idle_limit) {
      pl.idle.emplace_back(p, capacity);
      pl.idle_bytes += capacity;
      return;
    }
  }
  delete[] p;
}

scratch take_scratch(std::size_t bytes) {
  if (bytes == 0) return scratch(nullptr, scratch_return{0});
  pool& pl = the_pool();
  {
    std::lock_guard lock(pl.mutex);
    // The smallest idle buffer that fits, unless it is more than twice the size asked for.
    auto best = pl.idle.end();
    for (auto it = pl.idle.begin(); it != pl.idle.end(); ++it)
      if (it->second >= bytes && it->second <= 2 * bytes &&
          (best == pl.idle.end() || it->second < best->second))
        best = it;
    if (best != pl.idle.end()) {
      const auto [p, n] = *best;
      pl.idle.erase(best);
      pl.idle_bytes -= n;
      return scratch(p, scratch_return{n});
    }
  }
  return scratch(new std::byte[bytes], scratch_return{bytes});
}

}  // namespace gaea::coll::detail
