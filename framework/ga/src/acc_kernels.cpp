// Vectorised dst += alpha * src kernels (Eigen), one per element type.
#include <Eigen/Core>

#include "gaea/ga/global_array.hpp"

namespace gaea::ga::detail {

template <class T>
void acc_kernel_for(void* dst, const void* src, std::size_t n, const void* alpha) {
  using vec = Eigen::Array<T, Eigen::Dynamic, 1>;
  Eigen::Map<vec> d(static_cast<T*>(dst), static_cast<Eigen::Index>(n));
  Eigen::Map<const vec> s(static_cast<const T*>(src), static_cast<Eigen::Index>(n));
  d += *static_cast<const T*>(alpha) * s;
}

#define GAEA_GA_INSTANTIATE(T, tag, name) \
  template void acc_kernel_for<T>(void*, const void*, std::size_t, const void*);
GAEA_GA_FOR_EACH_ELEMENT(GAEA_GA_INSTANTIATE)
#undef GAEA_GA_INSTANTIATE

}  // namespace gaea::ga::detail
