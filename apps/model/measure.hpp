#pragma once
// Measurements behind gaea-model calibrate and validate: one-sided operations timed from rank 0
// against one target while the other ranks wait inside Gaea (their progress threads serve), and
// the fetch-and-add experiment of [PGAS-BGQ Fig. 10]. Every function is collective over the
// runtime (every rank calls it with the same arguments); results are meaningful on rank 0.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gaea/counters/counter_mode.hpp"
#include "gaea/counters/shared_counter.hpp"
#include "gaea/ga/global_array.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea_model {

/// What one timed case does (rank 0 to `target`).
enum class op_kind {
  get,               ///< contiguous get of `bytes`
  put,               ///< contiguous put of `bytes`, then fence (remote completion)
  get_issue,         ///< issuing one non-blocking 8 B get (the origin's overhead), completed later
  fetch_add,         ///< fetch-and-add on a counter of `target` served by its progress thread
  fetch_add_atomic,  ///< the same on a counter in atomic mode
  strided_zero,      ///< strided get, zero-copy: `bytes` in chunks of `chunk` bytes
  strided_packed,    ///< the same, packed
  acc_target,        ///< accumulate of `bytes`, target-driven, then fence
  acc_source,        ///< accumulate of `bytes`, source-driven, then fence
};
const char* to_string(op_kind k);

struct op_case {
  op_kind kind = op_kind::get;
  int target = 1;
  std::int64_t bytes = 8;
  std::int64_t chunk = 0;  ///< strided only
};

/// Arrays big enough for every case up to `max_bytes` per target.
class probe {
 public:
  probe(gaea::runtime& rt, std::int64_t max_bytes);
  /// Median over `reps` repetitions of the seconds per call of each case (rank 0; zeros
  /// elsewhere). Repetitions interleave the cases in an order shuffled per repetition; each timed
  /// batch (10-2000 calls, about 2 ms) follows one untimed call.
  std::vector<double> time(const std::vector<op_case>& cases, int reps);

 private:
  double run(const op_case& c, int calls);
  gaea::runtime& rt_;
  std::int64_t max_bytes_;
  std::int64_t rows_ = 0, cols_ = 0;  // per rank block of the 2-D array (doubles)
  gaea::ga::global_array<double> flat_;
  gaea::ga::global_array<double> grid_;
  std::vector<gaea::counters::shared_counter> counters_;  // one per owner rank, progress mode
  std::vector<gaea::counters::shared_counter> atomics_;   // one per owner rank, atomic mode
  std::vector<double> buf_;
};

/// The [PGAS-BGQ Fig. 10] experiment: ranks 1..P-1 call fetch_add back to back (`calls` each) on a
/// counter of rank 0 served in `mode`; rank 0 waits idle in a barrier, or (`owner_compute_s` > 0)
/// computes kernels of that length with one gaea::poll() between them until all are done.
/// Returns the mean seconds per call over the clients (every rank gets it), median of `reps`.
double fetch_add_latency(gaea::runtime& rt, gaea::counters::counter_mode mode,
                         double owner_compute_s, int calls, int reps);

/// Local rates on this rank: memcpy and `y += a x` seconds per byte (256 KiB, warm), dgemm
/// flop/s of one core (Eigen, n = 256), and the node's memory bandwidth (every rank of the node
/// copies 64 MiB at once; collective).
struct local_rates {
  double copy_s_per_byte = 0, add_s_per_byte = 0, dgemm_flops = 0, memory_bytes_per_node = 0;
};
local_rates measure_local_rates(gaea::runtime& rt);

/// The first rank other than 0 on rank 0's node (`same_node`) or on another node, -1 if none:
/// the targets rank 0 is timed against. Alike on every rank.
int first_target(gaea::runtime& rt, bool same_node);

/// A busy loop of `seconds` that makes no library call.
double compute_kernel(double seconds);

}  // namespace gaea_model
