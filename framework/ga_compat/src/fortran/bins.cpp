// GA's Fortran binning calls (ga_bin_index, ga_bin_sorter and their nga_ spellings): a 1-D
// MT_INT array g_bin holds bins back to back, bin b (numbered from 1) starting after g_off(b)
// elements and holding g_cnt(b). ga_bin_index has every rank place its values(i) into bin
// subs(i), the ranks' contributions to a bin in rank order; ga_bin_sorter sorts each bin.

#include <mpi.h>
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "detail/fortran.hpp"
#include "ga-mpi.h"

using namespace gaea::ga_compat::fortran;
using gaea::error;

namespace {

// Handle of a 1-D array of this build's INTEGER, and its length.
struct int_vector {
  int h = 0;
  std::int64_t n = 0;
};

int_vector int_array(const fint* g, const char* fn, const char* what) {
  int_vector v{handle(*g, fn), 0};
  int type = 0, ndim = 0;
  std::int64_t dims[GA_MAX_DIM] = {};
  NGA_Inquire64(v.h, &type, &ndim, dims);
  if (ndim != 1)
    throw error(std::string(fn) + ": " + what + " has " + std::to_string(ndim) +
                " dimensions (1 needed)");
  if (type != c_type(MT_F_INT, fn))
    throw error(std::string(fn) + ": " + what + " is not an MT_INT array");
  v.n = dims[0];
  return v;
}

// The whole of a (small) 1-D array, on every caller.
std::vector<fint> whole(const int_vector& a) {
  std::vector<fint> v(static_cast<std::size_t>(a.n));
  if (a.n == 0) return v;
  std::int64_t lo = 0, hi = a.n - 1, ld = 1;
  NGA_Get64(a.h, &lo, &hi, v.data(), &ld);
  return v;
}

// Element [first, first + count) of g_bin as C subscripts, checked against its length.
void bin_range(const int_vector& bin, fint off, fint count, std::int64_t b, std::int64_t& lo,
               std::int64_t& hi, const char* fn) {
  lo = off;
  hi = lo + count - 1;
  if (lo < 0 || hi >= bin.n)
    throw error(std::string(fn) + ": bin " + std::to_string(b + 1) + " (elements " +
                std::to_string(lo + 1) + " to " + std::to_string(hi + 1) +
                ") lies outside the bin array of " + std::to_string(bin.n));
}

void sort_bins(const fint* g_bin, const fint* g_cnt, const fint* g_off, const char* fn) {
  const int_vector bin = int_array(g_bin, fn, "g_bin"), cnt = int_array(g_cnt, fn, "g_cnt"),
                   off = int_array(g_off, fn, "g_off");
  GA_Sync();
  const std::vector<fint> counts = whole(cnt), offsets = whole(off);
  // Each rank sorts the bins whose offsets it holds: every bin has one owner.
  std::int64_t mine_lo = 0, mine_hi = -1;
  NGA_Distribution64(off.h, GA_Nodeid(), &mine_lo, &mine_hi);
  std::vector<fint> buf;
  for (std::int64_t b = std::max<std::int64_t>(mine_lo, 0);
       b <= std::min(mine_hi, static_cast<std::int64_t>(counts.size()) - 1); ++b) {
    const fint c = counts[static_cast<std::size_t>(b)];
    if (c <= 1) continue;
    std::int64_t lo = 0, hi = 0, ld = 1;
    bin_range(bin, offsets[static_cast<std::size_t>(b)], c, b, lo, hi, fn);
    buf.resize(static_cast<std::size_t>(c));
    NGA_Get64(bin.h, &lo, &hi, buf.data(), &ld);
    std::sort(buf.begin(), buf.end());
    NGA_Put64(bin.h, &lo, &hi, buf.data(), &ld);
  }
  GA_Sync();
}

void bin_index(const fint* g_bin, const fint* g_cnt, const fint* g_off, const fint* values,
               const fint* subs, const fint* n, const fint* sortit, const char* fn) {
  const int_vector bin = int_array(g_bin, fn, "g_bin"), off = int_array(g_off, fn, "g_off");
  int_array(g_cnt, fn, "g_cnt");
  if (*n < 0) throw error(std::string(fn) + ": n = " + std::to_string(*n));
  const auto nbins = static_cast<std::size_t>(off.n);
  // This rank's elements in each bin, then those of lower ranks (rank order within a bin).
  std::vector<std::int64_t> mine(nbins, 0), before(nbins, 0);
  for (fint i = 0; i < *n; ++i) {
    if (subs[i] < 1 || static_cast<std::size_t>(subs[i]) > nbins)
      throw error(std::string(fn) + ": subs(" + std::to_string(i + 1) +
                  ") = " + std::to_string(subs[i]) + ", bins are 1 to " + std::to_string(nbins));
    ++mine[static_cast<std::size_t>(subs[i] - 1)];
  }
  MPI_Exscan(mine.data(), before.data(), static_cast<int>(nbins), MPI_INT64_T, MPI_SUM,
             GA_MPI_Comm());
  if (GA_Nodeid() == 0) std::fill(before.begin(), before.end(), 0);  // Exscan leaves rank 0's
  const std::vector<fint> offsets = whole(off);
  // Values grouped by bin, in their order within a bin (subs need not be sorted).
  std::vector<std::int64_t> order(static_cast<std::size_t>(*n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int64_t a, std::int64_t b) { return subs[a] < subs[b]; });
  std::vector<fint> buf;
  for (std::size_t k = 0; k < order.size();) {
    const auto b = static_cast<std::size_t>(subs[order[k]] - 1);
    const auto c = static_cast<std::size_t>(mine[b]);
    buf.clear();
    for (std::size_t j = k; j < k + c; ++j)
      buf.push_back(values[order[j]]);
    std::int64_t lo = 0, hi = 0, ld = 1;
    bin_range(bin, static_cast<fint>(offsets[b] + before[b]), static_cast<fint>(c),
              static_cast<std::int64_t>(b), lo, hi, fn);
    NGA_Put64(bin.h, &lo, &hi, buf.data(), &ld);
    k += c;
  }
  if (*sortit != 0)
    sort_bins(g_bin, g_cnt, g_off, fn);
  else
    GA_Sync();
}

}  // namespace

extern "C" {

void ga_bin_index_(fint* g_bin, fint* g_cnt, fint* g_off, fint* values, fint* subs, fint* n,
                   fint* sortit) {
  api("ga_bin_index",
      [&] { bin_index(g_bin, g_cnt, g_off, values, subs, n, sortit, "ga_bin_index"); });
}
void nga_bin_index_(fint* g_bin, fint* g_cnt, fint* g_off, fint* values, fint* subs, fint* n,
                    fint* sortit) {
  api("nga_bin_index",
      [&] { bin_index(g_bin, g_cnt, g_off, values, subs, n, sortit, "nga_bin_index"); });
}
void ga_bin_sorter_(fint* g_bin, fint* g_cnt, fint* g_off) {
  api("ga_bin_sorter", [&] { sort_bins(g_bin, g_cnt, g_off, "ga_bin_sorter"); });
}
void nga_bin_sorter_(fint* g_bin, fint* g_cnt, fint* g_off) {
  api("nga_bin_sorter", [&] { sort_bins(g_bin, g_cnt, g_off, "nga_bin_sorter"); });
}

}  // extern "C"
