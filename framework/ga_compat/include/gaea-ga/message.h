/* Gaea's Global Arrays compatibility layer: ARMCI's message helpers (armci_msg_*) and timer, as
 * GA's tests call them, over the ranks GA runs on (GA_Initialize first). Operators and
 * semantics are GA_Dgop's ("+", "*", "max", "min", "absmax", "absmin"). */
#ifndef GAEA_GA_MESSAGE_H
#define GAEA_GA_MESSAGE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Wall-clock seconds (MPI_Wtime). */
double armci_timer(void);
int armci_msg_me(void);
int armci_msg_nproc(void);
void armci_msg_barrier(void);
void armci_msg_abort(int code);
void armci_msg_brdcst(void* buffer, int len, int root);
void armci_msg_bcast(void* buffer, int len, int root);
void armci_msg_igop(int* x, int n, const char* op);
void armci_msg_lgop(long* x, int n, const char* op);
void armci_msg_llgop(long long* x, int n, const char* op);
void armci_msg_fgop(float* x, int n, const char* op);
void armci_msg_dgop(double* x, int n, const char* op);

#ifdef __cplusplus
}
#endif

#endif
