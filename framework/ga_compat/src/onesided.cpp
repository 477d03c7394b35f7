// Blocking one-sided transfers: NGA_Put/Get/Acc, their strided (skip) and periodic forms, in
// 32- and 64-bit index variants.

#include <string>
#include <vector>

#include "detail/indices.hpp"
#include "detail/scratch.hpp"
#include "detail/state.hpp"
#include "detail/transfer.hpp"
#include "ga.h"

using namespace gaea::ga_compat::detail;
namespace ga = gaea::ga;
using gaea::error;

namespace {

template <class I>
void contiguous(const char* fn, xfer op, int g_a, const I* lo, const I* hi, void* buf, const I* ld,
                const void* alpha) {
  with_array(g_a, fn, [&](auto& a) {
    const ga::patch p = to_patch(lo, hi, a.ndim());
    start_transfer(a, op, p, buf, to_ld(ld, p), alpha, fn).wait();  // blocking: buffer reusable
  });
}

// NGA_Strided_*: the elements lo + k*skip (<= hi) in every dimension, packed in the buffer
// with leading extents `ld`. Sent as one element list (one message per owner).
template <class I>
void strided(const char* fn, xfer op, int g_a, const I* lo, const I* hi, const I* skip, void* buf,
             const I* ld, const void* alpha) {
  with_array(g_a, fn, [&](auto& a) {
    using T = element_of<decltype(a)>;
    const int n = a.ndim();
    const ga::patch p = to_patch(lo, hi, n);
    a.layout().validate(p, fn);
    const ga::index step = to_index(skip, n, "skip");
    ga::patch counts{ga::index(static_cast<std::size_t>(n), 0),
                     ga::index(static_cast<std::size_t>(n), 0)};
    for (int d = 0; d < n; ++d) {
      const std::size_t k = static_cast<std::size_t>(d);
      if (step[k] < 1)
        throw error(std::string(fn) + ": skip[" + std::to_string(d) +
                    "]=" + std::to_string(step[k]) + " must be at least 1");
      counts.hi[k] = (p.hi[k] - p.lo[k]) / step[k];
    }
    const ga::index bld = to_ld(ld, counts);
    const std::size_t total = static_cast<std::size_t>(counts.elements());
    scratch_vector<ga::index> subs;
    scratch_vector<std::size_t> where;  // buffer offset of each element
    subs.reserve(total);
    where.reserve(total);
    ga::index c(static_cast<std::size_t>(n), 0);
    for (std::size_t e = 0; e < total; ++e) {
      ga::index s(static_cast<std::size_t>(n), 0);
      std::size_t off = 0, stride = 1;
      for (int d = n - 1; d >= 0; --d) {
        const std::size_t k = static_cast<std::size_t>(d);
        s[k] = p.lo[k] + c[k] * step[k];
        off += static_cast<std::size_t>(c[k]) * stride;
        if (d > 0) stride *= static_cast<std::size_t>(bld[k - 1]);
      }
      subs.push_back(s);
      where.push_back(off);
      for (int d = n - 1; d >= 0; --d) {  // odometer, last dimension fastest
        const std::size_t k = static_cast<std::size_t>(d);
        if (++c[k] <= counts.hi[k]) break;
        c[k] = 0;
      }
    }
    T* b = buffer<T>(buf, total ? where.back() + 1 : 0, fn).data();
    scratch_vector<T> vals(total);
    if (op == xfer::get) {
      a.gather(subs, vals);
      for (std::size_t e = 0; e < total; ++e)
        b[where[e]] = vals[e];
    } else {
      for (std::size_t e = 0; e < total; ++e)
        vals[e] = b[where[e]];
      if (op == xfer::put) {
        a.scatter(subs, vals);
      } else {
        a.scatter_acc(subs, vals, scalar_from<T>(alpha, fn));
      }
    }
  });
}

// One dimension of a periodic patch, cut where it wraps: (array start, length, buffer start).
struct segment {
  ga::index_t start, length, offset;
};
std::vector<segment> wrap(ga::index_t lo, ga::index_t hi, ga::index_t dim) {
  std::vector<segment> out;
  ga::index_t i = lo, off = 0;
  while (i <= hi) {
    const ga::index_t s = ((i % dim) + dim) % dim;
    const ga::index_t len = std::min(hi - i + 1, dim - s);
    out.push_back({s, len, off});
    i += len;
    off += len;
  }
  return out;
}

// NGA_Periodic_*: lo/hi may lie outside the array; indices wrap around every dimension. Each
// wrapped piece is a plain transfer into its part of the caller's buffer, all in flight together.
template <class I>
void periodic(const char* fn, xfer op, int g_a, const I* lo, const I* hi, void* buf, const I* ld,
              const void* alpha) {
  with_array(g_a, fn, [&](auto& a) {
    using T = element_of<decltype(a)>;
    const int n = a.ndim();
    const ga::patch whole = to_patch(lo, hi, n);
    for (int d = 0; d < n; ++d)
      if (whole.lo[static_cast<std::size_t>(d)] > whole.hi[static_cast<std::size_t>(d)])
        throw error(std::string(fn) + ": lo > hi in dimension " + std::to_string(d));
    const ga::index bld = to_ld(ld, whole);
    std::vector<std::vector<segment>> segs;
    for (int d = 0; d < n; ++d) {
      const std::size_t k = static_cast<std::size_t>(d);
      segs.push_back(wrap(whole.lo[k], whole.hi[k], a.dims()[k]));
    }
    std::vector<std::size_t> c(static_cast<std::size_t>(n), 0);
    std::vector<ga::request> pieces;
    while (true) {
      ga::patch piece{ga::index(static_cast<std::size_t>(n), 0),
                      ga::index(static_cast<std::size_t>(n), 0)};
      std::size_t off = 0, stride = 1;
      for (int d = n - 1; d >= 0; --d) {
        const std::size_t k = static_cast<std::size_t>(d);
        const segment& s = segs[k][c[k]];
        piece.lo[k] = s.start;
        piece.hi[k] = s.start + s.length - 1;
        off += static_cast<std::size_t>(s.offset) * stride;
        if (d > 0) stride *= static_cast<std::size_t>(bld[k - 1]);
      }
      pieces.push_back(start_transfer(a, op, piece, static_cast<T*>(buf) + off, bld, alpha, fn));
      int d = n - 1;
      for (; d >= 0; --d) {
        const std::size_t k = static_cast<std::size_t>(d);
        if (++c[k] < segs[k].size()) break;
        c[k] = 0;
      }
      if (d < 0) break;
    }
    ga::wait_all(pieces);
  });
}

}  // namespace

extern "C" {

void NGA_Put(int g_a, int lo[], int hi[], void* buf, int ld[]) {
  api("NGA_Put", [&] { contiguous<int>("NGA_Put", xfer::put, g_a, lo, hi, buf, ld, nullptr); });
}
void NGA_Get(int g_a, int lo[], int hi[], void* buf, int ld[]) {
  api("NGA_Get", [&] { contiguous<int>("NGA_Get", xfer::get, g_a, lo, hi, buf, ld, nullptr); });
}
void NGA_Acc(int g_a, int lo[], int hi[], void* buf, int ld[], void* alpha) {
  api("NGA_Acc", [&] { contiguous<int>("NGA_Acc", xfer::acc, g_a, lo, hi, buf, ld, alpha); });
}
void NGA_Put64(int g_a, int64_t lo[], int64_t hi[], void* buf, int64_t ld[]) {
  api("NGA_Put64",
      [&] { contiguous<int64_t>("NGA_Put64", xfer::put, g_a, lo, hi, buf, ld, nullptr); });
}
void NGA_Get64(int g_a, int64_t lo[], int64_t hi[], void* buf, int64_t ld[]) {
  api("NGA_Get64",
      [&] { contiguous<int64_t>("NGA_Get64", xfer::get, g_a, lo, hi, buf, ld, nullptr); });
}
void NGA_Acc64(int g_a, int64_t lo[], int64_t hi[], void* buf, int64_t ld[], void* alpha) {
  api("NGA_Acc64",
      [&] { contiguous<int64_t>("NGA_Acc64", xfer::acc, g_a, lo, hi, buf, ld, alpha); });
}

void NGA_Strided_put(int g_a, int lo[], int hi[], int skip[], void* buf, int ld[]) {
  api("NGA_Strided_put",
      [&] { strided<int>("NGA_Strided_put", xfer::put, g_a, lo, hi, skip, buf, ld, nullptr); });
}
void NGA_Strided_get(int g_a, int lo[], int hi[], int skip[], void* buf, int ld[]) {
  api("NGA_Strided_get",
      [&] { strided<int>("NGA_Strided_get", xfer::get, g_a, lo, hi, skip, buf, ld, nullptr); });
}
void NGA_Strided_acc(int g_a, int lo[], int hi[], int skip[], void* buf, int ld[], void* alpha) {
  api("NGA_Strided_acc",
      [&] { strided<int>("NGA_Strided_acc", xfer::acc, g_a, lo, hi, skip, buf, ld, alpha); });
}
void NGA_Strided_put64(int g_a, int64_t lo[], int64_t hi[], int64_t skip[], void* buf,
                       int64_t ld[]) {
  api("NGA_Strided_put64", [&] {
    strided<int64_t>("NGA_Strided_put64", xfer::put, g_a, lo, hi, skip, buf, ld, nullptr);
  });
}
void NGA_Strided_get64(int g_a, int64_t lo[], int64_t hi[], int64_t skip[], void* buf,
                       int64_t ld[]) {
  api("NGA_Strided_get64", [&] {
    strided<int64_t>("NGA_Strided_get64", xfer::get, g_a, lo, hi, skip, buf, ld, nullptr);
  });
}
void NGA_Strided_acc64(int g_a, int64_t lo[], int64_t hi[], int64_t skip[], void* buf, int64_t ld[],
                       void* alpha) {
  api("NGA_Strided_acc64",
      [&] { strided<int64_t>("NGA_Strided_acc64", xfer::acc, g_a, lo, hi, skip, buf, ld, alpha); });
}

void NGA_Periodic_put(int g_a, int lo[], int hi[], void* buf, int ld[]) {
  api("NGA_Periodic_put",
      [&] { periodic<int>("NGA_Periodic_put", xfer::put, g_a, lo, hi, buf, ld, nullptr); });
}
void NGA_Periodic_get(int g_a, int lo[], int hi[], void* buf, int ld[]) {
  api("NGA_Periodic_get",
      [&] { periodic<int>("NGA_Periodic_get", xfer::get, g_a, lo, hi, buf, ld, nullptr); });
}
void NGA_Periodic_acc(int g_a, int lo[], int hi[], void* buf, int ld[], void* alpha) {
  api("NGA_Periodic_acc",
      [&] { periodic<int>("NGA_Periodic_acc", xfer::acc, g_a, lo, hi, buf, ld, alpha); });
}
void NGA_Periodic_put64(int g_a, int64_t lo[], int64_t hi[], void* buf, int64_t ld[]) {
  api("NGA_Periodic_put64",
      [&] { periodic<int64_t>("NGA_Periodic_put64", xfer::put, g_a, lo, hi, buf, ld, nullptr); });
}
void NGA_Periodic_get64(int g_a, int64_t lo[], int64_t hi[], void* buf, int64_t ld[]) {
  api("NGA_Periodic_get64",
      [&] { periodic<int64_t>("NGA_Periodic_get64", xfer::get, g_a, lo, hi, buf, ld, nullptr); });
}
void NGA_Periodic_acc64(int g_a, int64_t lo[], int64_t hi[], void* buf, int64_t ld[], void* alpha) {
  api("NGA_Periodic_acc64",
      [&] { periodic<int64_t>("NGA_Periodic_acc64", xfer::acc, g_a, lo, hi, buf, ld, alpha); });
}

}  // extern "C"
