// Element-wise operations (abs, add constant, reciprocal, c = a op b) and select_elem on the
// owner-computes patch machinery (patch_apply.hpp).
#include <algorithm>
#include <cmath>
#include <complex>

#include "detail/patch_apply.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/ga/detail/elements.hpp"
#include "gaea/ga/elementwise.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga {

namespace {

using detail::operand;

// |x| as a comparable key: exact for integers, double for the rest (magnitude for complex).
template <class T>
auto key_of(T x) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<std::int64_t>(x);
  else if constexpr (detail::is_complex_v<T>)
    return static_cast<double>(std::abs(x));
  else
    return static_cast<double>(x);
}

}  // namespace

template <element T>
void abs_value(global_array<T>& a, const patch& p) {
  detail::update_patch("abs_value", a, p, [](T x) -> T {
    if constexpr (detail::is_complex_v<T>)
      return T(std::abs(x), 0);
    else if constexpr (std::is_integral_v<T>)
      return x < 0 ? static_cast<T>(-x) : x;
    else
      return std::abs(x);
  });
}

template <element T>
void add_constant(global_array<T>& a, const patch& p, T alpha) {
  detail::update_patch("add_constant", a, p, [alpha](T x) { return static_cast<T>(x + alpha); });
}

template <element T>
void recip(global_array<T>& a, const patch& p) {
  bool zero = false;  // an integer 0 stays as it is and is reported
  detail::update_patch("recip", a, p, [&zero](T x) {
    if constexpr (std::is_integral_v<T>) {
      if (x == 0) {
        zero = true;
        return x;
      }
    }
    return static_cast<T>(T(1) / x);
  });
  // Every rank learns of an integer zero anywhere (the others are done by then).
  coll::agree(a.group(), zero ? "ga::recip: '" + a.name() + "' " + p.str() +
                                    " holds an integer 0, which has no reciprocal"
                              : std::string());
}

template <element T>
void elementwise(elem_op op, const global_array<T>& a, const patch& pa, const global_array<T>& b,
                 const patch& pb, global_array<T>& c, const patch& pc) {
  static constexpr const char* names[] = {"elem_multiply", "elem_divide", "elem_maximum",
                                          "elem_minimum"};
  const char* what = names[static_cast<int>(op)];
  const operand<T> x{&a, pa}, y{&b, pb}, out{&c, pc};
  for (const operand<T>* o : {&x, &y, &out})
    detail::check_operand(what, *o);
  detail::require_same_shape(what, x, out);
  detail::require_same_shape(what, y, out);
  detail::require_no_overlap(what, x, out);
  detail::require_no_overlap(what, y, out);
  detail::begin_collective(a, b, c);
  bool zero = false;
  detail::apply_patch(out, std::array{x, y}, [&](const detail::run<3, T>& r) {
    for (index_t i = 0; i < r.n; ++i) {
      const T u = r.p[1][i * r.step[1]], v = r.p[2][i * r.step[2]];
      T& z = r.p[0][i * r.step[0]];
      switch (op) {
        case elem_op::multiply:
          z = static_cast<T>(u * v);
          break;
        case elem_op::divide:
          if constexpr (std::is_integral_v<T>) {
            if (v == 0) {
              zero = true;
              break;
            }
          }
          z = static_cast<T>(u / v);
          break;
        case elem_op::maximum:
          z = key_of(v) > key_of(u) ? v : u;
          break;
        case elem_op::minimum:
          z = key_of(v) < key_of(u) ? v : u;
          break;
      }
    }
  });
  coll::agree(c.group(), zero ? "ga::elem_divide: '" + b.name() + "' " + pb.str() +
                                    " holds an integer 0 divisor"
                              : std::string());
  c.core().barrier();
}

template <element T>
void median(const global_array<T>& a, const patch& pa, const global_array<T>& b, const patch& pb,
            const global_array<T>& c, const patch& pc, global_array<T>& m, const patch& pm) {
  const operand<T> x{&a, pa}, y{&b, pb}, z{&c, pc}, out{&m, pm};
  for (const operand<T>* o : {&x, &y, &z, &out})
    detail::check_operand("median", *o);
  if constexpr (detail::is_complex_v<T>) {
    throw error("ga::median: '" + m.name() + "' holds complex numbers, which have no order");
  } else {
    for (const operand<T>* o : {&x, &y, &z}) {
      detail::require_same_shape("median", *o, out);
      detail::require_no_overlap("median", *o, out);
    }
    detail::begin_collective(a, b, c, m);
    detail::apply_patch(out, std::array{x, y, z}, [](const detail::run<4, T>& r) {
      for (index_t i = 0; i < r.n; ++i) {
        const T u = r.p[1][i * r.step[1]], v = r.p[2][i * r.step[2]], w = r.p[3][i * r.step[3]];
        r.p[0][i * r.step[0]] = std::max(std::min(u, v), std::min(std::max(u, v), w));
      }
    });
    m.core().barrier();
  }
}

template <element T>
selected_element<T> select_elem(const global_array<T>& a, select_kind kind, const patch& p) {
  const operand<T> in{&a, p};
  detail::check_operand("select_elem", in);
  detail::begin_collective(a);
  using key_t = decltype(key_of(T{}));
  // Best candidate of this rank: key, linear index within the array, value.
  struct candidate {
    key_t key;
    index_t linear;
    T value;
    bool valid;
  };
  candidate best{key_t{}, 0, T{}, false};
  auto better = [&](key_t k, index_t lin, const candidate& c) {
    if (!c.valid) return true;
    if constexpr (!std::is_integral_v<T>) {
      if (std::isnan(c.key)) return !std::isnan(k) || lin < c.linear;
      if (std::isnan(k)) return false;
    }
    if (k != c.key) return kind == select_kind::max ? k > c.key : k < c.key;
    return lin < c.linear;
  };
  const index& dims = a.dims();
  const int n = a.ndim();
  // Runs go along the last dimension with extent > 1 of p; walk its elements by index.
  const auto last = static_cast<std::size_t>(detail::live_dims(p).back());
  index_t step_last = 1;  // linear distance of consecutive elements along `last`
  for (std::size_t d = last + 1; d < static_cast<std::size_t>(n); ++d)
    step_last *= dims[d];
  detail::apply_patch(in, std::array<operand<T>, 0>{}, [&](const detail::run<1, T>& r) {
    index_t lin = 0;
    for (std::size_t d = 0; d < static_cast<std::size_t>(n); ++d)
      lin = lin * dims[d] + r.at[d];
    for (index_t i = 0; i < r.n; ++i) {
      const T v = r.p[0][i * r.step[0]];
      const key_t k = key_of(v);
      const index_t l = lin + i * step_last;
      if (better(k, l, best)) best = {k, l, v, true};
    }
  });
  const std::vector<candidate> all = coll::allgather(a.group(), best);
  candidate win{key_t{}, 0, T{}, false};
  for (const candidate& c : all)
    if (c.valid && better(c.key, c.linear, win)) win = c;
  a.core().barrier();
  selected_element<T> out{win.value, index(static_cast<std::size_t>(n), 0)};
  for (std::size_t d = static_cast<std::size_t>(n); d-- > 0;) {
    out.where[d] = win.linear % dims[d];
    win.linear /= dims[d];
  }
  return out;
}

#define GAEA_GA_INSTANTIATE(T, tag, name)                                                         \
  template void abs_value<T>(global_array<T>&, const patch&);                                     \
  template void add_constant<T>(global_array<T>&, const patch&, T);                               \
  template void recip<T>(global_array<T>&, const patch&);                                         \
  template void elementwise<T>(elem_op, const global_array<T>&, const patch&,                     \
                               const global_array<T>&, const patch&, global_array<T>&,            \
                               const patch&);                                                     \
  template selected_element<T> select_elem<T>(const global_array<T>&, select_kind, const patch&); \
  template void median<T>(const global_array<T>&, const patch&, const global_array<T>&,           \
                          const patch&, const global_array<T>&, const patch&, global_array<T>&,   \
                          const patch&);
GAEA_GA_FOR_EACH_ELEMENT(GAEA_GA_INSTANTIATE)
#undef GAEA_GA_INSTANTIATE

}  // namespace gaea::ga
