// Segmented scans, pack/unpack over [lo, hi] of 1-D arrays: the range is split evenly over the
// ranks; each reads its part, one allgather of per-rank summaries carries segment state and
// counts across rank boundaries, and each writes its part. patch_enum is owner-computes.
#include <complex>
#include <span>
#include <type_traits>
#include <vector>

#include "detail/patch_apply.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/ga/detail/elements.hpp"
#include "gaea/ga/scan.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga {

namespace {

template <class T>
void require_1d(const char* what, const global_array<T>& a) {
  if (a.ndim() != 1)
    throw error(std::string("ga::") + what + ": " + detail::shape_of(a) +
                "; a 1-D array is needed");
}

template <class T>
void require_range(const char* what, const global_array<T>& a, index_t lo, index_t hi) {
  require_1d(what, a);
  a.layout().validate(patch{{lo}, {hi}}, std::string("ga::") + what);
}

template <class A, class B>
void require_distinct(const char* what, const A& src, const B& dst) {
  if (&src.core() == &dst.core())
    throw error(std::string("ga::") + what + ": the destination '" + dst.name() +
                "' must not be the source");
}

// This rank's share [lo, hi] of a range (empty when lo > hi).
struct share {
  index_t lo, hi;
  index_t size() const { return hi - lo + 1; }
  bool empty() const { return lo > hi; }
  patch box() const { return {{lo}, {hi}}; }
};

share my_share(const coll::group& g, index_t lo, index_t hi) {
  const index_t n = hi - lo + 1, p = g.size(), r = g.rank();
  return {lo + n * r / p, lo + n * (r + 1) / p - 1};
}

template <class T>
std::vector<T> read(const global_array<T>& a, const share& s) {
  std::vector<T> out(static_cast<std::size_t>(std::max<index_t>(s.size(), 0)));
  if (!s.empty()) a.core().get(s.box(), {out.data(), out.size(), {}}).wait();
  return out;
}

template <class T>
void write(const global_array<T>& a, const share& s, std::span<std::type_identity_t<T>> values) {
  if (!s.empty()) a.core().put(s.box(), {values.data(), values.size(), {}}).wait();
}

template <class M>
bool is_set(const M& m) {
  return m != M(0);
}

// Per-rank state at the end of its share: whether a segment starts in it, and the value carried
// out (the running sum, or the segment's first value).
template <class T>
struct carry {
  T value;
  bool starts;
};

enum class scan_kind { add_inclusive, add_exclusive, copy };

template <class T, class M>
void segmented(const char* what, scan_kind kind, const global_array<T>& src, global_array<T>& dst,
               const global_array<M>& mask, index_t lo, index_t hi, scan_start start) {
  require_range(what, src, lo, hi);
  require_range(what, dst, lo, hi);
  require_range(what, mask, lo, hi);
  detail::begin_collective(src, dst, mask);
  const coll::group& g = dst.group();
  const share s = my_share(g, lo, hi);
  const std::vector<T> x = read(src, s);
  const std::vector<M> m = read(mask, s);
  const bool at_lo = start == scan_start::at_lo;
  auto starts_at = [&](std::size_t k) {
    return is_set(m[k]) || (at_lo && s.lo + static_cast<index_t>(k) == lo);
  };
  const bool copy = kind == scan_kind::copy;
  // Carry out of this share alone (as if nothing came in).
  carry<T> out{T(0), false};
  for (std::size_t k = 0; k < x.size(); ++k) {
    if (starts_at(k)) {
      out = {x[k], true};
    } else if (!copy) {
      out.value = static_cast<T>(out.value + x[k]);
    }
  }
  const std::vector<carry<T>> all = coll::allgather(g, out);
  T acc(0);             // state entering this share
  bool active = false;  // whether a segment has started before it
  for (int r = 0; r < g.rank(); ++r) {
    const carry<T>& c = all[static_cast<std::size_t>(r)];
    if (c.starts)
      acc = c.value;
    else if (!copy)
      acc = static_cast<T>(acc + c.value);
    active = active || c.starts;
  }
  // Elements before the first segment (mask_only) form a prefix of the range, so of each share:
  // scan_add leaves them unwritten, scan_copy writes acc (still 0) into them.
  std::size_t skipped = 0;
  std::vector<T> y(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) {
    const bool begins = starts_at(k);
    active = active || begins;
    if (!active && !copy) {
      ++skipped;
      continue;
    }
    switch (kind) {
      case scan_kind::copy:
        if (begins) acc = x[k];
        y[k] = acc;
        break;
      case scan_kind::add_inclusive:
        acc = begins ? x[k] : static_cast<T>(acc + x[k]);
        y[k] = acc;
        break;
      case scan_kind::add_exclusive:
        y[k] = begins ? T(0) : acc;
        acc = begins ? x[k] : static_cast<T>(acc + x[k]);
        break;
    }
  }
  // Every rank has read its source (allgather), so dst may be src.
  write(dst, share{s.lo + static_cast<index_t>(skipped), s.hi}, std::span<T>(y).subspan(skipped));
  dst.sync();
}

// Number of set mask elements in each rank's share, and this rank's offset among them.
struct counts {
  index_t offset = 0, total = 0, mine = 0;
};

template <class M>
counts count_mask(const coll::group& g, const std::vector<M>& m) {
  counts c;
  for (const M& v : m)
    c.mine += is_set(v);
  const std::vector<index_t> all = coll::allgather(g, c.mine);
  for (int r = 0; r < g.size(); ++r) {
    if (r < g.rank()) c.offset += all[static_cast<std::size_t>(r)];
    c.total += all[static_cast<std::size_t>(r)];
  }
  return c;
}

template <class T>
void require_room(const char* what, const global_array<T>& a, index_t total, const char* role) {
  if (a.dims()[0] < total)
    throw error(std::string("ga::") + what + ": the mask selects " + std::to_string(total) +
                " elements, but " + role + " " + detail::shape_of(a));
}

}  // namespace

template <element T, mask_element M>
void scan_add(const global_array<T>& src, global_array<T>& dst, const global_array<M>& mask,
              index_t lo, index_t hi, bool exclusive, scan_start start) {
  segmented("scan_add", exclusive ? scan_kind::add_exclusive : scan_kind::add_inclusive, src, dst,
            mask, lo, hi, start);
}

template <element T, mask_element M>
void scan_copy(const global_array<T>& src, global_array<T>& dst, const global_array<M>& mask,
               index_t lo, index_t hi, scan_start start) {
  segmented("scan_copy", scan_kind::copy, src, dst, mask, lo, hi, start);
}

template <element T, mask_element M>
index_t pack(const global_array<T>& src, global_array<T>& dst, const global_array<M>& mask,
             index_t lo, index_t hi) {
  require_range("pack", src, lo, hi);
  require_range("pack", mask, lo, hi);
  require_1d("pack", dst);
  require_distinct("pack", src, dst);
  detail::begin_collective(src, dst, mask);
  const coll::group& g = dst.group();
  const share s = my_share(g, lo, hi);
  const std::vector<T> x = read(src, s);
  const std::vector<M> m = read(mask, s);
  const counts c = count_mask(g, m);
  require_room("pack", dst, c.total, "the destination");
  std::vector<T> packed;
  for (std::size_t k = 0; k < x.size(); ++k)
    if (is_set(m[k])) packed.push_back(x[k]);
  write(dst, share{c.offset, c.offset + c.mine - 1}, packed);
  dst.sync();
  return c.total;
}

template <element T, mask_element M>
index_t unpack(const global_array<T>& src, global_array<T>& dst, const global_array<M>& mask,
               index_t lo, index_t hi) {
  require_range("unpack", dst, lo, hi);
  require_range("unpack", mask, lo, hi);
  require_1d("unpack", src);
  require_distinct("unpack", src, dst);
  detail::begin_collective(src, dst, mask);
  const coll::group& g = dst.group();
  const share s = my_share(g, lo, hi);
  const std::vector<M> m = read(mask, s);
  const counts c = count_mask(g, m);
  require_room("unpack", src, c.total, "the source");
  const std::vector<T> packed = read(src, share{c.offset, c.offset + c.mine - 1});
  std::vector<T> y = read(dst, s);  // unselected elements keep their values
  std::size_t next = 0;
  for (std::size_t k = 0; k < y.size(); ++k)
    if (is_set(m[k])) y[k] = packed[next++];
  write(dst, s, y);
  dst.sync();
  return c.total;
}

template <element T>
void patch_enum(global_array<T>& a, index_t lo, index_t hi, T start, T step) {
  require_range("patch_enum", a, lo, hi);
  detail::begin_collective(a);
  const detail::operand<T> out{&a, patch{{lo}, {hi}}};
  detail::apply_patch(out, std::array<detail::operand<T>, 0>{}, [&](const detail::run<1, T>& r) {
    for (index_t i = 0; i < r.n; ++i)
      r.p[0][i * r.step[0]] = static_cast<T>(start + T(r.at[0] + i - lo) * step);
  });
  a.core().barrier();
}

#define GAEA_GA_INSTANTIATE_MASK(T, M)                                                            \
  template void scan_add<T, M>(const global_array<T>&, global_array<T>&, const global_array<M>&,  \
                               index_t, index_t, bool, scan_start);                               \
  template void scan_copy<T, M>(const global_array<T>&, global_array<T>&, const global_array<M>&, \
                                index_t, index_t, scan_start);                                    \
  template index_t pack<T, M>(const global_array<T>&, global_array<T>&, const global_array<M>&,   \
                              index_t, index_t);                                                  \
  template index_t unpack<T, M>(const global_array<T>&, global_array<T>&, const global_array<M>&, \
                                index_t, index_t);
// Every element type with every mask type. A macro cannot expand GAEA_GA_FOR_EACH_ELEMENT inside
// itself, so the sources are listed here; the assertion catches a type added to the one list.
#define GAEA_GA_INSTANTIATE_MASKS(M, mtag, mname)   \
  GAEA_GA_INSTANTIATE_MASK(double, M)               \
  GAEA_GA_INSTANTIATE_MASK(float, M)                \
  GAEA_GA_INSTANTIATE_MASK(std::int64_t, M)         \
  GAEA_GA_INSTANTIATE_MASK(std::int32_t, M)         \
  GAEA_GA_INSTANTIATE_MASK(std::complex<double>, M) \
  GAEA_GA_INSTANTIATE_MASK(std::complex<float>, M)
#define GAEA_GA_COUNT(T, tag, name) +1
static_assert(0 GAEA_GA_FOR_EACH_ELEMENT(GAEA_GA_COUNT) == 6,
              "scan.cpp: list the new element type in GAEA_GA_INSTANTIATE_MASKS");
#undef GAEA_GA_COUNT
GAEA_GA_FOR_EACH_ELEMENT(GAEA_GA_INSTANTIATE_MASKS)
#define GAEA_GA_INSTANTIATE(T, tag, name) \
  template void patch_enum<T>(global_array<T>&, index_t, index_t, T, T);
GAEA_GA_FOR_EACH_ELEMENT(GAEA_GA_INSTANTIATE)
#undef GAEA_GA_INSTANTIATE
#undef GAEA_GA_INSTANTIATE_MASKS
#undef GAEA_GA_INSTANTIATE_MASK

}  // namespace gaea::ga
