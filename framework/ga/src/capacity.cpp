// Memory checks before a global array's collective allocation: shared memory, RAM, address space.

#include "detail/capacity.hpp"

#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "gaea/base/error.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga::detail {

namespace {

std::uint64_t shm_free_bytes() {
  struct statvfs v {};
  if (statvfs("/dev/shm", &v) != 0) return UINT64_MAX;  // no /dev/shm: nothing to check
  return static_cast<std::uint64_t>(v.f_bavail) * v.f_frsize;
}

std::uint64_t ram_available_bytes() {
  const long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || size <= 0) return UINT64_MAX;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(size);
}

// This process's mapped address space (what RLIMIT_AS counts), or 0 when unknown.
std::uint64_t address_space_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long pages = 0;
  const int got = std::fscanf(f, "%llu", &pages);
  std::fclose(f);
  const long size = sysconf(_SC_PAGESIZE);
  return got == 1 && size > 0 ? pages * static_cast<std::uint64_t>(size) : 0;
}

std::string mib(std::uint64_t b) {
  return std::to_string((b >> 20) + ((b & ((1u << 20) - 1)) != 0 ? 1 : 0)) + " MiB";
}

}  // namespace

void check_capacity(runtime& rt, const coll::group& g, std::size_t bytes, const std::string& what) {
  // Every rank learns every rank's request and node, then checks its own node's total; the
  // verdict is shared so that all ranks throw together (a collective must not half-fail).
  struct entry {
    std::uint64_t bytes;
    std::int64_t node;
  };
  const entry mine{bytes, rt.node_id()};
  const std::vector<entry> all = coll::allgather(g, mine);
  std::uint64_t node_total = 0;
  int first_on_node = -1;  // the member that judges this node
  for (std::size_t i = 0; i < all.size(); ++i) {
    const entry& e = all[i];
    if (e.node != mine.node) continue;
    if (first_on_node < 0) first_on_node = static_cast<int>(i);
    if (__builtin_add_overflow(node_total, e.bytes, &node_total))
      node_total = UINT64_MAX;  // saturate: certainly more than any node has
  }

  std::string problem;
  if (first_on_node == g.rank()) {  // one member per node judges the node
    const std::uint64_t shm = shm_free_bytes(), ram = ram_available_bytes();
    if (node_total > shm)
      problem = "needs " + mib(node_total) + " of shared memory on node " +
                std::to_string(mine.node) + " but /dev/shm has " + mib(shm) + " free";
    else if (node_total > ram)
      problem = "needs " + mib(node_total) + " on node " + std::to_string(mine.node) +
                " but only " + mib(ram) + " of RAM is available";
  }
  // Registered memory is pinned: a finite RLIMIT_MEMLOCK caps it on RDMA transports.
  rlimit lim{};
  if (problem.empty() && bytes > 0 && getrlimit(RLIMIT_MEMLOCK, &lim) == 0 &&
      lim.rlim_cur != RLIM_INFINITY && rt.nodes() > 1 && bytes > lim.rlim_cur)
    problem = "needs " + mib(bytes) + " of registered memory on rank " + std::to_string(rt.rank()) +
              " but the locked-memory limit (ulimit -l) is " + mib(lim.rlim_cur);

  // The mapping needs address space: under `ulimit -v` UCX's mapping fails part-way otherwise.
  if (problem.empty() && bytes > 0 && getrlimit(RLIMIT_AS, &lim) == 0 &&
      lim.rlim_cur != RLIM_INFINITY) {
    const std::uint64_t used = address_space_bytes();
    if (used + bytes > lim.rlim_cur)
      problem = "needs " + mib(bytes) + " more address space on rank " + std::to_string(rt.rank()) +
                " but the address-space limit (ulimit -v) is " + mib(lim.rlim_cur) + " with " +
                mib(used) + " in use; raise it (ulimit -v unlimited) or use more ranks";
  }

  // Every rank throws the lowest troubled rank's message.
  coll::agree(g,
              problem.empty() ? std::string() : what + ": " + problem + " (nothing was allocated)");
}

}  // namespace gaea::ga::detail
