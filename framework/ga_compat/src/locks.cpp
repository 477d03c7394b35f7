// GA's mutexes: GA_Create_mutexes / GA_Destroy_mutexes / GA_Lock / GA_Unlock (and the NGA_
// spellings) on one gaea::counters::mutex_set per process, as GA has one set at a time.

#include <memory>
#include <string>

#include "detail/state.hpp"
#include "ga.h"
#include "gaea/counters/mutex_set.hpp"

using namespace gaea::ga_compat::detail;
using gaea::error;
using gaea::counters::mutex_set;

namespace {

std::unique_ptr<mutex_set>& the_set() {
  static std::unique_ptr<mutex_set> s;
  return s;
}

mutex_set& live(const char* fn) {
  current(fn);
  if (!the_set()) throw error("no mutexes exist (GA_Create_mutexes first, on every rank)");
  return *the_set();
}

int create(int number) {
  current("GA_Create_mutexes");
  if (number < 0) throw error("number=" + std::to_string(number) + " must be >= 0");
  if (the_set())
    throw error("mutexes exist already (" + std::to_string(the_set()->size()) +
                "; GA_Destroy_mutexes first)");
  the_set() = std::make_unique<mutex_set>("GA mutexes", number);
  // GA_Terminate frees a set the program left (collectively, like every rank's terminate).
  add_terminate_hook([] { the_set().reset(); });
  return 1;
}

int destroy() {
  live("GA_Destroy_mutexes");
  std::unique_ptr<mutex_set> s = std::move(the_set());
  s->destroy();
  return 1;
}

}  // namespace

extern "C" {

int GA_Create_mutexes(int number) {
  return api("GA_Create_mutexes", [&] { return create(number); });
}
int NGA_Create_mutexes(int number) {
  return api("NGA_Create_mutexes", [&] { return create(number); });
}
int GA_Destroy_mutexes(void) {
  return api("GA_Destroy_mutexes", [] { return destroy(); });
}
int NGA_Destroy_mutexes(void) {
  return api("NGA_Destroy_mutexes", [] { return destroy(); });
}
void GA_Lock(int mutex) {
  api("GA_Lock", [&] { live("GA_Lock").lock(mutex); });
}
void NGA_Lock(int mutex) {
  api("NGA_Lock", [&] { live("NGA_Lock").lock(mutex); });
}
void GA_Unlock(int mutex) {
  api("GA_Unlock", [&] { live("GA_Unlock").unlock(mutex); });
}
void NGA_Unlock(int mutex) {
  api("NGA_Unlock", [&] { live("NGA_Unlock").unlock(mutex); });
}

}  // extern "C"
