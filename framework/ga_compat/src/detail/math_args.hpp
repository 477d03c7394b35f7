#pragma once
// Argument conversions shared by the math entry points: transpose characters, the element type
// a typed call (GA_Ddot, GA_Dgemm, ...) requires, and GA's complex structs.
#include <complex>
#include <string>
#include <type_traits>

#include "ga.h"
#include "gaea/base/error.hpp"
#include "gaea/ga/algorithms.hpp"

namespace gaea::ga_compat::detail {

/// 'N'/'n' -> false, 'T'/'t' -> true; gaea::error otherwise (api() adds the call).
inline bool transposed(char c) {
  if (c == 'N' || c == 'n') return false;
  if (c == 'T' || c == 't') return true;
  throw error(std::string() + "transpose flag '" + std::string(1, c) + "' (N or T expected)");
}

/// BLAS-style operand flag: N, T or C (conjugate transpose) in either case.
inline ga::mat_op mat_op_of(char c) {
  switch (c) {
    case 'N':
    case 'n':
      return ga::mat_op::none;
    case 'T':
    case 't':
      return ga::mat_op::trans;
    case 'C':
    case 'c':
      return ga::mat_op::conj_trans;
    default:
      throw error(std::string() + "transpose flag '" + std::string(1, c) +
                  "' (N, T or C expected)");
  }
}

/// gaea::error unless the array's element type is `Want` (a typed call on another type).
template <class Want, class T>
void require_element(const ga::global_array<T>& a, const char* want) {
  if constexpr (!std::is_same_v<T, Want>)
    throw error(std::string() + "array '" + a.name() + "' has another element type; " + want +
                " is needed");
}

inline DoubleComplex to_ga(std::complex<double> z) {
  return {z.real(), z.imag()};
}
inline SingleComplex to_ga(std::complex<float> z) {
  return {z.real(), z.imag()};
}
inline std::complex<double> from_ga(DoubleComplex z) {
  return {z.real, z.imag};
}
inline std::complex<float> from_ga(SingleComplex z) {
  return {z.real, z.imag};
}

}  // namespace gaea::ga_compat::detail
