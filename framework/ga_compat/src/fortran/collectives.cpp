// GA's Fortran API: collectives on local buffers (ga_brdcst, ga_*gop), mutexes and the MPI
// communicator (ga-mpi.fh). The first argument of ga_brdcst and ga_*gop is a message type GA
// programs still pass; it is ignored, as in GA.

#include <mpi.h>

#include "detail/fortran.hpp"
#include "ga-mpi.h"

using namespace gaea::ga_compat::fortran;

namespace {

int count(const fint* n, const char* fn) {
  return static_cast<int>(narrow(static_cast<std::int64_t>(*n), fn, "count"));
}

}  // namespace

extern "C" {

void ga_brdcst_(fint* /*type*/, void* buf, fint* bytes, fint* root) {
  GA_Brdcst(buf, static_cast<int>(*bytes), static_cast<int>(*root));
}
void ga_dgop_(fint* /*type*/, double* x, fint* n, const char* op, flen len) {
  api("ga_dgop", [&] { GA_Dgop(x, count(n, "ga_dgop"), from_fortran(op, len).c_str()); });
}
void ga_sgop_(fint* /*type*/, float* x, fint* n, const char* op, flen len) {
  api("ga_sgop", [&] { GA_Fgop(x, count(n, "ga_sgop"), from_fortran(op, len).c_str()); });
}
void ga_igop_(fint* /*type*/, fint* x, fint* n, const char* op, flen len) {
  api("ga_igop", [&] {
    if constexpr (sizeof(fint) == 8)
      GA_Lgop(reinterpret_cast<long*>(x), count(n, "ga_igop"), from_fortran(op, len).c_str());
    else
      GA_Igop(reinterpret_cast<int*>(x), count(n, "ga_igop"), from_fortran(op, len).c_str());
  });
}
void ga_zgop_(fint* /*type*/, DoubleComplex* x, fint* n, const char* op, flen len) {
  api("ga_zgop", [&] { GA_Zgop(x, count(n, "ga_zgop"), from_fortran(op, len).c_str()); });
}
void ga_cgop_(fint* /*type*/, SingleComplex* x, fint* n, const char* op, flen len) {
  api("ga_cgop", [&] { GA_Cgop(x, count(n, "ga_cgop"), from_fortran(op, len).c_str()); });
}
// ga_gop(type, x, n, op): the element type is `type` (MT_DBL, MT_INT, …).
void ga_gop_(fint* type, void* x, fint* n, const char* op, flen len) {
  api("ga_gop", [&] {
    GA_Gop(c_type(*type, "ga_gop"), x, count(n, "ga_gop"), from_fortran(op, len).c_str());
  });
}
void ga_pgroup_brdcst_(fint* p, fint* /*type*/, void* buf, fint* bytes, fint* root) {
  GA_Pgroup_brdcst(static_cast<int>(*p), buf, static_cast<int>(*bytes), static_cast<int>(*root));
}
void ga_pgroup_dgop_(fint* p, fint* /*type*/, double* x, fint* n, const char* op, flen len) {
  api("ga_pgroup_dgop", [&] {
    GA_Pgroup_dgop(static_cast<int>(*p), x, count(n, "ga_pgroup_dgop"),
                   from_fortran(op, len).c_str());
  });
}
void ga_pgroup_igop_(fint* p, fint* /*type*/, fint* x, fint* n, const char* op, flen len) {
  api("ga_pgroup_igop", [&] {
    if constexpr (sizeof(fint) == 8)
      GA_Pgroup_lgop(static_cast<int>(*p), reinterpret_cast<long*>(x), count(n, "ga_pgroup_igop"),
                     from_fortran(op, len).c_str());
    else
      GA_Pgroup_igop(static_cast<int>(*p), reinterpret_cast<int*>(x), count(n, "ga_pgroup_igop"),
                     from_fortran(op, len).c_str());
  });
}

fint ga_create_mutexes_(fint* number) {
  return to_logical(GA_Create_mutexes(static_cast<int>(*number)) != 0);
}
fint ga_destroy_mutexes_() {
  return to_logical(GA_Destroy_mutexes() != 0);
}
void ga_lock_(fint* mutex) {
  GA_Lock(static_cast<int>(*mutex));
}
void ga_unlock_(fint* mutex) {
  GA_Unlock(static_cast<int>(*mutex));
}

void ga_mpi_comm_(fint* comm) {
  *comm = MPI_Comm_c2f(GA_MPI_Comm());
}
void ga_mpi_comm_pgroup_(fint* comm, fint* p) {
  *comm = MPI_Comm_c2f(GA_MPI_Comm_pgroup(static_cast<int>(*p)));
}
void ga_mpi_comm_pgroup_default_(fint* comm) {
  *comm = MPI_Comm_c2f(GA_MPI_Comm_pgroup_default());
}

void nga_brdcst_(fint* type, void* buf, fint* bytes, fint* root) {
  ga_brdcst_(type, buf, bytes, root);
}
void nga_dgop_(fint* type, double* x, fint* n, const char* op, flen len) {
  ga_dgop_(type, x, n, op, len);
}
void nga_igop_(fint* type, fint* x, fint* n, const char* op, flen len) {
  ga_igop_(type, x, n, op, len);
}
void nga_gop_(fint* type, void* x, fint* n, const char* op, flen len) {
  ga_gop_(type, x, n, op, len);
}
void nga_lock_(fint* mutex) {
  ga_lock_(mutex);
}
void nga_unlock_(fint* mutex) {
  ga_unlock_(mutex);
}

}  // extern "C"
