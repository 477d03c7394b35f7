// The element-wise reduction kernels for every (element type, operator) pair, and their names.

#include "detail/reduce_ops.hpp"

#include <algorithm>
#include <complex>
#include <cstring>
#include <type_traits>

#include "gaea/base/error.hpp"

namespace gaea::coll::detail {

namespace {

template <class T>
constexpr bool is_complex_v =
    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

// Integers add and multiply in an unsigned type at least as wide as `unsigned`: overflow wraps
// (as MPI implementations do in practice) instead of being undefined behaviour, including for
// the small types that would otherwise be promoted to int.
template <class T, bool = std::is_integral_v<T> && !std::is_same_v<T, bool>>
struct arith {
  using type = T;
};
template <class T>
struct arith<T, true> {
  using type =
      std::conditional_t<(sizeof(T) <= sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
};
template <class T>
using arith_t = typename arith<T>::type;

template <class T, reduce_op Op>
void apply(std::byte* acc_b, const std::byte* in_b, std::size_t count) {
  // Buffers are the caller's spans or new[]'d temporaries: aligned for T.
  auto* acc = reinterpret_cast<T*>(acc_b);
  const auto* in = reinterpret_cast<const T*>(in_b);
  using A = arith_t<T>;
  for (std::size_t i = 0; i < count; ++i) {
    if constexpr (Op == reduce_op::sum)
      acc[i] = static_cast<T>(static_cast<A>(acc[i]) + static_cast<A>(in[i]));
    else if constexpr (Op == reduce_op::prod)
      acc[i] = static_cast<T>(static_cast<A>(acc[i]) * static_cast<A>(in[i]));
    else if constexpr (Op == reduce_op::min)
      acc[i] = std::min(acc[i], in[i]);
    else if constexpr (Op == reduce_op::max)
      acc[i] = std::max(acc[i], in[i]);
    else if constexpr (Op == reduce_op::land)
      acc[i] = static_cast<T>(acc[i] && in[i]);
    else
      acc[i] = static_cast<T>(acc[i] || in[i]);
  }
}

template <class T>
reducer for_type(reduce_op op, elem e) {
  reducer r;
  r.elem_size = sizeof(T);
  switch (op) {
    case reduce_op::sum:
      if constexpr (!std::is_same_v<T, bool>) r.fn = apply<T, reduce_op::sum>;
      break;
    case reduce_op::prod:
      if constexpr (!std::is_same_v<T, bool>) r.fn = apply<T, reduce_op::prod>;
      break;
    case reduce_op::min:
      if constexpr (!is_complex_v<T>) r.fn = apply<T, reduce_op::min>;
      break;
    case reduce_op::max:
      if constexpr (!is_complex_v<T>) r.fn = apply<T, reduce_op::max>;
      break;
    case reduce_op::land:
      if constexpr (std::is_integral_v<T>) r.fn = apply<T, reduce_op::land>;
      break;
    case reduce_op::lor:
      if constexpr (std::is_integral_v<T>) r.fn = apply<T, reduce_op::lor>;
      break;
  }
  if (!r.fn)
    throw error(std::string("gaea::coll: reduction ") + std::string(to_string(op)) +
                " is not defined on element type " + to_string(e));
  return r;
}

}  // namespace

const char* to_string(elem e) noexcept {
  constexpr const char* names[] = {
      "int8",   "uint8", "int16",  "uint16",         "int32",           "uint32", "int64",
      "uint64", "float", "double", "complex<float>", "complex<double>", "bool"};
  const auto i = static_cast<std::size_t>(e);
  return i < std::size(names) ? names[i] : "?";
}

reducer make_reducer(elem e, reduce_op op) {
  switch (e) {
    case elem::i8:
      return for_type<std::int8_t>(op, e);
    case elem::u8:
      return for_type<std::uint8_t>(op, e);
    case elem::i16:
      return for_type<std::int16_t>(op, e);
    case elem::u16:
      return for_type<std::uint16_t>(op, e);
    case elem::i32:
      return for_type<std::int32_t>(op, e);
    case elem::u32:
      return for_type<std::uint32_t>(op, e);
    case elem::i64:
      return for_type<std::int64_t>(op, e);
    case elem::u64:
      return for_type<std::uint64_t>(op, e);
    case elem::f32:
      return for_type<float>(op, e);
    case elem::f64:
      return for_type<double>(op, e);
    case elem::c64:
      return for_type<std::complex<float>>(op, e);
    case elem::c128:
      return for_type<std::complex<double>>(op, e);
    case elem::bool8:
      return for_type<bool>(op, e);
  }
  throw error("gaea::coll: unknown element type " + std::to_string(static_cast<int>(e)));
}

}  // namespace gaea::coll::detail
