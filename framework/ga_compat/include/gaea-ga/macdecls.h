/* Gaea's Global Arrays compatibility layer: the MA memory allocator.
 *
 * A thin implementation on the C heap: MA_init sets the per-process stack and heap budgets
 * (in elements of its type), allocations are counted against them, the stack is LIFO (popping
 * anything but the top is an error), and every error ends the job through GA_Error with its
 * message. Not an arena: allocations are separate heap blocks, and MA_get_index returns their
 * offset (in elements) from MA_get_mbase(datatype), which works for any aligned block. */
#ifndef GAEA_GA_MACDECLS_H
#define GAEA_GA_MACDECLS_H

#include "gacommon.h"
#include "matypes.h"
#include "typesf2c.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef long Boolean;
typedef Integer MA_AccessIndex;
typedef char* Pointer;
#define MA_TRUE 1
#define MA_FALSE 0
#define MA_DEFAULT_SPACE (-1)

Boolean MA_init(Integer datatype, Integer nominal_stack, Integer nominal_heap);
Boolean MA_initialized(void);
Boolean MA_alloc_get(Integer datatype, Integer nelem, const char* name, Integer* memhandle,
                     MA_AccessIndex* index);
Boolean MA_allocate_heap(Integer datatype, Integer nelem, const char* name, Integer* memhandle);
Boolean MA_free_heap(Integer memhandle);
Boolean MA_push_get(Integer datatype, Integer nelem, const char* name, Integer* memhandle,
                    MA_AccessIndex* index);
Boolean MA_push_stack(Integer datatype, Integer nelem, const char* name, Integer* memhandle);
Boolean MA_pop_stack(Integer memhandle);
Boolean MA_chop_stack(Integer memhandle);
Boolean MA_get_index(Integer memhandle, MA_AccessIndex* index);
Boolean MA_get_pointer(Integer memhandle, void* pointer);
Pointer MA_get_mbase(Integer datatype);
Integer MA_inquire_avail(Integer datatype);
Integer MA_inquire_heap(Integer datatype);
Integer MA_inquire_stack(Integer datatype);
Integer MA_sizeof(Integer datatype1, Integer nelem1, Integer datatype2);
Integer MA_sizeof_overhead(Integer datatype);
Boolean MA_set_auto_verify(Boolean value);
Boolean MA_set_error_print(Boolean value);
Boolean MA_set_hard_fail(Boolean value);
Boolean MA_verify_allocator_stuff(void);
void MA_summarize_allocated_blocks(void);
void MA_print_stats(Boolean printroutines);
Boolean MA_free_heap_piece(Integer memhandle, Integer nelem);
Boolean MA_init_memhandle_iterator(Integer* ithandle);
Boolean MA_get_next_memhandle(Integer* ithandle, Integer* memhandle);
Boolean MA_get_numalign(Integer* value);
Boolean MA_set_numalign(Integer value);
Integer MA_inquire_heap_check_stack(Integer datatype);
Integer MA_inquire_heap_no_partition(Integer datatype);
Integer MA_inquire_stack_check_heap(Integer datatype);
Integer MA_inquire_stack_no_partition(Integer datatype);
void MA_set_error_callback(void (*func)(void));
void MA_trace(Boolean value);

#ifdef __cplusplus
}
#endif

#endif
