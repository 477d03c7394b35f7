// GA_Register_stack_memory and the layer's temporary buffers (detail/scratch.hpp). GA takes its
// internal buffers from MA's stack unless a program registers an external allocator; the layer
// never uses MA's stack, and takes them from the registered allocator once there is one.

#include "detail/scratch.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "detail/state.hpp"
#include "ga.h"

using namespace gaea::ga_compat::detail;
using gaea::error;

namespace {

using alloc_fn = void* (*)(std::size_t, int, char*);
using free_fn = void (*)(void*);

// Both change together (one registration); threads read them lock-free.
struct external {
  alloc_fn alloc;
  free_fn free;
};
std::atomic<const external*> g_external{nullptr};

// Every block starts with a header (the registered free, or null for the heap, and the address
// the allocator gave), padded so that the caller's part is aligned for any scalar.
struct header {
  free_fn free;
  void* raw;
};
constexpr std::size_t align = alignof(std::max_align_t);
constexpr std::size_t header_room = (sizeof(header) + align - 1) / align * align;

}  // namespace

namespace gaea::ga_compat::detail {

void* scratch_allocate(std::size_t bytes, const char* what) {
  const std::size_t total = bytes + header_room + align;  // room to align what we are given
  const external* ext = g_external.load(std::memory_order_acquire);
  void* raw = nullptr;
  if (ext) {
    std::string name(what);
    raw = ext->alloc(total, static_cast<int>(align), name.data());
    if (raw == nullptr)
      throw error(std::string("the allocator registered with GA_Register_stack_memory returned "
                              "null for ") +
                  std::to_string(total) + " bytes ('" + what + "')");
  } else {
    raw = ::operator new(total);
  }
  auto at = reinterpret_cast<std::uintptr_t>(raw) + header_room;
  at = (at + align - 1) / align * align;
  auto* h = reinterpret_cast<header*>(at - sizeof(header));
  h->free = ext ? ext->free : nullptr;
  h->raw = raw;
  return reinterpret_cast<void*>(at);
}

void scratch_free(void* p) noexcept {
  if (p == nullptr) return;
  const header* h =
      reinterpret_cast<const header*>(reinterpret_cast<std::uintptr_t>(p) - sizeof(header));
  if (h->free)
    h->free(h->raw);
  else
    ::operator delete(h->raw);
}

}  // namespace gaea::ga_compat::detail

extern "C" {

void GA_Register_stack_memory(void* (*ext_alloc)(size_t, int, char*), void (*ext_free)(void*)) {
  api("GA_Register_stack_memory", [&] {
    if (ext_alloc == nullptr || ext_free == nullptr)
      throw error("null allocator or free function (both are needed)");
    // Blocks already given out keep their own free function (in their header); a replaced
    // registration stays allocated, as a block may still name its functions.
    g_external.store(new external{ext_alloc, ext_free}, std::memory_order_release);
  });
}

}  // extern "C"
