// ARMCI's entry points that GA programs call beside GA (armci.h, message.h), and GA 5.9's
// GA_Initialize_comm: GA (and Gaea's runtime) on the ranks of a communicator.

#include <mpi.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "armci.h"
#include "detail/state.hpp"
#include "ga.h"

using namespace gaea::ga_compat::detail;
using gaea::error;

namespace {
bool armci_started_ga = false;  // ARMCI_Finalize ends GA only if ARMCI_Init started it

int rank_of(const char* fn) {
  return current(fn).rt->rank();
}
}  // namespace

extern "C" {

int GA_Initialize_comm(MPI_Comm comm) {
  return api("GA_Initialize_comm", [&] {
    if (comm == MPI_COMM_NULL) throw error("MPI_COMM_NULL is not a communicator to run GA on");
    initialize(nullptr, nullptr, 0, comm);
    return 1;
  });
}
int NGA_Initialize_comm(MPI_Comm comm) {
  return GA_Initialize_comm(comm);
}

int ARMCI_Init(void) {
  return ARMCI_Init_args(nullptr, nullptr);
}
int ARMCI_Init_args(int* argc, char*** argv) {
  return api("ARMCI_Init", [&] {
    if (current_or_null() == nullptr) {
      initialize(argc, argv, 0);
      armci_started_ga = true;
    }
    return 0;
  });
}
int ARMCI_Initialized(void) {
  return current_or_null() != nullptr ? 1 : 0;
}
int ARMCI_Finalize(void) {
  return api("ARMCI_Finalize", [] {
    if (armci_started_ga && current_or_null() != nullptr) terminate();
    armci_started_ga = false;
    return 0;
  });
}

int ARMCI_Malloc(void** base_ptrs, armci_size_t size) {
  return api("ARMCI_Malloc", [&] {
    state& st = current("ARMCI_Malloc");
    if (base_ptrs == nullptr) throw error("null base_ptrs");
    if (size < 0) throw error(std::to_string(size) + " bytes");
    void* mine = size > 0 ? std::malloc(static_cast<std::size_t>(size)) : nullptr;
    if (size > 0 && mine == nullptr)
      throw error("out of memory for " + std::to_string(size) + " bytes");
    // Every rank's address (collective, as ARMCI's): a sum where each rank fills its own slot.
    std::vector<long long> addr(static_cast<std::size_t>(st.rt->size()), 0);
    addr[static_cast<std::size_t>(st.rt->rank())] =
        static_cast<long long>(reinterpret_cast<std::intptr_t>(mine));
    GA_Llgop(addr.data(), static_cast<int>(addr.size()), "+");
    for (std::size_t r = 0; r < addr.size(); ++r)
      base_ptrs[r] = reinterpret_cast<void*>(static_cast<std::intptr_t>(addr[r]));
    return 0;
  });
}
int ARMCI_Free(void* ptr) {
  return api("ARMCI_Free", [&] {
    current("ARMCI_Free");
    std::free(ptr);
    GA_Sync();  // collective, as ARMCI's
    return 0;
  });
}
void* ARMCI_Malloc_local(armci_size_t size) {
  return api("ARMCI_Malloc_local", [&] {
    if (size < 0) throw error(std::to_string(size) + " bytes");
    void* p = std::malloc(static_cast<std::size_t>(size > 0 ? size : 1));
    if (p == nullptr) throw error("out of memory for " + std::to_string(size) + " bytes");
    return p;
  });
}
int ARMCI_Free_local(void* ptr) {
  std::free(ptr);
  return 0;
}

double armci_timer(void) {
  return MPI_Wtime();
}
int armci_msg_me(void) {
  return api("armci_msg_me", [] { return rank_of("armci_msg_me"); });
}
int armci_msg_nproc(void) {
  return api("armci_msg_nproc", [] { return current("armci_msg_nproc").rt->size(); });
}
void armci_msg_barrier(void) {
  GA_Sync();
}
void armci_msg_abort(int code) {
  GA_Error("armci_msg_abort", code);
}
void armci_msg_brdcst(void* buffer, int len, int root) {
  GA_Brdcst(buffer, len, root);
}
void armci_msg_bcast(void* buffer, int len, int root) {
  GA_Brdcst(buffer, len, root);
}
void armci_msg_igop(int* x, int n, const char* op) {
  GA_Igop(x, n, op);
}
void armci_msg_lgop(long* x, int n, const char* op) {
  GA_Lgop(x, n, op);
}
void armci_msg_llgop(long long* x, int n, const char* op) {
  GA_Llgop(x, n, op);
}
void armci_msg_fgop(float* x, int n, const char* op) {
  GA_Fgop(x, n, op);
}
void armci_msg_dgop(double* x, int n, const char* op) {
  GA_Dgop(x, n, op);
}

}  // extern "C"
