// Arrays over memory the program handles: GA_Getmem/GA_Freemem, GA_Assemble_duplicate (an array
// made from GA_Getmem memory) and GA_Overlay (an array in another array's memory).
//
// Gaea's arrays live in memory registered with the transport when they are created, so these
// calls give GA's observable results without sharing the program's memory: an assembled array
// starts with the contents of the GA_Getmem memory, an overlay gets its own storage.

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>

#include "detail/state.hpp"
#include "ga.h"

using namespace gaea::ga_compat::detail;
namespace ga = gaea::ga;
using gaea::error;

namespace {

// GA_Getmem's blocks of this process: their GA type and element count.
struct getmem_block {
  int type = 0;
  std::size_t elements = 0;
};
std::map<void*, getmem_block>& blocks() {
  static std::map<void*, getmem_block> m;
  return m;
}
bool hooked = false;

void free_all() {
  for (auto& [p, b] : blocks())
    std::free(p);
  blocks().clear();
  hooked = false;
}

}  // namespace

extern "C" {

void* GA_Getmem(int type, int nelem, int grp_id) {
  // Memory of the calling process (GA takes it from its own pool); freed by GA_Freemem, or by
  // GA_Terminate once an assembled array owns it.
  return api("GA_Getmem", [&] {
    current("GA_Getmem");
    (void)grp_id;
    const std::size_t size = type_size(type);
    if (size == 0 || nelem < 0)
      throw error(std::to_string(nelem) + " elements of " + type_name(type));
    void* p = std::calloc(std::max<std::size_t>(size * static_cast<std::size_t>(nelem), 1), 1);
    if (p == nullptr) throw error("out of memory");
    if (!hooked) {
      add_terminate_hook(free_all);
      hooked = true;
    }
    blocks()[p] = {type, static_cast<std::size_t>(nelem)};
    return p;
  });
}

void GA_Freemem(void* ptr) {
  auto it = blocks().find(ptr);
  if (it != blocks().end()) blocks().erase(it);
  std::free(ptr);
}

int GA_Assemble_duplicate(int g_a, const char* name, void* ptr) {
  // GA makes an array of g_a's distribution whose data is the GA_Getmem memory at `ptr` (its
  // element type is the memory's). Here the array starts with that memory's contents.
  return api("GA_Assemble_duplicate", [&] {
    const char* fn = "GA_Assemble_duplicate";
    state& st = current(fn);
    const auto it = blocks().find(ptr);
    if (it == blocks().end()) throw error("the memory at ptr does not come from GA_Getmem");
    const getmem_block mem = it->second;
    array_slot& src = st.arrays.allocated(g_a, fn);
    const auto [dims, spec] =
        with_slot_array(src, fn, [](auto& a) { return std::pair(a.dims(), a.layout().spec()); });
    const int g_b = GA_Create_handle();
    array_slot& s = st.arrays.at(g_b, fn);
    s.name = name ? name : "";
    s.pending.type = mem.type;
    s.pending.dims = dims;
    s.pending.spec = spec;
    if (!GA_Allocate(g_b)) {
      GA_Destroy(g_b);
      return 0;
    }
    with_array(g_b, fn, [&](auto& b) {
      using T = std::remove_reference_t<decltype(b.access()[0])>;
      const auto local = b.access();
      if (mem.elements < local.size())
        throw error("GA_Getmem gave " + std::to_string(mem.elements) + " elements; rank " +
                    std::to_string(st.rt->rank()) + "'s part of '" + s.name + "' holds " +
                    std::to_string(local.size()));
      std::memcpy(local.data(), ptr, local.size() * sizeof(T));
      b.sync();
    });
    return g_b;
  });
}

int GA_Overlay(int g_a, int g_p) {
  // GA puts g_a's data in g_p's memory (both then alias); here g_a gets its own storage, after
  // the same check that it fits in g_p's part on every rank, and is not charged to the budget.
  return api("GA_Overlay", [&] {
    const char* fn = "GA_Overlay";
    state& st = current(fn);
    array_slot& parent = st.arrays.allocated(g_p, fn);
    array_slot& child = st.arrays.at(g_a, fn);
    if (child.allocated()) throw error("array '" + child.name + "' is already allocated");
    if (child.pending.dims.empty())
      throw error("array handle " + std::to_string(g_a) + " has no data (call GA_Set_data first)");
    const std::string name = child.name.empty() ? "overlay" : child.name;
    const std::size_t esize = type_size(child.pending.type);
    const ga::distribution d(name, child.pending.dims, st.rt->size(), child.pending.spec);
    with_slot_array(parent, fn, [&](auto& p) {
      using T = std::remove_reference_t<decltype(p.access()[0])>;
      for (int r = 0; r < st.rt->size(); ++r) {
        const auto need = static_cast<std::size_t>(d.storage_elements(r)) * esize;
        const auto have = static_cast<std::size_t>(p.layout().storage_elements(r)) * sizeof(T);
        if (need > have)
          throw error("array '" + name + "' needs " + std::to_string(need) + " bytes on rank " +
                      std::to_string(r) + "; parent '" + parent.name + "' has " +
                      std::to_string(have));
      }
    });
    // Not charged to the budget (GA's overlay takes no memory): allocate without the limit.
    const std::size_t limit = std::exchange(st.memory_limit, 0);
    const int ok = GA_Allocate(g_a);
    st.memory_limit = limit;
    if (!ok) return 0;
    array_slot& s = st.arrays.at(g_a, fn);
    for (std::size_t i = 0; i < s.bytes_per_rank.size(); ++i)
      st.memory_used[i] -= s.bytes_per_rank[i];
    s.bytes_per_rank.clear();
    return 1;
  });
}
int NGA_Overlay(int g_a, int g_p) {
  return GA_Overlay(g_a, g_p);
}

}  // extern "C"
