// Non-blocking one-sided transfers: NGA_NbPut/NbGet/NbAcc (+64) and their completion,
// NGA_NbWait/GA_NbWait/NGA_NbTest. A GA handle names a gaea::ga::request_group (one request per
// call today; a group so that a handle could aggregate several transfers as GA's may).

#include <map>
#include <string>

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

// Outstanding handles of this process. Handles count up from 1; a handle at or below `issued`
// that is no longer in `pending` has completed (waiting for it again returns at once, as in GA).
struct nb_table {
  std::map<ga_nbhdl_t, ga::request_group> pending;
  ga_nbhdl_t issued = 0;
  bool hooked = false;
};
nb_table& table() {
  static nb_table t;
  return t;
}

ga_nbhdl_t remember(ga::request r) {
  nb_table& t = table();
  if (!t.hooked) {  // GA_Terminate completes what is left before the arrays go
    add_terminate_hook([] {
      nb_table& tt = table();
      for (auto& [h, g] : tt.pending)
        g.wait();
      tt = nb_table{};
    });
    t.hooked = true;
  }
  const ga_nbhdl_t h = ++t.issued;
  t.pending[h].add(std::move(r));
  return h;
}

// The group of `*h`, or null when it has completed already; gaea::error for a handle that was
// never issued.
ga::request_group* lookup(const ga_nbhdl_t* h, const char* fn) {
  if (h == nullptr) throw error(std::string(fn) + ": null handle pointer");
  nb_table& t = table();
  if (*h < 1 || *h > t.issued)
    throw error(std::string(fn) + ": " + std::to_string(*h) +
                " is not a non-blocking handle issued by this process (handles 1.." +
                std::to_string(t.issued) + " were)");
  const auto it = t.pending.find(*h);
  return it == t.pending.end() ? nullptr : &it->second;
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
    const ga_nbhdl_t key = *h;
    ga::request_group done = std::move(*g);
    table().pending.erase(key);
    done.wait();
  }
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

// As GA 5.8: 0 when the operation has completed (the handle is then free), 1 while it has not.
int NGA_NbTest(ga_nbhdl_t* nbhandle) {
  return api("NGA_NbTest", [&] {
    current("NGA_NbTest");
    ga::request_group* g = lookup(nbhandle, "NGA_NbTest");
    if (g == nullptr) return 0;
    if (!g->test()) return 1;
    table().pending.erase(*nbhandle);
    return 0;
  });
}

}  // extern "C"
