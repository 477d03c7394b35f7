#pragma once
/// \file
/// Internal (not API): the one list of global-array element types. Everything that depends on
/// the set of element types (the `element` concept, the type tags, their names, explicit
/// instantiations in the module's sources) expands this list, so adding a type is one line here
/// plus whatever truly differs per type (HDF5 type, complex-only arithmetic).

#include <complex>
#include <cstdint>
#include <type_traits>

/// X(type, tag, name) for every element type, in elem_type order: `tag` is the
/// gaea::ga::detail::elem_type enumerator, `name` the string used in messages and HDF5 metadata.
#define GAEA_GA_FOR_EACH_ELEMENT(X)               \
  X(double, f64, "double")                        \
  X(float, f32, "float")                          \
  X(std::int64_t, i64, "int64")                   \
  X(std::int32_t, i32, "int32")                   \
  X(std::complex<double>, c64, "complex<double>") \
  X(std::complex<float>, c32, "complex<float>")

namespace gaea::ga::detail {

/// True for std::complex<float> and std::complex<double>.
template <class T>
inline constexpr bool is_complex_v = false;
template <class T>
inline constexpr bool is_complex_v<std::complex<T>> = true;

/// True for the types of GAEA_GA_FOR_EACH_ELEMENT.
template <class T>
inline constexpr bool is_element_v = false;
#define GAEA_GA_DETAIL_IS_ELEMENT(T, tag, name) \
  template <>                                   \
  inline constexpr bool is_element_v<T> = true;
GAEA_GA_FOR_EACH_ELEMENT(GAEA_GA_DETAIL_IS_ELEMENT)
#undef GAEA_GA_DETAIL_IS_ELEMENT

}  // namespace gaea::ga::detail
