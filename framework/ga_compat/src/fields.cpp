// User-registered element types (NGA_Register_type, NGA_Deregister_type) and transfers of one
// field of each element (NGA_Get_field, NGA_Put_field and their non-blocking forms): `fsize`
// bytes at byte `foff` of every element of a patch, packed in the buffer (`ld` in fields).

#include <cstring>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "detail/indices.hpp"
#include "detail/nb_handles.hpp"
#include "detail/state.hpp"
#include "ga.h"

using namespace gaea::ga_compat::detail;
namespace ga = gaea::ga;
using gaea::error;

namespace {

// Registered codes start well above the built-in ones and are given out lowest free first, as
// GA's.
constexpr int first_registered = first_registered_type;
constexpr int max_registered = 64;
std::map<int, std::size_t>& registered() {
  static std::map<int, std::size_t> m;
  return m;
}

// Calls fn(field bytes in the array's copy of element k, field bytes in buf) for every element
// of patch `p` in row-major order, `buf` laid out with leading extents `ld` (in fields).
template <class Fn>
void for_each_field(const ga::patch& p, const ga::index& ld, std::byte* elems, std::size_t esize,
                    int foff, int fsize, std::byte* buf, Fn&& fn) {
  const int n = p.ndim();
  ga::index c = p.lo;
  for (std::size_t k = 0;; ++k) {
    std::int64_t off = 0, stride = 1;
    for (int d = n - 1; d >= 0; --d) {
      const auto i = static_cast<std::size_t>(d);
      off += (c[i] - p.lo[i]) * stride;
      if (d > 0) stride *= ld[i - 1];
    }
    fn(elems + k * esize + static_cast<std::size_t>(foff),
       buf + static_cast<std::size_t>(off) * static_cast<std::size_t>(fsize));
    int d = n - 1;
    for (; d >= 0; --d) {
      const auto i = static_cast<std::size_t>(d);
      if (++c[i] <= p.hi[i]) break;
      c[i] = p.lo[i];
    }
    if (d < 0) break;
  }
}

// Get (put = false) or put of a field. A put reads the patch, replaces the field in every
// element and writes the patch back: the other bytes of each element are rewritten with the
// values read (GA writes the field bytes alone).
template <class I>
void field(int g_a, const I* lo, const I* hi, int foff, int fsize, void* buf, const I* ld, bool put,
           const char* fn) {
  with_array(g_a, fn, [&](auto& a) {
    using T = std::remove_reference_t<decltype(a.access()[0])>;
    if (foff < 0 || fsize < 1 ||
        static_cast<std::size_t>(foff) + static_cast<std::size_t>(fsize) > sizeof(T))
      throw error("field of " + std::to_string(fsize) + " bytes at offset " + std::to_string(foff) +
                  " does not fit in the " + std::to_string(sizeof(T)) + "-byte elements of '" +
                  a.name() + "'");
    const ga::patch p = to_patch(lo, hi, a.ndim());
    const ga::index l = to_ld(ld, p);
    if (buf == nullptr) throw error("null buffer");
    std::vector<T> elems(static_cast<std::size_t>(p.elements()));
    a.get(p, std::span<T>(elems));
    auto* raw = reinterpret_cast<std::byte*>(elems.data());
    auto* b = static_cast<std::byte*>(buf);
    const auto bytes = static_cast<std::size_t>(fsize);
    if (put) {
      for_each_field(p, l, raw, sizeof(T), foff, fsize, b,
                     [bytes](std::byte* e, std::byte* f) { std::memcpy(e, f, bytes); });
      a.put(p, std::span<const T>(elems));
    } else {
      for_each_field(p, l, raw, sizeof(T), foff, fsize, b,
                     [bytes](std::byte* e, std::byte* f) { std::memcpy(f, e, bytes); });
    }
  });
}

// The calls that only move, copy, zero or describe elements (without a "64" suffix): those GA
// allows on arrays of a registered type. Any other call refuses them (an allowlist, so that a
// call missing here refuses rather than doing arithmetic on opaque bytes).
const std::set<std::string_view>& opaque_calls() {
  static const std::set<std::string_view> s = {"NGA_Put",
                                               "NGA_Get",
                                               "NGA_NbPut",
                                               "NGA_NbGet",
                                               "NGA_Strided_put",
                                               "NGA_Strided_get",
                                               "NGA_Periodic_put",
                                               "NGA_Periodic_get",
                                               "NGA_Scatter",
                                               "NGA_Scatter_flat",
                                               "NGA_Gather",
                                               "NGA_Gather_flat",
                                               "NGA_Access",
                                               "NGA_Access_block",
                                               "NGA_Access_block_grid",
                                               "NGA_Access_block_segment",
                                               "NGA_Access_ghosts",
                                               "NGA_Access_ghost_element",
                                               "NGA_Get_ghost_block",
                                               "NGA_Release",
                                               "NGA_Release_update",
                                               "NGA_Release_block",
                                               "NGA_Release_update_block",
                                               "NGA_Release_block_grid",
                                               "NGA_Release_update_block_grid",
                                               "NGA_Release_block_segment",
                                               "NGA_Release_update_block_segment",
                                               "NGA_Release_ghosts",
                                               "NGA_Release_update_ghosts",
                                               "NGA_Release_ghost_element",
                                               "NGA_Release_update_ghost_element",
                                               "GA_Update_ghosts",
                                               "NGA_Update_ghost_dir",
                                               "NGA_Update_ghosts_nb",
                                               "NGA_NbGet_ghost_dir",
                                               "GA_Zero",
                                               "NGA_Zero_patch",
                                               "GA_Fill",
                                               "NGA_Fill_patch",
                                               "GA_Copy",
                                               "NGA_Copy_patch",
                                               "NGA_Merge_distr_patch",
                                               "GA_Duplicate",
                                               "GA_Destroy",
                                               "GA_Fence",
                                               "GA_Init_fence",
                                               "GA_Sync",
                                               "NGA_Get_field",
                                               "NGA_Put_field",
                                               "NGA_Nbget_field",
                                               "NGA_Nbput_field",
                                               "NGA_Inquire",
                                               "GA_Inquire_name",
                                               "GA_Ndim",
                                               "GA_Compare_distr",
                                               "GA_Has_ghosts",
                                               "GA_Total_blocks",
                                               "GA_Nblock",
                                               "GA_Uses_proc_grid",
                                               "GA_Get_proc_grid",
                                               "NGA_Get_proc_index",
                                               "GA_Get_block_info",
                                               "NGA_Distribution",
                                               "NGA_Locate",
                                               "NGA_Locate_region",
                                               "NGA_Locate_nnodes",
                                               "NGA_Locate_num_blocks",
                                               "GA_Print_distribution",
                                               "GA_Getmem",
                                               "GA_Assemble_duplicate",
                                               "GA_Overlay"};
  return s;
}

}  // namespace

namespace gaea::ga_compat::detail {

std::size_t registered_size(int type) {
  const auto it = registered().find(type);
  return it == registered().end() ? 0 : it->second;
}

void check_opaque_use(int type, const char* fn) {
  if (registered_size(type) == 0) return;
  std::string_view name(fn);
  if (name.ends_with("64")) name.remove_suffix(2);
  if (!opaque_calls().contains(name))
    throw error(std::string(fn) + ": the array holds " + type_name(type) +
                ", opaque elements: only moves, copies, fills and inquiries apply to them (GA "
                "does no arithmetic on a registered type)");
}

}  // namespace gaea::ga_compat::detail

extern "C" {

int NGA_Register_type(size_t bytes) {
  return api("NGA_Register_type", [&] {
    current("NGA_Register_type");
    if (bytes == 0) throw error("a type of 0 bytes");
    for (int t = first_registered; t < first_registered + max_registered; ++t)
      if (registered().emplace(t, bytes).second) return t;
    return -1;  // GA: no free type slot
  });
}
int NGA_Deregister_type(int type) {
  return api("NGA_Deregister_type", [&] {
    current("NGA_Deregister_type");
    if (type < first_registered) return -1;  // GA: a built-in type
    return registered().erase(type) == 1 ? 0 : -2;
  });
}

void NGA_Get_field(int g_a, int* lo, int* hi, int foff, int fsize, void* buf, int* ld) {
  api("NGA_Get_field",
      [&] { field<int>(g_a, lo, hi, foff, fsize, buf, ld, false, "NGA_Get_field"); });
}
void NGA_Put_field(int g_a, int* lo, int* hi, int foff, int fsize, void* buf, int* ld) {
  api("NGA_Put_field",
      [&] { field<int>(g_a, lo, hi, foff, fsize, buf, ld, true, "NGA_Put_field"); });
}
// The non-blocking forms complete before returning; their handles are complete for NGA_NbWait.
void NGA_Nbget_field(int g_a, int* lo, int* hi, int foff, int fsize, void* buf, int* ld,
                     ga_nbhdl_t* nbhandle) {
  api("NGA_Nbget_field", [&] {
    if (nbhandle == nullptr) throw error("null handle pointer");
    field<int>(g_a, lo, hi, foff, fsize, buf, ld, false, "NGA_Nbget_field");
    *nbhandle = remember_request(ga::request{});
  });
}
void NGA_Nbput_field(int g_a, int* lo, int* hi, int foff, int fsize, void* buf, int* ld,
                     ga_nbhdl_t* nbhandle) {
  api("NGA_Nbput_field", [&] {
    if (nbhandle == nullptr) throw error("null handle pointer");
    field<int>(g_a, lo, hi, foff, fsize, buf, ld, true, "NGA_Nbput_field");
    *nbhandle = remember_request(ga::request{});
  });
}

}  // extern "C"
