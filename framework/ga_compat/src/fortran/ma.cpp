// MA's Fortran interface (mafdecls.fh): the C allocator with indices into the program's MA
// common blocks (dbl_mb(index) is the first element of a dbl allocation).

#include <map>
#include <mutex>

#include "detail/fortran.hpp"
#include "macdecls.h"

using namespace gaea::ga_compat::fortran;
using gaea::error;

namespace {

// Fortran type of each block this interface allocated: MA_get_index needs it, and a block may
// start one element late when its common block is less aligned than its elements.
struct f_block {
  fint type;
  std::size_t shift;  // bytes from the C block's start to the element `index` names
};

struct f_blocks {
  std::mutex mutex;
  std::map<Integer, f_block> blocks;
};

f_blocks& table() {
  static f_blocks t;
  return t;
}

// One element more when the common block of `type` is not aligned to its element size (the
// C blocks are 64-byte aligned): the data then starts at the first element index can name.
Integer padded(fint type, fint n, const char* fn) {
  return static_cast<Integer>(n) + (mb_shift(type, nullptr, fn) != 0 ? 1 : 0);
}

fint allocate(fint* type, fint* n, const char* name, flen len, fint* handle, findex* index,
              bool on_stack, const char* fn) {
  return api(fn, [&] {
    const std::string s = from_fortran(name, len);
    Integer h = 0;
    const Integer ct = c_type(*type, fn), count = padded(*type, *n, fn);
    const Boolean ok = on_stack ? MA_push_stack(ct, count, s.c_str(), &h)
                                : MA_allocate_heap(ct, count, s.c_str(), &h);
    if (ok != MA_TRUE) return to_logical(false);
    void* p = nullptr;
    MA_get_pointer(h, &p);
    const std::size_t shift = mb_shift(*type, p, fn);
    {
      std::lock_guard lock(table().mutex);
      table().blocks[h] = f_block{*type, shift};
    }
    *handle = narrow(h, fn, "MA handle");
    if (index) *index = mb_index(*type, static_cast<char*>(p) + shift, fn);
    return to_logical(true);
  });
}

void forget(fint handle) {
  std::lock_guard lock(table().mutex);
  table().blocks.erase(static_cast<Integer>(handle));
}

}  // namespace

extern "C" {

fint ma_init_(fint* type, fint* stack, fint* heap) {
  return api("ma_init", [&] {
    return to_logical(MA_init(c_type(*type, "ma_init"), *stack, *heap) == MA_TRUE);
  });
}
fint ma_initialized_() {
  return to_logical(MA_initialized() == MA_TRUE);
}
fint ma_push_get_(fint* type, fint* n, const char* name, fint* handle, findex* index, flen len) {
  return allocate(type, n, name, len, handle, index, true, "ma_push_get");
}
fint ma_push_stack_(fint* type, fint* n, const char* name, fint* handle, flen len) {
  return allocate(type, n, name, len, handle, nullptr, true, "ma_push_stack");
}
fint ma_alloc_get_(fint* type, fint* n, const char* name, fint* handle, findex* index, flen len) {
  return allocate(type, n, name, len, handle, index, false, "ma_alloc_get");
}
fint ma_allocate_heap_(fint* type, fint* n, const char* name, fint* handle, flen len) {
  return allocate(type, n, name, len, handle, nullptr, false, "ma_allocate_heap");
}
fint ma_pop_stack_(fint* handle) {
  const bool ok = MA_pop_stack(*handle) == MA_TRUE;
  if (ok) forget(*handle);
  return to_logical(ok);
}
fint ma_chop_stack_(fint* handle) {
  // The blocks above `handle` go too; their table entries are dropped when the C layer no
  // longer knows them (a later MA_get_index on them is an error there).
  const bool ok = MA_chop_stack(*handle) == MA_TRUE;
  if (ok) forget(*handle);
  return to_logical(ok);
}
fint ma_free_heap_(fint* handle) {
  const bool ok = MA_free_heap(*handle) == MA_TRUE;
  if (ok) forget(*handle);
  return to_logical(ok);
}
fint ma_get_index_(fint* handle, findex* index) {
  return api("ma_get_index", [&] {
    f_block b{};
    {
      std::lock_guard lock(table().mutex);
      const auto it = table().blocks.find(*handle);
      if (it == table().blocks.end())
        throw error("ma_get_index: " + std::to_string(*handle) +
                    " is not an MA handle allocated from Fortran");
      b = it->second;
    }
    void* p = nullptr;
    MA_get_pointer(*handle, &p);
    *index = mb_index(b.type, static_cast<char*>(p) + b.shift, "ma_get_index");
    return to_logical(true);
  });
}
fint ma_inquire_avail_(fint* type) {
  return api("ma_inquire_avail", [&] {
    return narrow(MA_inquire_avail(c_type(*type, "ma_inquire_avail")), "ma_inquire_avail", "count");
  });
}
fint ma_inquire_heap_(fint* type) {
  return api("ma_inquire_heap", [&] {
    return narrow(MA_inquire_heap(c_type(*type, "ma_inquire_heap")), "ma_inquire_heap", "count");
  });
}
fint ma_inquire_stack_(fint* type) {
  return api("ma_inquire_stack", [&] {
    return narrow(MA_inquire_stack(c_type(*type, "ma_inquire_stack")), "ma_inquire_stack", "count");
  });
}
fint ma_sizeof_(fint* type1, fint* n1, fint* type2) {
  return api("ma_sizeof", [&] {
    return narrow(MA_sizeof(c_type(*type1, "ma_sizeof"), *n1, c_type(*type2, "ma_sizeof")),
                  "ma_sizeof", "size");
  });
}
fint ma_sizeof_overhead_(fint* type) {
  return api("ma_sizeof_overhead", [&] {
    return narrow(MA_sizeof_overhead(c_type(*type, "ma_sizeof_overhead")), "ma_sizeof_overhead",
                  "size");
  });
}
fint ma_set_auto_verify_(fint* value) {
  return to_logical(MA_set_auto_verify(*value != 0 ? MA_TRUE : MA_FALSE) == MA_TRUE);
}
fint ma_set_error_print_(fint* value) {
  return to_logical(MA_set_error_print(*value != 0 ? MA_TRUE : MA_FALSE) == MA_TRUE);
}
fint ma_set_hard_fail_(fint* value) {
  return to_logical(MA_set_hard_fail(*value != 0 ? MA_TRUE : MA_FALSE) == MA_TRUE);
}
fint ma_verify_allocator_stuff_() {
  return to_logical(MA_verify_allocator_stuff() == MA_TRUE);
}
void ma_summarize_allocated_blocks_() {
  MA_summarize_allocated_blocks();
}
void ma_print_stats_(fint* printroutines) {
  MA_print_stats(*printroutines != 0 ? MA_TRUE : MA_FALSE);
}

}  // extern "C"
