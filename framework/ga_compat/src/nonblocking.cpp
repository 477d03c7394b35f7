// Non-blocking one-sided transfers: NGA_NbPut/NbGet/NbAcc (+64) and their completion,
// NGA_NbWait/GA_NbWait/NGA_NbTest/GA_NbTest. A GA handle names a gaea::ga::request_group (one
// request per call today; a group so that a handle could aggregate several transfers as GA's
// may). Threads of a process may issue, test and wait for handles concurrently.

#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "detail/indices.hpp"
#include "detail/nb_handles.hpp"
#include "detail/state.hpp"
#include "detail/transfer.hpp"
#include "ga.h"
#include "gaea/ga/request.hpp"

using namespace gaea::ga_compat::detail;
namespace ga = gaea::ga;
using gaea::error;

namespace {

// One outstanding handle: its transfers and the thread that issued them (which alone can progress
// them: a thread's transfers ride on its own transport worker).
struct nb_entry {
  ga::request_group group;
  std::thread::id issuer;
};

// The handles of this process, shared by its threads (GA's handles are process-wide). Handles
// count up from 1; one no longer in `pending` has completed (waiting for it again returns at
// once, as in GA).
struct nb_table {
  std::mutex mutex;
  std::map<ga_nbhdl_t, nb_entry> pending;
  ga_nbhdl_t issued = 0;
  bool hooked = false;
};
nb_table& table() {
  static nb_table t;
  return t;
}

// GA_Terminate completes what the terminating thread issued and has not waited for. A pending
// handle of another thread cannot be progressed (nor destroyed: that waits) from here; GA does
// not mind handles never waited for, so its transfers are left to the end of the process.
void complete_at_terminate() {
  nb_table& t = table();
  std::map<ga_nbhdl_t, nb_entry> left;
  {
    std::lock_guard lock(t.mutex);
    left = std::move(t.pending);
    t.pending.clear();
    t.issued = 0;
    t.hooked = false;
  }
  static auto& parked = *new std::vector<ga::request_group>();  // never destroyed (see above)
  for (auto& [h, e] : left) {
    if (e.issuer == std::this_thread::get_id())
      e.group.wait();
    else
      parked.push_back(std::move(e.group));
  }
}

ga_nbhdl_t remember(ga::request r) {
  nb_table& t = table();
  std::lock_guard lock(t.mutex);
  if (!t.hooked) {
    add_terminate_hook(complete_at_terminate);
    t.hooked = true;
  }
  const ga_nbhdl_t h = ++t.issued;
  nb_entry& e = t.pending[h];
  e.group.add(std::move(r));
  e.issuer = std::this_thread::get_id();
  return h;
}

// The transfers of `*h`, or null when there are none in flight: the handle has completed, or is
// no handle of this process at all — which GA 5.8 also takes for a completed one (its tag does
// not match), and GA's own threadsafec waits on such values (handles read after their array was
// freed). gaea::error for a pending handle of another thread. Only the issuing thread uses or
// erases an entry, and map nodes stay put while others are added, so the group may be
// progressed without holding the table's lock.
ga::request_group* lookup(const ga_nbhdl_t* h, const char* fn) {
  if (h == nullptr) throw error(std::string(fn) + ": null handle pointer");
  nb_table& t = table();
  std::lock_guard lock(t.mutex);
  const auto it = t.pending.find(*h);
  if (it == t.pending.end()) return nullptr;
  if (it->second.issuer != std::this_thread::get_id())
    throw error(std::string(fn) + ": non-blocking handle " + std::to_string(*h) +
                " was issued by another thread; on Gaea the thread that issued a handle tests "
                "and waits for it (its transfers ride on that thread's transport worker)");
  return &it->second.group;
}

void forget(ga_nbhdl_t h) {
  nb_table& t = table();
  std::lock_guard lock(t.mutex);
  t.pending.erase(h);
}

template <class I>
void start(const char* fn, xfer op, int g_a, const I* lo, const I* hi, void* buf, const I* ld,
           const void* alpha, ga_nbhdl_t* nbhandle) {
  if (nbhandle == nullptr) throw error(std::string(fn) + ": null handle pointer");
  current(fn);
  ga::request r = with_array(g_a, fn, [&](auto& a) {
    const ga::patch p = to_patch(lo, hi, a.ndim());
    return start_transfer(a, op, p, buf, to_ld(ld, p), alpha, fn);
  });
  *nbhandle = remember(std::move(r));
}

void wait(const char* fn, ga_nbhdl_t* h) {
  current(fn);
  if (ga::request_group* g = lookup(h, fn)) {
    g->wait();
    forget(*h);
  }
}

// As GA 5.8's code (pnga_nbtest returns !nga_test_internal): 1 when the handle's transfers have
// completed (also for a handle completed before), 0 while some are in flight.
int test(const char* fn, ga_nbhdl_t* h) {
  current(fn);
  ga::request_group* g = lookup(h, fn);
  if (g == nullptr) return 1;
  if (!g->test()) return 0;
  forget(*h);
  return 1;
}

}  // namespace

ga_nbhdl_t gaea::ga_compat::detail::remember_request(ga::request r) {
  return remember(std::move(r));
}

extern "C" {

void NGA_NbPut(int g_a, int lo[], int hi[], void* buf, int ld[], ga_nbhdl_t* nbhandle) {
  api("NGA_NbPut",
      [&] { start<int>("NGA_NbPut", xfer::put, g_a, lo, hi, buf, ld, nullptr, nbhandle); });
}
void NGA_NbGet(int g_a, int lo[], int hi[], void* buf, int ld[], ga_nbhdl_t* nbhandle) {
  api("NGA_NbGet",
      [&] { start<int>("NGA_NbGet", xfer::get, g_a, lo, hi, buf, ld, nullptr, nbhandle); });
}
void NGA_NbAcc(int g_a, int lo[], int hi[], void* buf, int ld[], void* alpha,
               ga_nbhdl_t* nbhandle) {
  api("NGA_NbAcc",
      [&] { start<int>("NGA_NbAcc", xfer::acc, g_a, lo, hi, buf, ld, alpha, nbhandle); });
}
void NGA_NbPut64(int g_a, int64_t lo[], int64_t hi[], void* buf, int64_t ld[],
                 ga_nbhdl_t* nbhandle) {
  api("NGA_NbPut64",
      [&] { start<int64_t>("NGA_NbPut64", xfer::put, g_a, lo, hi, buf, ld, nullptr, nbhandle); });
}
void NGA_NbGet64(int g_a, int64_t lo[], int64_t hi[], void* buf, int64_t ld[],
                 ga_nbhdl_t* nbhandle) {
  api("NGA_NbGet64",
      [&] { start<int64_t>("NGA_NbGet64", xfer::get, g_a, lo, hi, buf, ld, nullptr, nbhandle); });
}
void NGA_NbAcc64(int g_a, int64_t lo[], int64_t hi[], void* buf, int64_t ld[], void* alpha,
                 ga_nbhdl_t* nbhandle) {
  api("NGA_NbAcc64",
      [&] { start<int64_t>("NGA_NbAcc64", xfer::acc, g_a, lo, hi, buf, ld, alpha, nbhandle); });
}

void NGA_NbWait(ga_nbhdl_t* nbhandle) {
  api("NGA_NbWait", [&] { wait("NGA_NbWait", nbhandle); });
}
void GA_NbWait(ga_nbhdl_t* nbhandle) {
  api("GA_NbWait", [&] { wait("GA_NbWait", nbhandle); });
}

int NGA_NbTest(ga_nbhdl_t* nbhandle) {
  return api("NGA_NbTest", [&] { return test("NGA_NbTest", nbhandle); });
}
int GA_NbTest(ga_nbhdl_t* nbhandle) {
  return api("GA_NbTest", [&] { return test("GA_NbTest", nbhandle); });
}

}  // extern "C"
