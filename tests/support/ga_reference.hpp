#pragma once
// Helpers for global-array tests: deterministic contents, a serial reference, whole-array reads,
// comparisons with a type-dependent tolerance, ghost-cell checks and a set of layouts.

#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <string>
#include <utility>
#include <vector>

#include "gaea/ga/global_array.hpp"
#include "test_support.hpp"

namespace gaea::test {

using ga::index;
using ga::index_t;
using ga::layout_spec;
using ga::patch;
using cplx = std::complex<double>;
using cplxf = std::complex<float>;
using ga::detail::is_complex_v;

// Never produced by value(): marks ghost cells, which the algorithms must not touch.
constexpr int poison = 12345;

inline index_t linear(const index& e, const index& dims) {
  index_t l = 0;
  for (std::size_t d = 0; d < dims.size(); ++d)
    l = l * dims[d] + e[d];
  return l;
}

// Small integers (exact in every type), different per seed.
template <class T>
T value(index_t lin, int seed) {
  const auto v = static_cast<double>((lin * 7 + seed * 13) % 23 - 11);
  if constexpr (is_complex_v<T>)
    return {static_cast<typename T::value_type>(v),
            static_cast<typename T::value_type>((lin * 5 + seed * 3) % 19 - 9)};
  else
    return static_cast<T>(v);
}

template <class T>
std::vector<T> reference(const index& dims, int seed) {
  index_t n = 1;
  for (index_t x : dims)
    n *= x;
  std::vector<T> v(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = value<T>(i, seed);
  return v;
}

// Calls fn(e) for every element of box.
template <class Fn>
void for_each_element(const patch& box, Fn&& fn) {
  index e = box.lo;
  const std::size_t n = e.size();
  while (true) {
    fn(e);
    std::size_t d = n;
    while (d-- > 0) {
      if (++e[d] <= box.hi[d]) break;
      e[d] = box.lo[d];
    }
    if (d == static_cast<std::size_t>(-1)) return;
  }
}

// Interiors = value(seed), ghost cells = poison.
template <class T>
void fill(global_array<T>& a, int seed) {
  a.fill(T(poison));
  for (const auto& t : a.local_tiles())
    for_each_element(t.box, [&](const index& e) { t.at(e) = value<T>(linear(e, a.dims()), seed); });
  a.sync();
}

template <class T>
std::vector<T> whole(global_array<T>& a) {
  index_t n = 1;
  index hi = a.dims();
  for (auto& x : hi)
    n *= x--;
  std::vector<T> v(static_cast<std::size_t>(n));
  a.get({index(a.dims().size(), 0), hi}, v);
  return v;
}

template <class T>
double tolerance() {
  if constexpr (std::is_integral_v<T>)
    return 0;
  else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, cplxf>)
    return 1e-5;
  else
    return 1e-12;
}

template <class T>
bool near_enough(T got, T want, double scale = 1) {
  return std::abs(got - want) <= tolerance<T>() * (scale + std::abs(want));
}

// Elements that differ from the reference (the first one is reported).
template <class T>
std::int64_t mismatches(const std::vector<T>& got, const std::vector<T>& want, const char* what,
                        double scale = 1) {
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!near_enough(got[i], want[i], scale) && bad++ == 0)
      UNSCOPED_INFO(what << ": element " << i << " is " << got[i] << ", expected " << want[i]);
  return bad;
}

// Ghost cells of this rank still hold the poison.
template <class T>
bool ghosts_untouched(const global_array<T>& a) {
  index_t interior = 0, poisoned = 0;
  for (const auto& t : a.local_tiles())
    interior += t.elements();
  for (const T& x : a.access())
    if (x == T(poison)) ++poisoned;
  return poisoned == static_cast<index_t>(a.access().size()) - interior;
}

// Layouts for a shape on this rank count: block, irregular, ghosts and (2-D) block-cyclic.
inline std::vector<std::pair<std::string, layout_spec>> layouts(const index& dims) {
  const int p = rt().size();
  std::vector<std::vector<index_t>> starts(dims.size(), std::vector<index_t>{0});
  if (p >= 2) starts[0].push_back(dims[0] / 3);
  if (p >= 4 && dims.size() > 1) starts[1].push_back(dims[1] * 2 / 3);
  index ghosts(dims.size(), 1);
  ghosts[dims.size() - 1] = 2;
  std::vector<std::pair<std::string, layout_spec>> out{
      {"block", layout_spec::block()},
      {"irregular", layout_spec::irregular(starts)},
      {"block+ghosts", layout_spec::block().with_ghosts(ghosts)},
      {"irregular+ghosts", layout_spec::irregular(starts).with_ghosts(ghosts)}};
  if (dims.size() == 2) out.push_back({"block_cyclic", layout_spec::block_cyclic({4, 3})});
  return out;
}

}  // namespace gaea::test
