// GA start-up, shut-down, errors and process queries.

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "detail/state.hpp"
#include "ga.h"
#include "gaea/ga/stats.hpp"

using namespace gaea::ga_compat::detail;

extern "C" {

void GA_Initialize(void) {
  api("GA_Initialize", [] { initialize(nullptr, nullptr, 0); });
}
void GA_Initialize_args(int* argc, char*** argv) {
  api("GA_Initialize_args", [&] { initialize(argc, argv, 0); });
}
void GA_Initialize_ltd(size_t limit) {
  api("GA_Initialize_ltd", [&] { initialize(nullptr, nullptr, limit); });
}
int GA_Initialized(void) {
  return current_or_null() != nullptr ? 1 : 0;
}
void GA_Terminate(void) {
  api("GA_Terminate", [] { terminate(); });
}

void GA_Error(const char* message, int code) {
  // GA hands `code` to MPI_Abort; 0 would make a failed job look successful, so any code
  // outside 1..255 ends the job with status 1 (the code is still in the message).
  const int status = code >= 1 && code <= 255 ? code : 1;
  fail("GA_Error: " + std::string(message ? message : "(null)") + " " + std::to_string(code),
       status);
}

// As GA: the rank and size of the default group (the world unless GA_Pgroup_set_default).
int GA_Nodeid(void) {
  return api("GA_Nodeid", [] { return default_group("GA_Nodeid").rank(); });
}
int GA_Nnodes(void) {
  return api("GA_Nnodes", [] { return default_group("GA_Nnodes").size(); });
}
double GA_Wtime(void) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
int GA_Uses_fapi(void) {
  return 0;
}
int GA_Uses_ma(void) {
  return 0;
}

int GA_Memory_limited(void) {
  return api("GA_Memory_limited",
             [] { return current("GA_Memory_limited").memory_limit > 0 ? 1 : 0; });
}
size_t GA_Inquire_memory(void) {
  return api("GA_Inquire_memory", [] {
    state& st = current("GA_Inquire_memory");
    return st.memory_used[static_cast<std::size_t>(st.rt->rank())];
  });
}
size_t GA_Memory_avail(void) {
  return api("GA_Memory_avail", []() -> size_t {
    state& st = current("GA_Memory_avail");
    if (st.memory_limit == 0) return static_cast<size_t>(-1);  // unlimited (as GA reports)
    const size_t used = st.memory_used[static_cast<std::size_t>(st.rt->rank())];
    return used >= st.memory_limit ? 0 : st.memory_limit - used;
  });
}
void GA_Set_memory_limit(size_t limit) {
  api("GA_Set_memory_limit", [&] { current("GA_Set_memory_limit").memory_limit = limit; });
}
void GA_Set_debug(int flag) {
  api("GA_Set_debug", [&] { current("GA_Set_debug").debug = flag; });
}
int GA_Get_debug(void) {
  return api("GA_Get_debug", [] { return current("GA_Get_debug").debug; });
}

void GA_Mask_sync(int first, int last) {
  // GA lets a program skip the synchronisation at the start or end of collective array
  // operations; Gaea's operations keep both (same results, possibly slower). Recorded only.
  api("GA_Mask_sync", [&] {
    state& st = current("GA_Mask_sync");
    st.mask_sync_first = first;
    st.mask_sync_last = last;
  });
}
void NGA_Mask_sync(int first, int last) {
  GA_Mask_sync(first, last);
}

void GA_Print_stats(void) {
  api("GA_Print_stats", [] {
    state& st = current("GA_Print_stats");
    std::printf("GA (Gaea) statistics of rank %d: %d live arrays, %zu bytes\n", st.rt->rank(),
                static_cast<int>(st.arrays.live().size()),
                st.memory_used[static_cast<std::size_t>(st.rt->rank())]);
    std::fflush(stdout);
  });
}

// The NGA_ spellings of the same calls.
void NGA_Initialize(void) {
  GA_Initialize();
}
void NGA_Initialize_ltd(size_t limit) {
  GA_Initialize_ltd(limit);
}
int NGA_Initialized(void) {
  return GA_Initialized();
}
void NGA_Terminate(void) {
  GA_Terminate();
}
void NGA_Error(const char* message, int code) {
  GA_Error(message, code);
}
int NGA_Nodeid(void) {
  return GA_Nodeid();
}
int NGA_Nnodes(void) {
  return GA_Nnodes();
}
double NGA_Wtime(void) {
  return GA_Wtime();
}
int NGA_Uses_ma(void) {
  return GA_Uses_ma();
}
int NGA_Memory_limited(void) {
  return GA_Memory_limited();
}
size_t NGA_Memory_avail(void) {
  return GA_Memory_avail();
}
size_t NGA_Inquire_memory(void) {
  return GA_Inquire_memory();
}
void NGA_Set_memory_limit(size_t limit) {
  GA_Set_memory_limit(limit);
}
void NGA_Set_debug(int flag) {
  GA_Set_debug(flag);
}
int NGA_Get_debug(void) {
  return GA_Get_debug();
}

}  // extern "C"
