// GA_Zero, GA_Fill and GA_Randomize (whole arrays, collective).

#include <algorithm>
#include <complex>
#include <random>
#include <type_traits>

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
// Uniform values between 0 and `value` (each part of a complex number), from a generator seeded
// by the rank, so runs are reproducible for a given rank count.
void GA_Randomize(int g_a, void* value) {
  api("GA_Randomize", [&] {
    with_array(g_a, "GA_Randomize", [&](auto& a) {
      using T = element_of<decltype(a)>;
      const T top = scalar_from<T>(value, "GA_Randomize");
      std::mt19937_64 gen(0x9e3779b97f4a7c15ULL +
                          static_cast<unsigned>(gaea::runtime::current().rank()));
      auto draw = [&](auto hi) {
        using R = decltype(hi);
        if constexpr (std::is_integral_v<R>)
          return std::uniform_int_distribution<R>(std::min<R>(0, hi), std::max<R>(0, hi))(gen);
        else
          return std::uniform_real_distribution<R>(std::min<R>(0, hi), std::max<R>(0, hi))(gen);
      };
      a.sync();
      for (const auto& t : a.local_tiles()) {
        gaea::ga::index e = t.box.lo;
        const std::size_t n = e.size();
        while (true) {
          if constexpr (std::is_same_v<T, std::complex<float>> ||
                        std::is_same_v<T, std::complex<double>>)
            t.at(e) = T(draw(top.real()), draw(top.imag()));
          else
            t.at(e) = draw(top);
          std::size_t k = n;
          while (k-- > 0) {
            if (++e[k] <= t.box.hi[k]) break;
            e[k] = t.box.lo[k];
          }
          if (k == static_cast<std::size_t>(-1)) break;
        }
      }
      a.sync();
    });
  });
}
void NGA_Randomize(int g_a, void* value) {
  GA_Randomize(g_a, value);
}
void NGA_Zero(int g_a) {
  GA_Zero(g_a);
}
void NGA_Fill(int g_a, void* value) {
  GA_Fill(g_a, value);
}

}  // extern "C"
