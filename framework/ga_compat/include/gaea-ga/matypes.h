/* Gaea's Global Arrays compatibility layer: MA data-type codes (MT_*).
 * The values are Gaea's own; programs use the names. */
#ifndef GAEA_GA_MATYPES_H
#define GAEA_GA_MATYPES_H

#define MT_BASE 1000
/* C types */
#define MT_C_CHAR (MT_BASE + 0)
#define MT_C_INT (MT_BASE + 1)
#define MT_C_LONGINT (MT_BASE + 2)
#define MT_C_FLOAT (MT_BASE + 3)
#define MT_C_DBL (MT_BASE + 4)
#define MT_C_LDBL (MT_BASE + 5)
#define MT_C_SCPL (MT_BASE + 6)
#define MT_C_DCPL (MT_BASE + 7)
#define MT_C_LDCPL (MT_BASE + 8)
#define MT_C_LONGLONG (MT_BASE + 9)
/* Fortran types as C sees them: INTEGER and LOGICAL are `Integer` (long), REAL is float */
#define MT_F_BYTE (MT_BASE + 10)
#define MT_F_INT (MT_BASE + 11)
#define MT_F_LOG (MT_BASE + 12)
#define MT_F_REAL (MT_BASE + 13)
#define MT_F_DBL (MT_BASE + 14)
#define MT_F_SCPL (MT_BASE + 15)
#define MT_F_DCPL (MT_BASE + 16)
#define MT_FIRST MT_C_CHAR
#define MT_LAST MT_F_DCPL
#define MT_NUMTYPES (MT_LAST - MT_FIRST + 1)

/* Short names (C only: Fortran declares them as parameters in mafdecls.fh) */
#ifndef GAEA_GA_FORTRAN_SOURCE
#define MT_CHAR MT_C_CHAR
#define MT_INT MT_F_INT
#define MT_LOG MT_F_LOG
#define MT_REAL MT_F_REAL
#define MT_DBL MT_F_DBL
#define MT_SCPL MT_F_SCPL
#define MT_DCPL MT_F_DCPL
#define MT_BYTE MT_F_BYTE
#endif

#endif
