// GA's step-length helpers for bound-constrained optimisation (TAO's VecStepMax and
// VecStepBoundInfo): GA_Step_max(_patch) and GA_Step_bound_info(_patch) (+64), with GA 5.8's
// arithmetic, its "infinity" values and its errors. Each rank works on its own part of the first
// patch and reads the matching elements of the others; the patches must have the same shape.

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "detail/indices.hpp"
#include "detail/state.hpp"
#include "ga.h"

using namespace gaea::ga_compat::detail;
namespace ga = gaea::ga;
using gaea::error;

namespace {

// GA 5.8's "infinity" per element type (elem_alg.c).
template <class T>
T infinity() {
  if constexpr (std::is_same_v<T, double>)
    return 1.0e307;
  else if constexpr (std::is_same_v<T, float>)
    return 1.0e37f;
  else
    return std::numeric_limits<T>::max();
}

// GA's stepb divide: a/b, but a zero numerator gives 0 when b > 0, else infinity; a zero
// denominator gives infinity.
template <class T>
T stepb_divide(T a, T b) {
  if (a == T(0)) return b > T(0) ? T(0) : infinity<T>();
  return b != T(0) ? a / b : infinity<T>();
}

// Calls fn(piece of the first patch, offsets) for this rank's part of patch `p` of `a`, with the
// same elements of every patch in `others` (same shape as p) read into buffers.
template <class T, class Fn>
void for_local_pieces(ga::global_array<T>& a, const ga::patch& p,
                      std::vector<std::pair<ga::global_array<T>*, ga::patch>> others, Fn&& fn) {
  for (const auto& t : a.local_tiles()) {
    const ga::patch piece = t.box.intersect(p);
    if (piece.empty()) continue;
    const auto n = static_cast<std::size_t>(piece.elements());
    std::vector<std::vector<T>> bufs(others.size() + 1, std::vector<T>(n));
    a.get(piece, std::span<T>(bufs[0]));
    for (std::size_t k = 0; k < others.size(); ++k) {
      auto& [b, bp] = others[k];
      ga::patch q = piece;  // the same elements of b's patch
      for (int d = 0; d < piece.ndim(); ++d) {
        const auto i = static_cast<std::size_t>(d);
        q.lo[i] = bp.lo[i] + (piece.lo[i] - p.lo[i]);
        q.hi[i] = bp.lo[i] + (piece.hi[i] - p.lo[i]);
      }
      b->get(q, std::span<T>(bufs[k + 1]));
    }
    fn(bufs);
  }
}

void same_shape(const ga::patch& a, const ga::patch& b, const char* what) {
  if (a.ndim() != b.ndim())
    throw error(std::string("patch ") + what + " has another number of dimensions");
  for (int d = 0; d < a.ndim(); ++d)
    if (a.extent(d) != b.extent(d))
      throw error(std::string("patches do not match: ") + a.str() + " and " + what + " " + b.str());
}

// min/max over every rank, in the element type's precision.
template <class T>
T reduce(T v, const char* op) {
  if constexpr (std::is_floating_point_v<T>) {
    double x = v;
    GA_Dgop(&x, 1, op);
    return static_cast<T>(x);
  } else {
    long long x = v;
    GA_Llgop(&x, 1, op);
    return static_cast<T>(x);
  }
}

// The whole array as a patch.
template <class A>
ga::patch whole(const A& arr) {
  ga::patch p{ga::index(static_cast<std::size_t>(arr.ndim()), 0), arr.dims()};
  for (auto& h : p.hi)
    h -= 1;
  return p;
}

template <class T>
constexpr bool real_v = std::is_arithmetic_v<T>;

template <class I>
void step_max(int g_a, const I* alo, const I* ahi, int g_b, const I* blo, const I* bhi, void* step,
              const char* fn) {
  if (step == nullptr) throw error("null step");
  with_arrays(
      fn,
      [&](auto& a, auto& b) {
        using T = std::remove_reference_t<decltype(a.access()[0])>;
        if constexpr (!real_v<T>) {
          throw error("complex arrays have no step length");
        } else {
          const ga::patch pa = alo ? to_patch(alo, ahi, a.ndim()) : whole(a);
          const ga::patch pb = blo ? to_patch(blo, bhi, b.ndim()) : whole(b);
          same_shape(pa, pb, "of g_b");
          // GA: the largest multiple of b that keeps a nonnegative; a must be nonnegative.
          T best = -infinity<T>();  // max over a/b where that quotient is <= 0
          bool negative = false;
          for_local_pieces(a, pa, {{&b, pb}}, [&](auto& bufs) {
            for (std::size_t i = 0; i < bufs[0].size(); ++i) {
              const T x = bufs[0][i], v = bufs[1][i];
              if (x < T(0)) negative = true;
              const T c = v != T(0) ? x / v : infinity<T>();
              if (c <= T(0)) best = std::max(best, c);
            }
          });
          if (reduce<T>(negative ? 1 : 0, "max") != T(0)) throw error("g_a has a negative element");
          // GA answers infinity when a and b are one array (any multiple keeps a nonnegative).
          const T r = g_a == g_b ? infinity<T>() : reduce(best, "max");
          *static_cast<T*>(step) = r < T(0) ? static_cast<T>(-r) : r;
        }
      },
      g_a, g_b);
}

template <class I, class J>
void step_bound_info(int g_xx, const I* xlo, const I* xhi, int g_vv, const I* vlo, const I* vhi,
                     int g_ll, const I* llo, const I* lhi, J g_uu, const I* ulo, const I* uhi,
                     void* boundmin, void* wolfemin, void* boundmax, const char* fn) {
  if (!boundmin || !wolfemin || !boundmax) throw error("null result pointer");
  with_arrays(
      fn,
      [&](auto& x, auto& v, auto& l, auto& u) {
        using T = std::remove_reference_t<decltype(x.access()[0])>;
        if constexpr (!real_v<T>) {
          throw error("complex arrays have no step length");
        } else {
          const ga::patch px = xlo ? to_patch(xlo, xhi, x.ndim()) : whole(x);
          const ga::patch pv = vlo ? to_patch(vlo, vhi, v.ndim()) : whole(v);
          const ga::patch pl = llo ? to_patch(llo, lhi, l.ndim()) : whole(l);
          const ga::patch pu = ulo ? to_patch(ulo, uhi, u.ndim()) : whole(u);
          same_shape(px, pv, "of g_vv");
          same_shape(px, pl, "of g_xxll");
          same_shape(px, pu, "of g_xxuu");
          const T inf = infinity<T>();
          T r1 = inf, r2 = inf, tmin = inf, tmax = -inf;
          bool above = false, below = false;
          for_local_pieces(x, px, {{&v, pv}, {&l, pl}, {&u, pu}}, [&](auto& b) {
            for (std::size_t i = 0; i < b[0].size(); ++i) {
              const T xi = b[0][i], vi = b[1][i], li = b[2][i], ui = b[3][i];
              const T s = ui - xi, q = xi - li;  // room to the upper and lower bounds
              if (s < T(0)) above = true;
              if (q < T(0)) below = true;
              const T t = stepb_divide(s, std::max(vi, T(0)));
              const T r = stepb_divide(q, static_cast<T>(std::abs(std::min(vi, T(0)))));
              r1 = std::min(r1, t);
              r2 = std::min(r2, r);
              // Zero where v is zero and x sits on a bound, else the step to the bound.
              const T mask = static_cast<T>(std::abs(vi)) + q * s;
              const T step = mask != T(0) ? std::min(r, t) : T(0);
              tmin = std::min(tmin, step);
              tmax = std::max(tmax, step);
            }
          });
          if (reduce<T>(above ? 1 : 0, "max") != T(0)) throw error("the upper bound is not >= xx");
          if (reduce<T>(below ? 1 : 0, "max") != T(0)) throw error("the lower bound is not <= xx");
          r1 = reduce(r1, "min");
          r2 = reduce(r2, "min");
          const T w = std::min(r1, r2);
          *static_cast<T*>(wolfemin) = w < T(0) ? static_cast<T>(-w) : w;
          *static_cast<T*>(boundmin) = reduce(tmin, "min");
          *static_cast<T*>(boundmax) = reduce(tmax, "max");
        }
      },
      g_xx, g_vv, g_ll, static_cast<int>(g_uu));
}

}  // namespace

extern "C" {

void GA_Step_max(int g_a, int g_b, void* step) {
  api("GA_Step_max",
      [&] { step_max<int>(g_a, nullptr, nullptr, g_b, nullptr, nullptr, step, "GA_Step_max"); });
}
void GA_Step_max_patch(int g_a, int* alo, int* ahi, int g_b, int* blo, int* bhi, void* step) {
  api("GA_Step_max_patch",
      [&] { step_max<int>(g_a, alo, ahi, g_b, blo, bhi, step, "GA_Step_max_patch"); });
}
void GA_Step_max_patch64(int g_a, int64_t alo[], int64_t ahi[], int g_b, int64_t blo[],
                         int64_t bhi[], void* step) {
  api("GA_Step_max_patch64",
      [&] { step_max<int64_t>(g_a, alo, ahi, g_b, blo, bhi, step, "GA_Step_max_patch64"); });
}
void GA_Step_bound_info(int g_xx, int g_vv, int g_xxll, int g_xxuu, void* boundmin, void* wolfemin,
                        void* boundmax) {
  api("GA_Step_bound_info", [&] {
    step_bound_info<int, int>(g_xx, nullptr, nullptr, g_vv, nullptr, nullptr, g_xxll, nullptr,
                              nullptr, g_xxuu, nullptr, nullptr, boundmin, wolfemin, boundmax,
                              "GA_Step_bound_info");
  });
}
void GA_Step_bound_info_patch(int g_xx, int* xxlo, int* xxhi, int g_vv, int* vvlo, int* vvhi,
                              int g_xxll, int* xxlllo, int* xxllhi, int g_xxuu, int* xxuulo,
                              int* xxuuhi, void* boundmin, void* wolfemin, void* boundmax) {
  api("GA_Step_bound_info_patch", [&] {
    step_bound_info<int, int>(g_xx, xxlo, xxhi, g_vv, vvlo, vvhi, g_xxll, xxlllo, xxllhi, g_xxuu,
                              xxuulo, xxuuhi, boundmin, wolfemin, boundmax,
                              "GA_Step_bound_info_patch");
  });
}
void GA_Step_bound_info_patch64(int g_xx, int64_t xxlo[], int64_t xxhi[], int g_vv, int64_t vvlo[],
                                int64_t vvhi[], int g_xxll, int64_t xxlllo[], int64_t xxllhi[],
                                int64_t g_xxuu, int64_t xxuulo[], int64_t xxuuhi[], void* boundmin,
                                void* wolfemin, void* boundmax) {
  api("GA_Step_bound_info_patch64", [&] {
    step_bound_info<int64_t, int64_t>(g_xx, xxlo, xxhi, g_vv, vvlo, vvhi, g_xxll, xxlllo, xxllhi,
                                      g_xxuu, xxuulo, xxuuhi, boundmin, wolfemin, boundmax,
                                      "GA_Step_bound_info_patch64");
  });
}

}  // extern "C"
