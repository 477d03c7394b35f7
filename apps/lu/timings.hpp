#pragma once
/// \file
/// Where the factorisation's time went on one rank.

#include <chrono>
#include <cstdint>

namespace lu {

/// Seconds of one rank, all wall-clock time of the main thread.
struct lu_timings {
  double total = 0;     ///< the whole factorisation
  double compute = 0;   ///< Eigen kernels (diagonal, TRSM, GEMM), TBB-parallel inside
  double comm = 0;      ///< exposed communication: issuing gets/puts and waiting for them
  double sync = 0;      ///< barriers between the phases (GA's sync)
  double transfer = 0;  ///< prefetched panels: first issue to last completion, summed over steps
  double hidden = 0;    ///< part of `transfer` that ran while this rank computed
  std::uint64_t bytes = 0;  ///< bytes fetched from other ranks
  /// Share of the prefetch time hidden behind computation (0 when nothing was prefetched).
  double overlap() const noexcept { return transfer > 0 ? hidden / transfer : 0.0; }
};

/// Seconds since an arbitrary epoch (steady clock).
inline double now() noexcept {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Adds the lifetime of the scope to `acc`.
class scoped_timer {
 public:
  explicit scoped_timer(double& acc) noexcept : acc_(acc), t0_(now()) {}
  ~scoped_timer() { acc_ += now() - t0_; }
  scoped_timer(const scoped_timer&) = delete;
  scoped_timer& operator=(const scoped_timer&) = delete;

 private:
  double& acc_;
  double t0_;
};

}  // namespace lu
