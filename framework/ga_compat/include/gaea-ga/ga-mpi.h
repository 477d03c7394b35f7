/* Gaea's Global Arrays compatibility layer: MPI communicators of GA's process groups. */
#ifndef GAEA_GA_GA_MPI_H
#define GAEA_GA_GA_MPI_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The communicators belong to the runtime: do not free them. Valid until GA_Terminate. */
MPI_Comm GA_MPI_Comm(void);
MPI_Comm GA_MPI_Comm_pgroup(int p_handle);
MPI_Comm GA_MPI_Comm_pgroup_default(void);

#ifdef __cplusplus
}
#endif

#endif
