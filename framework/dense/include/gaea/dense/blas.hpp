#pragma once
/// \file
/// The BLAS under Gaea's dense kernels (OpenBLAS): its thread count and what it is.
///
/// Gaea's parallelism is its ranks and the apps' task threads; a BLAS that also starts one thread
/// per core in every rank oversubscribes the node. The runtime therefore sets the BLAS thread count
/// when it starts, from GAEA_BLAS_THREADS (default 1). Programs that call BLAS from one thread
/// per node may raise it, for the whole process or for a scope (scoped_blas_threads).

#include <string>

namespace gaea::dense {

/// The number of threads a BLAS call may use now. Thread-safe.
int blas_threads() noexcept;

/// Sets the number of threads BLAS calls use from now on, process-wide.
/// \throws gaea::error if `n` < 1. Not to be called while another thread is in a BLAS call.
void set_blas_threads(int n);

/// Applies GAEA_BLAS_THREADS (a whole number >= 1, default 1) with set_blas_threads and returns the
/// count. The runtime calls it at start; programs without a runtime may call it themselves.
/// \throws gaea::error naming the variable and its value if it is not a whole number >= 1.
int apply_blas_threads_setting();

/// The BLAS library's own description (OpenBLAS: version, kernel architecture, threading), for
/// reports and benchmark logs.
std::string blas_description();

/// Sets the BLAS thread count for a scope and restores the previous one at its end.
class scoped_blas_threads {
 public:
  /// Sets the BLAS thread count to `n` until this object ends.
  explicit scoped_blas_threads(int n) : old_(blas_threads()) { set_blas_threads(n); }
  ~scoped_blas_threads() { set_blas_threads(old_); }
  scoped_blas_threads(const scoped_blas_threads&) = delete;
  scoped_blas_threads& operator=(const scoped_blas_threads&) = delete;

 private:
  int old_;
};

}  // namespace gaea::dense
