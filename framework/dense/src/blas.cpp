// The BLAS thread count (GAEA_BLAS_THREADS) and the description of the OpenBLAS in use.

#include "gaea/dense/blas.hpp"

#include <string>

#include "gaea/base/env.hpp"
#include "gaea/base/error.hpp"

// OpenBLAS's own entry points (its cblas.h is not on the default include path on Debian, and
// these three are all Gaea needs of it).
extern "C" {
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
char* openblas_get_config(void);
}

namespace gaea::dense {

int blas_threads() noexcept {
  return openblas_get_num_threads();
}

void set_blas_threads(int n) {
  if (n < 1)
    throw error("gaea::dense::set_blas_threads: thread count " + std::to_string(n) +
                " (must be >= 1)");
  openblas_set_num_threads(n);
}

namespace {
const env::setting<std::int64_t> threads_setting{
    {"GAEA_BLAS_THREADS",
     "1",
     "threads per rank of the BLAS under Gaea's dense kernels (OpenBLAS); 1 keeps ranks and "
     "task threads from oversubscribing the cores; raise it when one rank per node calls BLAS",
     env::value_kind::size,
     {},
     1,
     "dense"}};
}  // namespace

int apply_blas_threads_setting() {
  const std::int64_t n = threads_setting.read();  // at least 1: checked by the setting
  if (n > 4096)
    throw error("GAEA_BLAS_THREADS=" + threads_setting.raw().value_or("") +
                ": the BLAS thread count must be a whole number from 1 to 4096");
  set_blas_threads(static_cast<int>(n));
  return static_cast<int>(n);
}

std::string blas_description() {
  const char* c = openblas_get_config();
  return c ? std::string(c) : std::string("OpenBLAS");
}

}  // namespace gaea::dense
