// Patch forms of copy, fill, scale, add and dot on the owner-computes patch machinery
// (patch_apply.hpp): each rank updates its tiles' part of the result patch.
#include <algorithm>
#include <complex>
#include <vector>

#include "detail/group_copy.hpp"
#include "detail/patch_apply.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/ga/detail/elements.hpp"
#include "gaea/ga/patch_ops.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga {

namespace {

using detail::operand;

template <class T>
operand<T> out_of(global_array<T>& a, const patch& p) {
  return {&a, p, false};
}

// b[pb] = a[pa] for patches of equal element count but different shapes: element k of pb (in
// row-major order) gets element k of pa. Owner-computes on b: each run of a slab of b (along
// b's last dimension) is a linear range of pa, fetched as its pieces along pa's last dimension,
// all of a slab's gets in flight together.
template <class T>
void reshape_copy(const global_array<T>& a, const patch& pa, global_array<T>& b, const patch& pb) {
  detail::begin_collective(a, b);
  const distribution& bd = b.layout();
  auto* base = static_cast<T*>(b.core().local_data());
  const auto nb = static_cast<std::size_t>(pb.ndim()), na = static_cast<std::size_t>(pa.ndim());
  auto linear_in = [](const patch& p, const index& e) {  // row-major position of e in p
    index_t l = 0;
    for (std::size_t d = 0; d < e.size(); ++d)
      l = l * p.extent(static_cast<int>(d)) + (e[d] - p.lo[d]);
    return l;
  };
  auto element_of = [](const patch& p, index_t l) {  // the element at row-major position l
    index e = p.lo;
    for (std::size_t d = e.size(); d-- > 0;) {
      const index_t x = p.extent(static_cast<int>(d));
      e[d] = p.lo[d] + l % x;
      l /= x;
    }
    return e;
  };
  std::vector<T> buf;
  for (const detail::slab& s : detail::patch_slabs(bd, b.core().rt_rank(), pb)) {
    const index_t len = s.box.extent(static_cast<int>(nb) - 1);
    buf.resize(static_cast<std::size_t>(s.box.elements()));
    std::vector<request> pending;
    std::vector<index_t> dst;  // storage offset of each run, in order
    std::size_t at = 0;
    index e = s.box.lo;
    while (true) {
      dst.push_back(bd.storage_offset(s.t, e));
      for (index_t done = 0; done < len;) {  // the run's pieces along a's last dimension
        const index q = element_of(pa, linear_in(pb, e) + done);
        const index_t room = pa.hi[na - 1] - q[na - 1] + 1;
        const index_t n = std::min(room, len - done);
        patch piece{q, q};
        piece.hi[na - 1] += n - 1;
        pending.push_back(a.core().get(piece, {buf.data() + at, static_cast<std::size_t>(n), {}}));
        at += static_cast<std::size_t>(n);
        done += n;
      }
      std::size_t d = nb - 1;  // next run of the slab
      while (d-- > 0) {
        if (++e[d] <= s.box.hi[d]) break;
        e[d] = s.box.lo[d];
      }
      if (d == static_cast<std::size_t>(-1)) break;
    }
    wait_all(pending);
    for (std::size_t k = 0; k < dst.size(); ++k)
      std::copy_n(buf.data() + k * static_cast<std::size_t>(len), len, base + dst[k]);
  }
  b.core().barrier();
}

}  // namespace

template <element T>
void copy_patch(const global_array<T>& a, const patch& pa, global_array<T>& b, const patch& pb,
                bool transpose) {
  const operand<T> in{&a, pa, transpose}, out = out_of(b, pb);
  detail::check_operand("copy_patch", in);
  detail::check_operand("copy_patch", out);
  if (!transpose && !(detail::shape_of(in) == detail::shape_of(out)) &&
      pa.elements() == pb.elements()) {
    detail::require_no_overlap("copy_patch", in, out);
    reshape_copy(a, pa, b, pb);
    return;
  }
  detail::require_same_shape("copy_patch", in, out);
  detail::require_no_overlap("copy_patch", in, out);
  if (!detail::same_group(a.core(), b.core())) {
    if (transpose)
      throw error("copy_patch: '" + a.name() + "'" + pa.str() + " and '" + b.name() + "'" +
                  pb.str() +
                  " are on different process groups: a copy between groups cannot transpose");
    return detail::copy_across_groups(a, pa, b, pb);
  }
  detail::begin_collective(a, b);
  if (&a.core() != &b.core() || !(pa == pb) || transpose) {
    detail::apply_patch(out, std::array{in}, [](const detail::run<2, T>& r) {
      for (index_t i = 0; i < r.n; ++i)
        r.p[0][i * r.step[0]] = r.p[1][i * r.step[1]];
    });
  }
  b.core().barrier();
}

template <element T>
void fill_patch(global_array<T>& a, const patch& p, T value) {
  detail::update_patch("fill_patch", a, p, [value](T) { return value; });
}

template <element T>
void scale_patch(global_array<T>& a, const patch& p, T alpha) {
  detail::update_patch("scale_patch", a, p, [alpha](T x) { return static_cast<T>(alpha * x); });
}

template <element T>
void add_patch(T alpha, const global_array<T>& a, const patch& pa, T beta, const global_array<T>& b,
               const patch& pb, global_array<T>& c, const patch& pc) {
  const operand<T> x{&a, pa}, y{&b, pb}, out = out_of(c, pc);
  for (const operand<T>* o : {&x, &y, &out})
    detail::check_operand("add_patch", *o);
  detail::require_same_shape("add_patch", x, out);
  detail::require_same_shape("add_patch", y, out);
  detail::require_no_overlap("add_patch", x, out);
  detail::require_no_overlap("add_patch", y, out);
  detail::begin_collective(a, b, c);
  detail::apply_patch(out, std::array{x, y}, [&](const detail::run<3, T>& r) {
    for (index_t i = 0; i < r.n; ++i)
      r.p[0][i * r.step[0]] =
          static_cast<T>(alpha * r.p[1][i * r.step[1]] + beta * r.p[2][i * r.step[2]]);
  });
  c.core().barrier();
}

template <element T>
dot_result<T> dot_patch(const global_array<T>& a, const patch& pa, bool transpose_a,
                        const global_array<T>& b, const patch& pb, bool transpose_b,
                        bool conjugate) {
  // Driven by a's owners (a is only read). b is read in a's orientation: when a is transposed,
  // the pairing is x = a^T, y = b^(T) — so b is read transposed iff exactly one is.
  const operand<T> x{&a, pa, false}, y{&b, pb, transpose_a != transpose_b};
  detail::check_operand("dot_patch", operand<T>{&a, pa, transpose_a});
  detail::check_operand("dot_patch", operand<T>{&b, pb, transpose_b});
  detail::require_same_shape("dot_patch", operand<T>{&a, pa, transpose_a},
                             operand<T>{&b, pb, transpose_b});
  detail::begin_collective(a, b);
  using acc_t = detail::dot_acc<T>;
  acc_t sum{};
  detail::apply_patch(x, std::array{y}, [&](const detail::run<2, T>& r) {
    for (index_t i = 0; i < r.n; ++i) {
      const T u = r.p[0][i * r.step[0]], v = r.p[1][i * r.step[1]];
      if constexpr (detail::is_complex_v<T>) {
        const acc_t cu(u), cv(v);
        sum += conjugate ? std::conj(cu) * cv : cu * cv;
      } else
        sum += static_cast<acc_t>(u) * static_cast<acc_t>(v);
    }
  });
  sum = coll::allreduce(a.group(), sum, coll::reduce_op::sum);
  a.core().barrier();  // nobody changes b before every rank has read it
  return static_cast<dot_result<T>>(sum);
}

#define GAEA_GA_INSTANTIATE(T, tag, name)                                                        \
  template void copy_patch<T>(const global_array<T>&, const patch&, global_array<T>&,            \
                              const patch&, bool);                                               \
  template void fill_patch<T>(global_array<T>&, const patch&, T);                                \
  template void scale_patch<T>(global_array<T>&, const patch&, T);                               \
  template void add_patch<T>(T, const global_array<T>&, const patch&, T, const global_array<T>&, \
                             const patch&, global_array<T>&, const patch&);                      \
  template dot_result<T> dot_patch<T>(const global_array<T>&, const patch&, bool,                \
                                      const global_array<T>&, const patch&, bool, bool);
GAEA_GA_FOR_EACH_ELEMENT(GAEA_GA_INSTANTIATE)
#undef GAEA_GA_INSTANTIATE

}  // namespace gaea::ga
