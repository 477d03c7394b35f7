// Element-wise collective algorithms (copy, scale, add), reductions (dot, norm) and transpose.
// Owner-computes over this rank's tiles of the result (or of the first input for reductions);
// operands come from local storage or from gets issued one slab ahead (slabs.hpp).
#include <Eigen/Core>

#include <algorithm>
#include <climits>
#include <cmath>
#include <complex>
#include <cstdlib>

#include "detail/group_copy.hpp"
#include "detail/slabs.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/ga/algorithms.hpp"
#include "gaea/ga/patch_ops.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga {

namespace {

using detail::view;
template <class T>
using operands = std::span<const global_array<T>* const>;
template <class T>
using sources = std::span<const view<const T>>;

// Operands read the same patch as the slab being written.
constexpr auto same_patch = [](std::size_t, const patch& p) { return p; };

template <class T>
bool same_array(const global_array<T>& a, const global_array<T>& b) {
  return &a.core() == &b.core();
}

template <class T>
double magnitude(T x) {
  if constexpr (detail::is_complex_v<T>)  // in double, so complex<float> is exact to double
    return std::hypot(static_cast<double>(x.real()), static_cast<double>(x.imag()));
  else
    return std::abs(static_cast<double>(x));
}
template <class T>
double squared(T x) {
  if constexpr (detail::is_complex_v<T>)
    return static_cast<double>(std::norm(x));
  else
    return static_cast<double>(x) * static_cast<double>(x);
}

void require_2d(const char* what, const std::string& name, int ndim) {
  if (ndim != 2)
    throw error(std::string("ga::") + what + ": '" + name + "' has " + std::to_string(ndim) +
                " dimensions; 2 are needed");
}

}  // namespace

template <element T>
void copy(const global_array<T>& a, global_array<T>& b) {
  detail::require_same_shape("copy", a, b);
  if (!detail::same_group(a.core(), b.core()))
    return detail::copy_across_groups(a, whole_patch(a), b, whole_patch(b));
  detail::begin_collective(a, b);
  if (!same_array(a, b)) {
    const global_array<T>* ops[] = {&a};
    detail::for_each_slab(
        b, operands<T>(ops), same_patch, [](const patch& box, view<T> dst, sources<T> src) {
          detail::for_each_row<2>(box, {&dst.s, &src[0].s}, [&](const auto& off, index_t len) {
            std::copy_n(src[0].p + off[1], len, dst.p + off[0]);
          });
        });
  }
  b.core().barrier();
}

template <element T>
void scale(global_array<T>& a, T alpha) {
  detail::begin_collective(a);
  detail::for_each_slab(a, operands<T>(), same_patch,
                        [&](const patch& box, view<T> dst, sources<T>) {
                          detail::for_each_row<1>(box, {&dst.s}, [&](const auto& off, index_t n) {
                            T* x = dst.p + off[0];
                            for (index_t i = 0; i < n; ++i)
                              x[i] = static_cast<T>(alpha * x[i]);
                          });
                        });
  a.core().barrier();
}

template <element T>
void add(T alpha, const global_array<T>& a, T beta, const global_array<T>& b, global_array<T>& c) {
  detail::require_same_shape("add", a, c);
  detail::require_same_shape("add", b, c);
  detail::begin_collective(a, b, c);
  const global_array<T>* ops[] = {&a, &b};
  detail::for_each_slab(c, operands<T>(ops), same_patch,
                        [&](const patch& box, view<T> dst, sources<T> src) {
                          detail::for_each_row<3>(
                              box, {&dst.s, &src[0].s, &src[1].s}, [&](const auto& off, index_t n) {
                                T* z = dst.p + off[0];
                                const T* x = src[0].p + off[1];
                                const T* y = src[1].p + off[2];
                                for (index_t i = 0; i < n; ++i)
                                  z[i] = static_cast<T>(alpha * x[i] + beta * y[i]);
                              });
                        });
  c.core().barrier();
}

template <element T>
dot_result<T> dot(const global_array<T>& a, const global_array<T>& b) {
  detail::require_same_shape("dot", a, b);
  detail::begin_collective(a, b);
  using acc_t = detail::dot_acc<T>;
  acc_t sum{};
  const global_array<T>* ops[] = {&b};
  detail::for_each_slab(
      a, operands<T>(ops), same_patch, [&](const patch& box, view<T> mine, sources<T> src) {
        detail::for_each_row<2>(box, {&mine.s, &src[0].s}, [&](const auto& off, index_t n) {
          const T* x = mine.p + off[0];
          const T* y = src[0].p + off[1];
          for (index_t i = 0; i < n; ++i) {
            if constexpr (detail::is_complex_v<T>)
              sum += acc_t(std::conj(x[i])) * acc_t(y[i]);
            else
              sum += static_cast<acc_t>(x[i]) * static_cast<acc_t>(y[i]);
          }
        });
      });
  // int64_t, double or complex<double> (real and imaginary parts sum independently).
  sum = coll::allreduce(a.group(), sum, coll::reduce_op::sum);
  a.core().barrier();  // nobody changes b before every rank has read it
  return static_cast<dot_result<T>>(sum);
}

template <element T>
double norm(const global_array<T>& a, norm_kind kind) {
  detail::begin_collective(a);
  const coll::group& g = a.group();
  const auto none = operands<T>();
  double result = 0;
  if (kind == norm_kind::two) {
    detail::for_each_slab(a, none, same_patch, [&](const patch& box, view<T> x, sources<T>) {
      detail::for_each_row<1>(box, {&x.s}, [&](const auto& off, index_t n) {
        for (index_t i = 0; i < n; ++i)
          result += squared(x.p[off[0] + i]);
      });
    });
    result = std::sqrt(coll::allreduce(g, result, coll::reduce_op::sum));
  } else if (kind == norm_kind::one && a.ndim() == 2) {  // max column sum, as the row sums below
    std::vector<double> sums(static_cast<std::size_t>(a.dims()[1]), 0.0);
    detail::for_each_slab(a, none, same_patch, [&](const patch& box, view<T> x, sources<T>) {
      for (index_t i = 0; i < box.extent(0); ++i)
        for (index_t j = 0; j < box.extent(1); ++j)
          sums[static_cast<std::size_t>(box.lo[1] + j)] += magnitude(x.p[i * x.s[0] + j]);
    });
    coll::allreduce(g, std::span<double>(sums), coll::reduce_op::sum);
    for (double s : sums)
      result = std::max(result, s);
  } else if (kind == norm_kind::one || kind == norm_kind::sum_abs) {  // sum of magnitudes
    detail::for_each_slab(a, none, same_patch, [&](const patch& box, view<T> x, sources<T>) {
      detail::for_each_row<1>(box, {&x.s}, [&](const auto& off, index_t n) {
        for (index_t i = 0; i < n; ++i)
          result += magnitude(x.p[off[0] + i]);
      });
    });
    result = coll::allreduce(g, result, coll::reduce_op::sum);
  } else if (kind == norm_kind::inf && a.ndim() == 2) {  // max row sum: partial sums, summed
    const index_t rows = a.dims()[0];
    std::vector<double> sums(static_cast<std::size_t>(rows), 0.0);
    detail::for_each_slab(a, none, same_patch, [&](const patch& box, view<T> x, sources<T>) {
      for (index_t i = box.lo[0]; i <= box.hi[0]; ++i) {
        const T* row = x.p + (i - box.lo[0]) * x.s[0];
        double s = 0;
        for (index_t j = 0; j < box.extent(1); ++j)
          s += magnitude(row[j]);
        sums[static_cast<std::size_t>(i)] += s;
      }
    });
    coll::allreduce(g, std::span<double>(sums), coll::reduce_op::sum);
    for (double s : sums)
      result = std::max(result, s);
  } else {
    detail::for_each_slab(a, none, same_patch, [&](const patch& box, view<T> x, sources<T>) {
      detail::for_each_row<1>(box, {&x.s}, [&](const auto& off, index_t n) {
        for (index_t i = 0; i < n; ++i)
          result = std::max(result, magnitude(x.p[off[0] + i]));
      });
    });
    result = coll::allreduce(g, result, coll::reduce_op::max);
  }
  a.core().barrier();
  return result;
}

template <element T>
void transpose(const global_array<T>& a, global_array<T>& b) {
  require_2d("transpose", a.name(), a.ndim());
  require_2d("transpose", b.name(), b.ndim());
  if (same_array(a, b))
    throw error("ga::transpose: '" + a.name() + "' cannot be transposed onto itself");
  if (!(b.dims() == index{a.dims()[1], a.dims()[0]}))
    throw error("ga::transpose: shapes do not fit: " + detail::shape_of(a) + ", so " + "'" +
                b.name() + "' must be " + format_index(index{a.dims()[1], a.dims()[0]}) +
                ", but it is " + format_index(b.dims()));
  detail::begin_collective(a, b);
  using mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using strided = Eigen::OuterStride<>;
  const global_array<T>* ops[] = {&a};
  auto swapped = [](std::size_t, const patch& p) {
    return patch{{p.lo[1], p.lo[0]}, {p.hi[1], p.hi[0]}};
  };
  detail::for_each_slab(
      b, operands<T>(ops), swapped, [](const patch& box, view<T> dst, sources<T> src) {
        const index_t r = box.extent(0), c = box.extent(1);
        Eigen::Map<mat, Eigen::Unaligned, strided> d(dst.p, r, c, strided(dst.s[0]));
        Eigen::Map<const mat, Eigen::Unaligned, strided> s(src[0].p, c, r, strided(src[0].s[0]));
        d = s.transpose();
      });
  b.core().barrier();
}

#define GAEA_GA_INSTANTIATE(T, tag, name)                                                       \
  template void copy<T>(const global_array<T>&, global_array<T>&);                              \
  template void scale<T>(global_array<T>&, T);                                                  \
  template void add<T>(T, const global_array<T>&, T, const global_array<T>&, global_array<T>&); \
  template dot_result<T> dot<T>(const global_array<T>&, const global_array<T>&);                \
  template double norm<T>(const global_array<T>&, norm_kind);                                   \
  template void transpose<T>(const global_array<T>&, global_array<T>&);

GAEA_GA_FOR_EACH_ELEMENT(GAEA_GA_INSTANTIATE)
#undef GAEA_GA_INSTANTIATE

}  // namespace gaea::ga
