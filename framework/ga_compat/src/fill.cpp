// GA_Zero and GA_Fill (whole arrays, collective).

#include "detail/state.hpp"
#include "ga.h"

using namespace gaea::ga_compat::detail;

extern "C" {

void GA_Zero(int g_a) {
  api("GA_Zero", [&] { with_array(g_a, "GA_Zero", [](auto& a) { a.zero(); }); });
}
void GA_Fill(int g_a, void* value) {
  api("GA_Fill", [&] {
    with_array(g_a, "GA_Fill",
               [&](auto& a) { a.fill(scalar_from<element_of<decltype(a)>>(value, "GA_Fill")); });
  });
}
void NGA_Zero(int g_a) {
  GA_Zero(g_a);
}
void NGA_Fill(int g_a, void* value) {
  GA_Fill(g_a, value);
}

}  // extern "C"
