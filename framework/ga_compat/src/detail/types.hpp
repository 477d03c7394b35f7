#pragma once
// GA type codes ↔ Gaea element types, and dispatch of a handle's array to typed code.
// One home for the list of element types the layer supports (add a type here and only here).

#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "gacommon.h"
#include "gaea/base/error.hpp"
#include "gaea/ga/global_array.hpp"

namespace gaea::ga_compat::detail {

static_assert(sizeof(long) == 8, "the GA layer assumes LP64 (C long is 64 bits, as Integer)");

/// A global array of any supported element type (monostate: not allocated yet).
using any_array =
    std::variant<std::monostate, ga::global_array<std::int32_t>, ga::global_array<std::int64_t>,
                 ga::global_array<float>, ga::global_array<double>,
                 ga::global_array<std::complex<float>>, ga::global_array<std::complex<double>>>;

/// Position of alternative T in variant V (compile time).
template <class V, class T, std::size_t I = 0>
constexpr std::size_t variant_index() {
  if constexpr (std::is_same_v<std::variant_alternative_t<I, V>, T>)
    return I;
  else
    return variant_index<V, T, I + 1>();
}

template <class T>
struct type_tag {
  using type = T;
};

/// "C_DBL", "C_INT", … or "type <n>", for messages.
std::string type_name(int type);
/// Size in bytes of one element of GA type `type` (0 when unknown).
std::size_t type_size(int type);

/// Codes NGA_Register_type gives out start here (GA numbers them after its own, MT_BASE + index).
inline constexpr int first_registered_type = MT_BASE + 100;
/// Element size of a type registered with NGA_Register_type (0: not a registered type).
std::size_t registered_size(int type);
/// gaea::error naming `fn` and the type unless `fn` only moves, copies, zeroes or describes
/// elements: an array of a registered type holds opaque elements (GA does no arithmetic on them).
void check_opaque_use(int type, const char* fn);

/// Calls fn(type_tag<T>{}) for the element type T of GA type code `type`; gaea::error naming
/// `fn_name` and the type when global arrays of that type are not supported. A registered type
/// of 4, 8 or 16 bytes is held in an element type of its size (the bytes are only copied).
template <class Fn>
decltype(auto) visit_type(int type, const char* fn_name, Fn&& fn) {
  switch (type) {
    case C_INT:
      return fn(type_tag<std::int32_t>{});
    case C_LONG:
    case C_LONGLONG:
    case F_INT:
    case F_LOG:
      return fn(type_tag<std::int64_t>{});
    case C_FLOAT:
    case F_REAL:
      return fn(type_tag<float>{});
    case C_DBL:
    case F_DBL:
      return fn(type_tag<double>{});
    case C_SCPL:
    case F_SCPL:
      return fn(type_tag<std::complex<float>>{});
    case C_DCPL:
    case F_DCPL:
      return fn(type_tag<std::complex<double>>{});
    default:
      if (type >= first_registered_type) switch (registered_size(type)) {
          case 4:
            return fn(type_tag<std::int32_t>{});
          case 8:
            return fn(type_tag<std::int64_t>{});
          case 16:
            return fn(type_tag<std::complex<double>>{});
          default:
            throw error(std::string(fn_name) + ": " + type_name(type) +
                        ": arrays of a registered type of 4, 8 or 16 bytes are supported here");
        }
      throw error(std::string(fn_name) + ": " + type_name(type) +
                  " is not an element type of global arrays here (C_INT, C_LONG, C_LONGLONG, "
                  "C_FLOAT, C_DBL, C_SCPL, C_DCPL and their F_ forms are)");
  }
}

/// Element type of a typed global array.
template <class A>
struct array_element;
template <class T>
struct array_element<ga::global_array<T>> {
  using type = T;
};
template <class A>
using element_of = typename array_element<std::remove_cvref_t<A>>::type;

/// Reads a scalar of element type T that a GA call passes as `void*` (alpha, fill value, …).
/// SingleComplex/DoubleComplex have the layout of std::complex.
template <class T>
T scalar_from(const void* p, const char* fn_name) {
  if (p == nullptr) throw error(std::string(fn_name) + ": null scalar argument");
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

}  // namespace gaea::ga_compat::detail
