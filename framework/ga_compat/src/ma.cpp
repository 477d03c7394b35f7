// MA, GA's local memory allocator, as a thin layer over the C heap: budgets from MA_init in
// elements of its type, a LIFO stack and a heap of separate aligned blocks, every error a
// job-ending GA error (MA's "hard fail" default).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "detail/state.hpp"
#include "macdecls.h"

using namespace gaea::ga_compat::detail;
using gaea::error;

namespace {

constexpr std::size_t alignment = 64;

struct block {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  Integer type = 0;
  std::string name;
  bool on_stack = false;
};

struct allocator {
  std::mutex mutex;
  bool initialized = false;
  std::size_t stack_limit = 0, heap_limit = 0;  // bytes
  std::size_t stack_used = 0, heap_used = 0;
  std::map<Integer, block> blocks;
  std::vector<Integer> stack;  // handles, bottom first
  Integer next = 1;
  Boolean auto_verify = MA_FALSE, error_print = MA_TRUE, hard_fail = MA_TRUE;
  Integer numalign = 0;  // MA_set_numalign: blocks aligned to 2^numalign bytes (at least 64)
  Boolean trace = MA_FALSE;
  void (*error_callback)(void) = nullptr;
};

allocator& ma() {
  static allocator a;
  return a;
}

// MA's sizes, also for the types global arrays do not take.
std::size_t size_of(Integer type, const char* fn) {
  const std::size_t s = type_size(static_cast<int>(type));
  if (s == 0) throw error(std::string(fn) + ": unknown MA data type " + std::to_string(type));
  return s;
}

Boolean allocate(Integer type, Integer nelem, const char* name, Integer* handle,
                 MA_AccessIndex* index, bool on_stack, const char* fn);

// One aligned base per type: indices returned by MA_get_index are offsets from it.
alignas(alignment) char mbase[alignment];

MA_AccessIndex index_of(const block& b) {
  const auto diff = reinterpret_cast<std::intptr_t>(b.ptr) - reinterpret_cast<std::intptr_t>(mbase);
  return static_cast<MA_AccessIndex>(
      diff / static_cast<std::intptr_t>(type_size(static_cast<int>(b.type))));
}

Boolean allocate(Integer type, Integer nelem, const char* name, Integer* handle,
                 MA_AccessIndex* index, bool on_stack, const char* fn) {
  allocator& a = ma();
  std::lock_guard lock(a.mutex);
  if (!a.initialized) throw error(std::string(fn) + ": MA_init has not been called");
  if (nelem < 0) throw error(std::string(fn) + ": " + std::to_string(nelem) + " elements");
  if (handle == nullptr) throw error(std::string(fn) + ": null memhandle");
  const std::size_t bytes = static_cast<std::size_t>(nelem) * size_of(type, fn);
  std::size_t& used = on_stack ? a.stack_used : a.heap_used;
  const std::size_t limit = on_stack ? a.stack_limit : a.heap_limit;
  if (used + bytes > limit)
    throw error(std::string(fn) + ": '" + (name ? name : "") + "' needs " + std::to_string(bytes) +
                " bytes; the MA " + (on_stack ? "stack" : "heap") + " has " +
                std::to_string(limit - used) + " of " + std::to_string(limit) + " left (MA_init)");
  const std::size_t align = std::max(alignment, std::size_t{1} << a.numalign);
  void* p =
      std::aligned_alloc(align, (std::max<std::size_t>(bytes, 1) + align - 1) / align * align);
  if (p == nullptr)
    throw error(std::string(fn) + ": out of memory for " + std::to_string(bytes) + " bytes");
  used += bytes;
  const Integer h = a.next++;
  a.blocks[h] = block{p, bytes, type, name ? name : "", on_stack};
  if (on_stack) a.stack.push_back(h);
  *handle = h;
  if (index) *index = index_of(a.blocks[h]);
  return MA_TRUE;
}

block take(Integer handle, bool on_stack, const char* fn) {
  allocator& a = ma();
  auto it = a.blocks.find(handle);
  if (it == a.blocks.end() || it->second.on_stack != on_stack)
    throw error(std::string(fn) + ": " + std::to_string(handle) + " is not a live MA " +
                (on_stack ? "stack" : "heap") + " handle");
  block b = it->second;
  a.blocks.erase(it);
  (on_stack ? a.stack_used : a.heap_used) -= b.bytes;
  std::free(b.ptr);
  return b;
}

const block& find(Integer handle, const char* fn) {
  allocator& a = ma();
  auto it = a.blocks.find(handle);
  if (it == a.blocks.end())
    throw error(std::string(fn) + ": " + std::to_string(handle) + " is not a live MA handle");
  return it->second;
}

}  // namespace

extern "C" {

Boolean MA_init(Integer datatype, Integer nominal_stack, Integer nominal_heap) {
  return api("MA_init", [&] {
    allocator& a = ma();
    std::lock_guard lock(a.mutex);
    if (a.initialized) throw error("MA_init: MA is already initialized");
    const std::size_t s = size_of(datatype, "MA_init");
    // Negative sizes ask for MA's default; this layer's default is 100 MB each.
    constexpr std::size_t fallback = std::size_t{100} << 20;
    a.stack_limit = nominal_stack < 0 ? fallback : static_cast<std::size_t>(nominal_stack) * s;
    a.heap_limit = nominal_heap < 0 ? fallback : static_cast<std::size_t>(nominal_heap) * s;
    a.initialized = true;
    return MA_TRUE;
  });
}
Boolean MA_initialized(void) {
  return ma().initialized ? MA_TRUE : MA_FALSE;
}

Boolean MA_push_get(Integer type, Integer n, const char* name, Integer* handle,
                    MA_AccessIndex* index) {
  return api("MA_push_get",
             [&] { return allocate(type, n, name, handle, index, true, "MA_push_get"); });
}
Boolean MA_push_stack(Integer type, Integer n, const char* name, Integer* handle) {
  return api("MA_push_stack",
             [&] { return allocate(type, n, name, handle, nullptr, true, "MA_push_stack"); });
}
Boolean MA_alloc_get(Integer type, Integer n, const char* name, Integer* handle,
                     MA_AccessIndex* index) {
  return api("MA_alloc_get",
             [&] { return allocate(type, n, name, handle, index, false, "MA_alloc_get"); });
}
Boolean MA_allocate_heap(Integer type, Integer n, const char* name, Integer* handle) {
  return api("MA_allocate_heap",
             [&] { return allocate(type, n, name, handle, nullptr, false, "MA_allocate_heap"); });
}
Boolean MA_free_heap(Integer handle) {
  return api("MA_free_heap", [&] {
    std::lock_guard lock(ma().mutex);
    take(handle, false, "MA_free_heap");
    return MA_TRUE;
  });
}
Boolean MA_pop_stack(Integer handle) {
  return api("MA_pop_stack", [&] {
    allocator& a = ma();
    std::lock_guard lock(a.mutex);
    if (a.stack.empty() || a.stack.back() != handle)
      throw error("MA_pop_stack: " + std::to_string(handle) +
                  " is not the top of the MA stack (the stack is last in, first out)");
    a.stack.pop_back();
    take(handle, true, "MA_pop_stack");
    return MA_TRUE;
  });
}
Boolean MA_chop_stack(Integer handle) {
  return api("MA_chop_stack", [&] {
    allocator& a = ma();
    std::lock_guard lock(a.mutex);
    const auto it = std::find(a.stack.begin(), a.stack.end(), handle);
    if (it == a.stack.end())
      throw error("MA_chop_stack: " + std::to_string(handle) + " is not on the MA stack");
    const std::size_t keep = static_cast<std::size_t>(it - a.stack.begin());
    while (a.stack.size() > keep) {  // frees `handle` and everything above it
      take(a.stack.back(), true, "MA_chop_stack");
      a.stack.pop_back();
    }
    return MA_TRUE;
  });
}
Boolean MA_get_index(Integer handle, MA_AccessIndex* index) {
  return api("MA_get_index", [&] {
    std::lock_guard lock(ma().mutex);
    *index = index_of(find(handle, "MA_get_index"));
    return MA_TRUE;
  });
}
Boolean MA_get_pointer(Integer handle, void* pointer) {
  return api("MA_get_pointer", [&] {
    std::lock_guard lock(ma().mutex);
    if (pointer == nullptr) throw error("MA_get_pointer: null pointer argument");
    *static_cast<void**>(pointer) = find(handle, "MA_get_pointer").ptr;
    return MA_TRUE;
  });
}
Pointer MA_get_mbase(Integer datatype) {
  return api("MA_get_mbase", [&] {
    (void)size_of(datatype, "MA_get_mbase");
    return static_cast<Pointer>(mbase);
  });
}
Integer MA_inquire_stack(Integer datatype) {
  return api("MA_inquire_stack", [&] {
    allocator& a = ma();
    std::lock_guard lock(a.mutex);
    return static_cast<Integer>((a.stack_limit - a.stack_used) /
                                size_of(datatype, "MA_inquire_stack"));
  });
}
Integer MA_inquire_heap(Integer datatype) {
  return api("MA_inquire_heap", [&] {
    allocator& a = ma();
    std::lock_guard lock(a.mutex);
    return static_cast<Integer>((a.heap_limit - a.heap_used) /
                                size_of(datatype, "MA_inquire_heap"));
  });
}
Integer MA_inquire_avail(Integer datatype) {
  return api("MA_inquire_avail", [&] {
    allocator& a = ma();
    std::lock_guard lock(a.mutex);
    const std::size_t free = a.stack_limit - a.stack_used + a.heap_limit - a.heap_used;
    return static_cast<Integer>(free / size_of(datatype, "MA_inquire_avail"));
  });
}
Integer MA_sizeof(Integer type1, Integer n1, Integer type2) {
  return api("MA_sizeof", [&] {
    const std::size_t bytes = static_cast<std::size_t>(n1) * size_of(type1, "MA_sizeof");
    const std::size_t s2 = size_of(type2, "MA_sizeof");
    return static_cast<Integer>((bytes + s2 - 1) / s2);  // elements of type2 that hold it
  });
}
Integer MA_sizeof_overhead(Integer datatype) {
  return api("MA_sizeof_overhead", [&] {
    return static_cast<Integer>((alignment + size_of(datatype, "MA_sizeof_overhead") - 1) /
                                size_of(datatype, "MA_sizeof_overhead"));
  });
}
Boolean MA_set_auto_verify(Boolean value) {
  std::lock_guard lock(ma().mutex);
  return std::exchange(ma().auto_verify, value);
}
Boolean MA_set_error_print(Boolean value) {
  std::lock_guard lock(ma().mutex);
  return std::exchange(ma().error_print, value);
}
Boolean MA_set_hard_fail(Boolean value) {
  // Errors always end the job here (as with MA's default hard_fail = true).
  std::lock_guard lock(ma().mutex);
  return std::exchange(ma().hard_fail, value);
}
Boolean MA_verify_allocator_stuff(void) {
  return MA_TRUE;
}
void MA_summarize_allocated_blocks(void) {
  allocator& a = ma();
  std::lock_guard lock(a.mutex);
  std::printf("MA: %zu blocks allocated\n", a.blocks.size());
  for (const auto& [h, b] : a.blocks)
    std::printf("  handle %ld '%s': %zu bytes on the %s\n", static_cast<long>(h), b.name.c_str(),
                b.bytes, b.on_stack ? "stack" : "heap");
  std::fflush(stdout);
}
void MA_print_stats(Boolean) {
  allocator& a = ma();
  std::lock_guard lock(a.mutex);
  std::printf("MA: stack %zu of %zu bytes used, heap %zu of %zu bytes used\n", a.stack_used,
              a.stack_limit, a.heap_used, a.heap_limit);
  std::fflush(stdout);
}

Boolean MA_free_heap_piece(Integer memhandle, Integer nelem) {
  // Gives back the last `nelem` elements of a heap block (all of them: the block is freed). The
  // memory stays where it is; only the heap budget gets it back.
  return api("MA_free_heap_piece", [&] {
    allocator& a = ma();
    std::unique_lock lock(a.mutex);
    auto it = a.blocks.find(memhandle);
    if (it == a.blocks.end() || it->second.on_stack)
      throw error(std::to_string(memhandle) + " is not a live MA heap handle");
    if (nelem < 0) throw error(std::to_string(nelem) + " elements");
    block& b = it->second;
    const std::size_t cut = static_cast<std::size_t>(nelem) * size_of(b.type, "MA_free_heap_piece");
    if (cut >= b.bytes) {
      lock.unlock();
      return MA_free_heap(memhandle);
    }
    b.bytes -= cut;
    a.heap_used -= cut;
    return static_cast<Boolean>(MA_TRUE);
  });
}
Boolean MA_init_memhandle_iterator(Integer* ithandle) {
  // The iterator is the last handle returned (0: none yet); blocks come in handle order.
  if (ithandle == nullptr) return MA_FALSE;
  *ithandle = 0;
  return MA_TRUE;
}
Boolean MA_get_next_memhandle(Integer* ithandle, Integer* memhandle) {
  if (ithandle == nullptr || memhandle == nullptr) return MA_FALSE;
  allocator& a = ma();
  std::lock_guard lock(a.mutex);
  const auto it = a.blocks.upper_bound(*ithandle);
  if (it == a.blocks.end()) return MA_FALSE;
  *ithandle = *memhandle = it->first;
  return MA_TRUE;
}
Boolean MA_get_numalign(Integer* value) {
  if (value == nullptr) return MA_FALSE;
  std::lock_guard lock(ma().mutex);
  *value = ma().numalign;
  return MA_TRUE;
}
Boolean MA_set_numalign(Integer value) {
  return api("MA_set_numalign", [&] {
    if (value < 0 || value > 30)
      throw error("alignment 2^" + std::to_string(value) + " bytes (0 to 30 are accepted)");
    std::lock_guard lock(ma().mutex);
    ma().numalign = value;
    return static_cast<Boolean>(MA_TRUE);
  });
}
// The stack and the heap have separate budgets here: "check" forms equal the plain ones, the
// "no partition" forms count both budgets' free space.
Integer MA_inquire_heap_check_stack(Integer datatype) {
  return MA_inquire_heap(datatype);
}
Integer MA_inquire_stack_check_heap(Integer datatype) {
  return MA_inquire_stack(datatype);
}
Integer MA_inquire_heap_no_partition(Integer datatype) {
  return MA_inquire_avail(datatype);
}
Integer MA_inquire_stack_no_partition(Integer datatype) {
  return MA_inquire_avail(datatype);
}
void MA_set_error_callback(void (*func)(void)) {
  // Recorded; MA errors end the job through GA_Error.
  std::lock_guard lock(ma().mutex);
  ma().error_callback = func;
}
void MA_trace(Boolean value) {
  // Recorded; this layer prints no allocation trace.
  std::lock_guard lock(ma().mutex);
  ma().trace = value;
}

}  // extern "C"
