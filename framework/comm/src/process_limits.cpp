// Start-up checks of the open-files limit and of /dev/shm (detail/process_limits.hpp).
#include "detail/process_limits.hpp"

#include <sys/resource.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <string>

#include "gaea/base/error.hpp"
#include "gaea/comm/detail/bootstrap.hpp"

namespace gaea::comm::detail {

namespace {
// Files a rank holds open: a few per peer (sockets, shared-memory mappings while attaching),
// UCX's own (epoll, event and memory files) and one per array part in shared memory.
std::uint64_t files_needed(std::size_t ranks) {
  return 256 + 4 * static_cast<std::uint64_t>(ranks);
}
// The open-files soft limit asked for when the hard limit allows it.
constexpr rlim_t files_wanted = 65536;
// UCX's receive queues in /dev/shm: about 8 MiB per rank with its service and main workers.
constexpr std::uint64_t shm_per_rank = std::uint64_t{8} << 20;

std::string mib(std::uint64_t b) {
  return std::to_string((b + (std::uint64_t{1} << 20) - 1) >> 20) + " MiB";
}
}  // namespace

void check_process_limits(MPI_Comm comm, int rank, const std::vector<int>& node_of,
                          bool shared_memory) {
  const std::uint64_t need = files_needed(node_of.size());
  rlimit lim{};
  std::uint64_t have = UINT64_MAX;
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
    // Every array part in shared memory holds a file open: the soft limit (often 1024) is
    // raised towards the hard one, which the process may do itself.
    const rlim_t want = std::min<rlim_t>(lim.rlim_max, files_wanted);
    if (lim.rlim_cur < want) {
      rlimit raised = lim;
      raised.rlim_cur = want;
      if (setrlimit(RLIMIT_NOFILE, &raised) == 0) lim = raised;
    }
    have = lim.rlim_cur;
  }
  std::uint64_t shm_free = UINT64_MAX, shm_need = 0;
  if (shared_memory) {
    const auto local = static_cast<std::uint64_t>(
        std::count(node_of.begin(), node_of.end(), node_of[static_cast<std::size_t>(rank)]));
    struct statvfs v {};
    if (local > 1 && statvfs("/dev/shm", &v) == 0) {
      shm_free = static_cast<std::uint64_t>(v.f_bavail) * v.f_frsize;
      shm_need = local * shm_per_rank;
    }
  }
  struct verdict {
    std::uint64_t files, shm_free, shm_need;
  };
  const auto all = allgather_value(comm, verdict{have, shm_free, shm_need});
  for (std::size_t r = 0; r < all.size(); ++r) {
    const verdict& v = all[r];
    if (v.files < need)
      throw error("gaea::comm: the open-files limit (ulimit -n) of rank " + std::to_string(r) +
                  " is " + std::to_string(v.files) + ", and its hard limit allows no more; " +
                  std::to_string(all.size()) + " ranks need at least " + std::to_string(need) +
                  " (sockets and shared-memory files per peer): raise it (ulimit -n " +
                  std::to_string(need) + " or more) before mpirun");
    if (v.shm_free < v.shm_need)
      throw error("gaea::comm: /dev/shm on the host of rank " + std::to_string(r) + " has " +
                  mib(v.shm_free) + " free, and its ranks' shared-memory message queues need " +
                  mib(v.shm_need) + " (" + mib(shm_per_rank) +
                  " per rank): free or enlarge /dev/shm (mount -o remount,size=...), or keep "
                  "shared memory out (UCX_TLS=tcp,self)");
  }
}

}  // namespace gaea::comm::detail
