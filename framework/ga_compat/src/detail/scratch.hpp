#pragma once
// The layer's own temporary buffers (subscript lists, element values of gathers and strided
// transfers): from the allocator a program registered with GA_Register_stack_memory, as GA's
// internal buffers are, or from the C++ heap when none is registered.

#include <cstddef>
#include <new>
#include <vector>

namespace gaea::ga_compat::detail {

/// `bytes` bytes aligned for any scalar, from the registered allocator (or the heap).
/// gaea::error when the registered allocator returns null.
void* scratch_allocate(std::size_t bytes, const char* what);
/// Frees what scratch_allocate returned (through the allocator that gave it).
void scratch_free(void* p) noexcept;

/// A std allocator over scratch_allocate, for std::vector.
template <class T>
struct scratch_allocator {
  using value_type = T;
  scratch_allocator() noexcept = default;
  template <class U>
  scratch_allocator(const scratch_allocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    static_assert(alignof(T) <= alignof(std::max_align_t));
    return static_cast<T*>(scratch_allocate(n * sizeof(T), "GA scratch"));
  }
  void deallocate(T* p, std::size_t) noexcept { scratch_free(p); }
  template <class U>
  bool operator==(const scratch_allocator<U>&) const noexcept {
    return true;
  }
};

/// A temporary vector of the layer.
template <class T>
using scratch_vector = std::vector<T, scratch_allocator<T>>;

}  // namespace gaea::ga_compat::detail
