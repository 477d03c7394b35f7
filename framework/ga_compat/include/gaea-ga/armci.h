/* Gaea's Global Arrays compatibility layer: the ARMCI entry points GA programs call beside GA
 * (GA's tests and examples: start-up, memory, the timer). Not ARMCI's one-sided API: memory
 * from ARMCI_Malloc is this process's own, and the other ranks' addresses it lists are for
 * identification only (use global arrays for remote access). The message helpers
 * (armci_msg_*) are in message.h. */
#ifndef GAEA_GA_ARMCI_H
#define GAEA_GA_ARMCI_H

#include <stddef.h>

#include "message.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef long armci_size_t;

/* Start GA (and with it Gaea's runtime) unless it is running; 0 on success, as ARMCI. */
int ARMCI_Init(void);
int ARMCI_Init_args(int* argc, char*** argv);
int ARMCI_Initialized(void);
/* Ends GA if ARMCI_Init started it; 0 on success. */
int ARMCI_Finalize(void);
/* Collective: `size` bytes on this rank; base_ptrs[r] = rank r's address. 0 on success. */
int ARMCI_Malloc(void** base_ptrs, armci_size_t size);
/* Collective: frees what ARMCI_Malloc gave this rank. */
int ARMCI_Free(void* ptr);
/* Local memory (not collective). */
void* ARMCI_Malloc_local(armci_size_t size);
int ARMCI_Free_local(void* ptr);

#ifdef __cplusplus
}
#endif

#endif
