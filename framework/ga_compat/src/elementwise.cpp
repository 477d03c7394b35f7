// Element-wise operations (GA_Abs_value, GA_Add_constant, GA_Recip, GA_Elem_*), NGA_Select_elem
// and the diagonal family (GA_Get_diag ... GA_Scale_cols), on gaea::ga's elementwise.hpp and
// diagonal.hpp. Patch calls share one body with their 64-bit twins.
#include <cstdint>
#include <cstring>
#include <string>

#include "detail/indices.hpp"
#include "detail/state.hpp"
#include "ga.h"
#include "gaea/ga/diagonal.hpp"
#include "gaea/ga/elementwise.hpp"

using namespace gaea::ga_compat::detail;
namespace ga = gaea::ga;
using gaea::error;

namespace {

// The patch [lo, hi], or the whole array when lo is null (the whole-array calls).
template <class I, class A>
ga::patch patch_or_whole(const I* lo, const I* hi, const A& a) {
  return lo ? to_patch(lo, hi, a.ndim()) : ga::whole_patch(a);
}

template <class I>
void abs_value(const char* fn, int g_a, I* lo, I* hi) {
  api(fn,
      [&] { with_array(g_a, fn, [&](auto& a) { ga::abs_value(a, patch_or_whole(lo, hi, a)); }); });
}

template <class I>
void add_constant(const char* fn, int g_a, I* lo, I* hi, void* alpha) {
  api(fn, [&] {
    with_array(g_a, fn, [&](auto& a) {
      ga::add_constant(a, patch_or_whole(lo, hi, a),
                       scalar_from<element_of<decltype(a)>>(alpha, fn));
    });
  });
}

template <class I>
void recip(const char* fn, int g_a, I* lo, I* hi) {
  api(fn, [&] { with_array(g_a, fn, [&](auto& a) { ga::recip(a, patch_or_whole(lo, hi, a)); }); });
}

template <class I>
void elem(const char* fn, ga::elem_op op, int g_a, I* alo, I* ahi, int g_b, I* blo, I* bhi, int g_c,
          I* clo, I* chi) {
  api(fn, [&] {
    with_arrays(
        fn,
        [&](auto& a, auto& b, auto& c) {
          ga::elementwise(op, a, patch_or_whole(alo, ahi, a), b, patch_or_whole(blo, bhi, b), c,
                          patch_or_whole(clo, chi, c));
        },
        g_a, g_b, g_c);
  });
}

template <class I>
void select_elem(const char* fn, int g_a, const char* op, void* val, I* index) {
  api(fn, [&] {
    if (!op || !val || !index) throw error(std::string() + "null argument");
    ga::select_kind kind;
    if (std::strncmp(op, "max", 3) == 0)
      kind = ga::select_kind::max;
    else if (std::strncmp(op, "min", 3) == 0)
      kind = ga::select_kind::min;
    else
      throw error(std::string() + "operator \"" + op + "\" (\"max\" or \"min\" expected)");
    with_array(g_a, fn, [&](auto& a) {
      const auto got = ga::select_elem(a, kind);
      std::memcpy(val, &got.value, sizeof(got.value));
      from_index(got.where, index, "index");
    });
  });
}

template <class F>
void matrix_vector(const char* fn, int g_a, int g_v, F f) {
  api(fn, [&] { with_arrays(fn, f, g_a, g_v); });
}

}  // namespace

extern "C" {

void GA_Abs_value(int g_a) {
  abs_value<int>("GA_Abs_value", g_a, nullptr, nullptr);
}
void GA_Abs_value_patch(int g_a, int* lo, int* hi) {
  abs_value("GA_Abs_value_patch", g_a, lo, hi);
}
void GA_Abs_value_patch64(int g_a, int64_t* lo, int64_t* hi) {
  abs_value("GA_Abs_value_patch64", g_a, lo, hi);
}
void GA_Add_constant(int g_a, void* alpha) {
  add_constant<int>("GA_Add_constant", g_a, nullptr, nullptr, alpha);
}
void GA_Add_constant_patch(int g_a, int* lo, int* hi, void* alpha) {
  add_constant("GA_Add_constant_patch", g_a, lo, hi, alpha);
}
void GA_Add_constant_patch64(int g_a, int64_t* lo, int64_t* hi, void* alpha) {
  add_constant("GA_Add_constant_patch64", g_a, lo, hi, alpha);
}
void GA_Recip(int g_a) {
  recip<int>("GA_Recip", g_a, nullptr, nullptr);
}
void GA_Recip_patch(int g_a, int* lo, int* hi) {
  recip("GA_Recip_patch", g_a, lo, hi);
}
void GA_Recip_patch64(int g_a, int64_t* lo, int64_t* hi) {
  recip("GA_Recip_patch64", g_a, lo, hi);
}

#define GAEA_ELEM(NAME, OP)                                                                      \
  void NAME(int g_a, int g_b, int g_c) {                                                         \
    elem<int>(#NAME, OP, g_a, nullptr, nullptr, g_b, nullptr, nullptr, g_c, nullptr, nullptr);   \
  }                                                                                              \
  void NAME##_patch(int g_a, int* alo, int* ahi, int g_b, int* blo, int* bhi, int g_c, int* clo, \
                    int* chi) {                                                                  \
    elem(#NAME "_patch", OP, g_a, alo, ahi, g_b, blo, bhi, g_c, clo, chi);                       \
  }                                                                                              \
  void NAME##_patch64(int g_a, int64_t* alo, int64_t* ahi, int g_b, int64_t* blo, int64_t* bhi,  \
                      int g_c, int64_t* clo, int64_t* chi) {                                     \
    elem(#NAME "_patch64", OP, g_a, alo, ahi, g_b, blo, bhi, g_c, clo, chi);                     \
  }
GAEA_ELEM(GA_Elem_multiply, ga::elem_op::multiply)
GAEA_ELEM(GA_Elem_divide, ga::elem_op::divide)
GAEA_ELEM(GA_Elem_maximum, ga::elem_op::maximum)
GAEA_ELEM(GA_Elem_minimum, ga::elem_op::minimum)
#undef GAEA_ELEM

void NGA_Select_elem(int g_a, const char* op, void* val, int* index) {
  select_elem("NGA_Select_elem", g_a, op, val, index);
}
void NGA_Select_elem64(int g_a, const char* op, void* val, int64_t* index) {
  select_elem("NGA_Select_elem64", g_a, op, val, index);
}

void GA_Get_diag(int g_a, int g_v) {
  matrix_vector("GA_Get_diag", g_a, g_v, [](auto& a, auto& v) { ga::get_diagonal(a, v); });
}
void GA_Set_diagonal(int g_a, int g_v) {
  matrix_vector("GA_Set_diagonal", g_a, g_v, [](auto& a, auto& v) { ga::set_diagonal(a, v); });
}
void GA_Add_diagonal(int g_a, int g_v) {
  matrix_vector("GA_Add_diagonal", g_a, g_v, [](auto& a, auto& v) { ga::add_diagonal(a, v); });
}
void GA_Scale_rows(int g_a, int g_v) {
  matrix_vector("GA_Scale_rows", g_a, g_v, [](auto& a, auto& v) { ga::scale_rows(a, v); });
}
void GA_Scale_cols(int g_a, int g_v) {
  matrix_vector("GA_Scale_cols", g_a, g_v, [](auto& a, auto& v) { ga::scale_cols(a, v); });
}
void GA_Shift_diagonal(int g_a, void* c) {
  api("GA_Shift_diagonal", [&] {
    with_array(g_a, "GA_Shift_diagonal", [&](auto& a) {
      ga::shift_diagonal(a, scalar_from<element_of<decltype(a)>>(c, "GA_Shift_diagonal"));
    });
  });
}
void GA_Zero_diagonal(int g_a) {
  api("GA_Zero_diagonal",
      [&] { with_array(g_a, "GA_Zero_diagonal", [](auto& a) { ga::zero_diagonal(a); }); });
}

}  // extern "C"
