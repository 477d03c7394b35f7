#pragma once
/// \file
/// gaea::topology — what hwloc sees on this node, and where the progress thread should go.

#include <memory>
#include <string>
#include <vector>

namespace gaea {

/// Loaded once per rank by the runtime. Thread safety: const after construction.
class topology {
 public:
  topology();
  ~topology();
  topology(const topology&) = delete;
  topology& operator=(const topology&) = delete;

  int packages() const noexcept { return packages_; }  ///< CPU packages (sockets)
  int cores() const noexcept { return cores_; }        ///< physical cores
  int pus() const noexcept { return pus_; }            ///< hardware threads (PUs)
  /// One line, e.g. "1 package, 2 cores, 2 PUs (1 per core), 24.0 GiB, L3 32 MiB".
  const std::string& summary() const noexcept { return summary_; }

  /// OS indices of the PUs the calling thread is bound to (all allowed PUs when unbound).
  std::vector<int> thread_binding() const;
  /// OS indices of all PUs this process may use.
  std::vector<int> allowed_pus() const;
  /// OS PU indices grouped by core.
  const std::vector<std::vector<int>>& pus_by_core() const noexcept { return by_core_; }

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
  int packages_ = 0, cores_ = 0, pus_ = 0;
  std::string summary_;
  std::vector<std::vector<int>> by_core_;
};

/// Where the progress thread goes (decided from all node-local ranks' bindings).
struct progress_placement {
  std::vector<int> cpus;    ///< PUs to bind to; empty = leave unbound
  std::string description;  ///< "SMT sibling of core 3 (PU 7)", "spare core 1 (PU 1)", "unpinned"
  bool dedicated = false;   ///< the thread has a hardware thread no rank's main thread uses
};

/// Pure decision function (unit-tested): `own` is this rank's main-thread binding, `node`
/// the bindings of all ranks on the node (including own) in node-rank order.
progress_placement place_progress_thread(const std::vector<std::vector<int>>& pus_by_core,
                                         const std::vector<int>& allowed,
                                         const std::vector<int>& own,
                                         const std::vector<std::vector<int>>& node, int node_rank);

}  // namespace gaea
