// Element lists and atomic increments: NGA_Gather/Scatter/Scatter_acc (subscript arrays of
// pointers, or flat), NGA_Read_inc, in 32- and 64-bit index variants, and the gather/scatter
// buffer hints. Each maps onto the native element-list operations of gaea::global_array (one
// message per owner, served by its progress thread).

#include <string>
#include <type_traits>
#include <vector>

#include "detail/indices.hpp"
#include "detail/scratch.hpp"
#include "detail/state.hpp"
#include "ga.h"

using namespace gaea::ga_compat::detail;
namespace ga = gaea::ga;
using gaea::error;

namespace {

enum class list_op { gather, scatter, scatter_acc };

// The n subscripts of an ndim-dimensional array: `ptrs[i]` points to element i's indices
// (GA's int* subsarray[]) or, when `ptrs` is null, `flat` holds them one after the other.
template <class I>
scratch_vector<ga::index> subscripts(const I* const* ptrs, const I* flat, std::int64_t n, int ndim,
                                     const char* fn) {
  if (n < 0) throw error(std::string(fn) + ": n=" + std::to_string(n) + " must be >= 0");
  if (n > 0 && ptrs == nullptr && flat == nullptr)
    throw error(std::string(fn) + ": null subscript array");
  scratch_vector<ga::index> subs;
  subs.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const I* s = ptrs ? ptrs[i] : flat + i * ndim;
    if (s == nullptr)
      throw error(std::string(fn) + ": subscript " + std::to_string(i) + " is a null pointer");
    subs.push_back(to_index(s, ndim, "subscript"));
  }
  return subs;
}

template <class I>
void element_list(const char* fn, list_op op, int g_a, void* v, const I* const* ptrs, const I* flat,
                  std::int64_t n, const void* alpha) {
  with_array(g_a, fn, [&](auto& a) {
    using T = element_of<decltype(a)>;
    const scratch_vector<ga::index> subs = subscripts(ptrs, flat, n, a.ndim(), fn);
    const std::span<T> vals = buffer<T>(v, subs.size(), fn);
    switch (op) {
      case list_op::gather:
        a.gather(subs, vals);
        break;
      case list_op::scatter:
        a.scatter(subs, std::span<const T>(vals));
        break;
      case list_op::scatter_acc:
        a.scatter_acc(subs, std::span<const T>(vals), scalar_from<T>(alpha, fn));
        break;
    }
  });
}

template <class I>
long read_inc(const char* fn, int g_a, const I* subscript, long inc) {
  return with_array(g_a, fn, [&](auto& a) -> long {
    using T = element_of<decltype(a)>;
    if constexpr (std::is_integral_v<T>) {
      const ga::index e = to_index(subscript, a.ndim(), "subscript");
      return static_cast<long>(a.read_inc(e, static_cast<T>(inc)));
    } else {
      throw error(std::string(fn) + ": array '" + a.name() +
                  "' does not hold integers (C_INT, C_LONG or C_LONGLONG are needed)");
    }
  });
}

std::int64_t g_gatscat_hint = -1;  // NGA_Alloc_gatscat_buf's size while one is "allocated"

}  // namespace

extern "C" {

void NGA_Gather(int g_a, void* v, int* subsarray[], int n) {
  api("NGA_Gather", [&] {
    element_list<int>("NGA_Gather", list_op::gather, g_a, v, subsarray, nullptr, n, nullptr);
  });
}
void NGA_Gather_flat(int g_a, void* v, int subsarray[], int n) {
  api("NGA_Gather_flat", [&] {
    element_list<int>("NGA_Gather_flat", list_op::gather, g_a, v, nullptr, subsarray, n, nullptr);
  });
}
void NGA_Scatter(int g_a, void* v, int* subsarray[], int n) {
  api("NGA_Scatter", [&] {
    element_list<int>("NGA_Scatter", list_op::scatter, g_a, v, subsarray, nullptr, n, nullptr);
  });
}
void NGA_Scatter_flat(int g_a, void* v, int subsarray[], int n) {
  api("NGA_Scatter_flat", [&] {
    element_list<int>("NGA_Scatter_flat", list_op::scatter, g_a, v, nullptr, subsarray, n, nullptr);
  });
}
void NGA_Scatter_acc(int g_a, void* v, int* subsarray[], int n, void* alpha) {
  api("NGA_Scatter_acc", [&] {
    element_list<int>("NGA_Scatter_acc", list_op::scatter_acc, g_a, v, subsarray, nullptr, n,
                      alpha);
  });
}
void NGA_Scatter_acc_flat(int g_a, void* v, int subsarray[], int n, void* alpha) {
  api("NGA_Scatter_acc_flat", [&] {
    element_list<int>("NGA_Scatter_acc_flat", list_op::scatter_acc, g_a, v, nullptr, subsarray, n,
                      alpha);
  });
}
void NGA_Gather64(int g_a, void* v, int64_t* subsarray[], int64_t n) {
  api("NGA_Gather64", [&] {
    element_list<int64_t>("NGA_Gather64", list_op::gather, g_a, v, subsarray, nullptr, n, nullptr);
  });
}
void NGA_Gather_flat64(int g_a, void* v, int64_t subsarray[], int64_t n) {
  api("NGA_Gather_flat64", [&] {
    element_list<int64_t>("NGA_Gather_flat64", list_op::gather, g_a, v, nullptr, subsarray, n,
                          nullptr);
  });
}
void NGA_Scatter64(int g_a, void* v, int64_t* subsarray[], int64_t n) {
  api("NGA_Scatter64", [&] {
    element_list<int64_t>("NGA_Scatter64", list_op::scatter, g_a, v, subsarray, nullptr, n,
                          nullptr);
  });
}
void NGA_Scatter_flat64(int g_a, void* v, int64_t subsarray[], int64_t n) {
  api("NGA_Scatter_flat64", [&] {
    element_list<int64_t>("NGA_Scatter_flat64", list_op::scatter, g_a, v, nullptr, subsarray, n,
                          nullptr);
  });
}
void NGA_Scatter_acc64(int g_a, void* v, int64_t* subsarray[], int64_t n, void* alpha) {
  api("NGA_Scatter_acc64", [&] {
    element_list<int64_t>("NGA_Scatter_acc64", list_op::scatter_acc, g_a, v, subsarray, nullptr, n,
                          alpha);
  });
}
void NGA_Scatter_acc_flat64(int g_a, void* v, int64_t subsarray[], int64_t n, void* alpha) {
  api("NGA_Scatter_acc_flat64", [&] {
    element_list<int64_t>("NGA_Scatter_acc_flat64", list_op::scatter_acc, g_a, v, nullptr,
                          subsarray, n, alpha);
  });
}

long NGA_Read_inc(int g_a, int subscript[], long inc) {
  return api("NGA_Read_inc", [&] { return read_inc<int>("NGA_Read_inc", g_a, subscript, inc); });
}
long NGA_Read_inc64(int g_a, int64_t subscript[], long inc) {
  return api("NGA_Read_inc64",
             [&] { return read_inc<int64_t>("NGA_Read_inc64", g_a, subscript, inc); });
}

// Buffers for gather/scatter: Gaea sizes its messages per call, so these are hints, checked for
// pairing.
void NGA_Alloc_gatscat_buf(int nelems) {
  api("NGA_Alloc_gatscat_buf", [&] {
    current("NGA_Alloc_gatscat_buf");
    if (nelems < 0) throw error("nelems=" + std::to_string(nelems) + " must be >= 0");
    if (g_gatscat_hint >= 0)
      throw error("a gather/scatter buffer of " + std::to_string(g_gatscat_hint) +
                  " elements is allocated already (NGA_Free_gatscat_buf first)");
    g_gatscat_hint = nelems;
  });
}
void NGA_Free_gatscat_buf(void) {
  api("NGA_Free_gatscat_buf", [&] {
    current("NGA_Free_gatscat_buf");
    if (g_gatscat_hint < 0) throw error("no gather/scatter buffer is allocated");
    g_gatscat_hint = -1;
  });
}

}  // extern "C"
