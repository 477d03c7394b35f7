/* Gaea's Global Arrays compatibility layer: constants shared by ga.h and macdecls.h. */
#ifndef GAEA_GA_GACOMMON_H
#define GAEA_GA_GACOMMON_H

#include "matypes.h"

/* The GA API level this layer follows, and this layer's own marker. */
#define GA_VERSION_MAJOR 5
#define GA_VERSION_MINOR 8
#define GA_VERSION_PATCH 0
#define GAEA_GA_COMPAT 1

#define GA_MAX_DIM 7

/* Element types of global arrays (and MA allocations). */
#define C_CHAR MT_C_CHAR
#define C_INT MT_C_INT
#define C_LONG MT_C_LONGINT
#define C_LONGLONG MT_C_LONGLONG
#define C_FLOAT MT_C_FLOAT
#define C_DBL MT_C_DBL
#define C_LDBL MT_C_LDBL
#define C_SCPL MT_C_SCPL
#define C_DCPL MT_C_DCPL
#define C_LDCPL MT_C_LDCPL
#define F_BYTE MT_F_BYTE
#define F_INT MT_F_INT
#define F_LOG MT_F_LOG
#define F_REAL MT_F_REAL
#define F_DBL MT_F_DBL
#define F_SCPL MT_F_SCPL
#define F_DCPL MT_F_DCPL

#endif
