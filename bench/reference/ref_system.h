/* Which Global Arrays a reference benchmark was built against: Debian's GA 5.8.2 or Gaea's GA C
 * API (framework/ga_compat). The source is the same; gacommon.h of the Gaea layer defines
 * GAEA_GA_COMPAT. */
#ifndef GAEA_BENCH_REF_SYSTEM_H
#define GAEA_BENCH_REF_SYSTEM_H

#include <ga.h>

#ifdef GAEA_GA_COMPAT
#define REF_SYSTEM "Gaea-GA-API"
#define REF_SYSTEM_SHORT "gaea-ga-api"
#else
#define REF_SYSTEM "GlobalArrays-5.8.2/ARMCI-MPI"
#define REF_SYSTEM_SHORT "ga"
#endif

#endif
